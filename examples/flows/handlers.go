package flows

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// survey implements SurveyHandler.
type survey struct{}

var (
	_ SurveyHandler = survey{}
	_ PollHandler   = poll{}
)

func (survey) Complete(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a SurveyAnswers) (*mcp.CallToolResult, error) {
	return elicitrt.Text(fmt.Sprintf("%s: %s likes %s (also %v), %d stars", args.Topic, a.Name.Name, a.Colors.Favorite, a.Colors.Also, a.Rating.Stars)), nil
}

func (survey) Declined(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a SurveyAnswers, step SurveyStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("no survey: declined at " + step.String()), nil
}

func (survey) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a SurveyAnswers, step SurveyStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("no survey: cancelled at " + step.String()), nil
}

func (survey) Unavailable(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a SurveyAnswers, step SurveyStep) (*mcp.CallToolResult, error) {
	return elicitrt.ToolError(fmt.Sprintf("the survey needs a person for %s (colors so far: %s)", step, a.Colors.Favorite)), nil
}

func (survey) ColorsMessage(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a SurveyAnswers) string {
	return "Which colours go with " + args.Topic + "?"
}

// poll implements PollHandler.
type poll struct{}

func (poll) Complete(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a PollAnswers) (*mcp.CallToolResult, error) {
	return elicitrt.Text("poll: " + a.Name.Name), nil
}

func (poll) Declined(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a PollAnswers, step PollStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("poll declined"), nil
}

func (poll) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a PollAnswers, step PollStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("poll cancelled"), nil
}

// NewServer registers both tools.
func NewServer(opts *elicitrt.ToolOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "flows", Version: "v0"}, nil)
	RegisterSurvey(s, survey{}, opts)
	RegisterPoll(s, poll{}, opts)
	RegisterStrict(s, strict{}, opts)
	RegisterSignup(s, signup{}, opts)
	return s
}

// signup implements SignupHandler.
type signup struct{}

func (signup) Complete(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a SignupAnswers) (*mcp.CallToolResult, error) {
	name := "anonymous"
	if a.Name != nil {
		name = a.Name.Name
	}
	return elicitrt.Text(fmt.Sprintf("signup: %s, %d stars, %s", name, a.Rating.Stars, a.Colors.Favorite)), nil
}

// AskName skips the name on an anonymous signup: the round then begins
// with the rating.
func (signup) AskName(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a SignupAnswers) bool {
	return args.Topic != "anonymous"
}

func (signup) Declined(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a SignupAnswers, step SignupStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("no signup: declined at " + step.String()), nil
}

func (signup) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a SignupAnswers, step SignupStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("no signup: cancelled at " + step.String()), nil
}

// strict implements StrictHandler; Complete reports what it was given.
type strict struct{}

func (strict) Complete(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a StrictAnswers) (*mcp.CallToolResult, error) {
	return elicitrt.Text(fmt.Sprintf("completed %+v", *a.Everything)), nil
}
func (strict) Declined(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a StrictAnswers, s StrictStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("declined"), nil
}
func (strict) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args SurveyArgs, a StrictAnswers, s StrictStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("cancelled"), nil
}
