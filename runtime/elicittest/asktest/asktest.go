// Package asktest is a known server for tests of what wraps a
// conversation (hooks, telemetry, middleware): a prompt and a resource
// template that each ask for a context first, written by hand as
// generated code would write them. runtime/otelelicit's tests and the
// runtime's own use it.
package asktest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
)

// A prompt and a resource template that ask, written by hand as generated
// code would write them: one form step each ({"context": string of at
// least 3 characters, required}), driven through the real SDK client on
// both eras, in memory and over HTTP.

var contextSchema = json.RawMessage(`{"type":"object","properties":{"context":{"type":"string","minLength":3}},"required":["context"]}`)

type contextForm struct{ Context string }

func (f *contextForm) DecodeElicit(c map[string]any) error {
	s, ok := c["context"].(string)
	if !ok || len(s) < 3 {
		return errors.New("invalid content: context: must be a string of at least 3 characters")
	}
	f.Context = s
	return nil
}

func contextStep(key, message string) elicitimpl.Step {
	return elicitimpl.Step{
		Key: key, Message: message, Missing: "context is required",
		Params: func(msg string) *mcp.ElicitParams {
			return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: contextSchema}
		},
		Check: elicitimpl.Check[contextForm],
	}
}

type promptArgs struct {
	Project string `json:"project"`
}

type askAnswers struct{ Context *contextForm }

func askAnswersOf(a elicitimpl.Answers) askAnswers {
	return askAnswers{Context: elicitimpl.Decoded[contextForm](a[0])}
}

// Server serves the prompt "summarize" (argument project, required) and
// the resource template "notes://{id}", each asking for a context first.
func Server(opts *elicitrt.ToolOptions) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "ask", Version: "v0"}, nil)
	pm := elicitimpl.NewPromptMachine("summarize", []elicitimpl.Step{contextStep("user_context", "What context should the prompt use?")},
		elicitimpl.TypedPrompt[promptArgs, askAnswers, int]{
			Answers: askAnswersOf,
			Complete: func(ctx context.Context, req *mcp.GetPromptRequest, args promptArgs, a askAnswers) (*mcp.GetPromptResult, error) {
				return elicitrt.PromptText("summary", fmt.Sprintf("Summarize %s for %s.", args.Project, a.Context.Context)), nil
			},
			Declined: func(ctx context.Context, req *mcp.GetPromptRequest, args promptArgs, a askAnswers, s int) (*mcp.GetPromptResult, error) {
				return elicitrt.PromptText("summary", "Summarize "+args.Project+"."), nil
			},
			Cancelled: func(ctx context.Context, req *mcp.GetPromptRequest, args promptArgs, a askAnswers, s int) (*mcp.GetPromptResult, error) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "cancelled"}
			},
		}, opts)
	elicitimpl.AddPrompt[promptArgs](server, &mcp.Prompt{Name: "summarize", Arguments: []*mcp.PromptArgument{{Name: "project", Required: true}}}, pm)

	rm := elicitimpl.NewResourceMachine("notes://{id}", []elicitimpl.Step{contextStep("note_context", "Which notes?")},
		elicitimpl.TypedResource[askAnswers, int]{
			Answers: askAnswersOf,
			Complete: func(ctx context.Context, req *mcp.ReadResourceRequest, a askAnswers) (*mcp.ReadResourceResult, error) {
				return elicitrt.ResourceText(req.Params.URI, "text/plain", "notes on "+a.Context.Context), nil
			},
			Declined: func(ctx context.Context, req *mcp.ReadResourceRequest, a askAnswers, s int) (*mcp.ReadResourceResult, error) {
				return elicitrt.ResourceText(req.Params.URI, "text/plain", "declined"), nil
			},
			Cancelled: func(ctx context.Context, req *mcp.ReadResourceRequest, a askAnswers, s int) (*mcp.ReadResourceResult, error) {
				return elicitrt.ResourceText(req.Params.URI, "text/plain", "cancelled"), nil
			},
		}, opts)
	elicitimpl.AddResourceTemplate(server, &mcp.ResourceTemplate{Name: "notes", URITemplate: "notes://{id}", MIMEType: "text/plain"}, rm)

	// A tool of the prompt's name, with the same step and arguments: its
	// states and the prompt's must not open for each other.
	tm := elicitimpl.NewMachine("summarize", []elicitimpl.Step{contextStep("user_context", "What context should the prompt use?")}, elicitimpl.Flow{
		Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text("tool done"), nil
		},
		Ended: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text(action), nil
		},
	}, opts)
	elicitimpl.AddTool[promptArgs](server, &mcp.Tool{Name: "summarize", InputSchema: json.RawMessage(`{"type":"object","properties":{"project":{"type":"string"}}}`)}, tm)
	return server
}
