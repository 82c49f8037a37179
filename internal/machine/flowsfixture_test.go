package machine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicitimpl"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The flows fixture: four tools written by hand as generated code would
// write them (forms with strict decoders built on runtime/elicitimpl's
// helpers and reasons, step tables, typed handlers), for the tests of
// validation, hostile content and capability fallbacks:
//   - survey: colors (message from the handler, fallback=defaults), rating
//     (fallback=handler: Unavailable), name (fallback=error);
//   - poll: name (fallback=error), with the survey's arguments;
//   - strict: the everything form, one property of every kind;
//   - signup: name (asked unless the topic is "anonymous"), rating and
//     colors together, in one round.

// flowsArgs are every flows tool's arguments.
type flowsArgs struct {
	Topic string `json:"topic" jsonschema:"what the survey is about"`
}

var flowsColorNames = []string{"red", "green", "blue"}

// flowsFields decodes the properties of one form's content, as a
// generated DecodeElicit does property by property, collecting every
// refusal.
type flowsFields struct {
	content map[string]any
	errs    []elicitrt.FieldError
}

func (f *flowsFields) fail(prop, reason string) {
	f.errs = append(f.errs, elicitrt.FieldError{Property: prop, Reason: reason})
}

// get returns the raw value of prop; a required one absent is refused.
func (f *flowsFields) get(prop string, required bool) (any, bool) {
	raw, ok := f.content[prop]
	if !ok && required {
		f.fail(prop, elicitimpl.ReasonRequired)
	}
	return raw, ok
}

func (f *flowsFields) integer(prop string, required bool, lo, hi int64) (int64, bool) {
	raw, ok := f.get(prop, required)
	if !ok {
		return 0, false
	}
	n, reason := elicitimpl.Integer(raw)
	if reason == "" && (n < lo || n > hi) {
		reason = fmt.Sprintf("must be an integer from %d to %d", lo, hi)
	}
	if reason != "" {
		f.fail(prop, reason)
		return 0, false
	}
	return n, true
}

// str reads a string property; check returns the reason it is refused.
func (f *flowsFields) str(prop string, required bool, check func(string) string) (string, bool) {
	raw, ok := f.get(prop, required)
	if !ok {
		return "", false
	}
	s, ok := raw.(string)
	reason := elicitimpl.ReasonString
	if ok {
		reason = check(s)
	}
	if reason != "" {
		f.fail(prop, reason)
		return "", false
	}
	return s, true
}

func flowsColor(s string) string {
	if !slices.Contains(flowsColorNames, s) {
		return "must be one of red, green, blue"
	}
	return ""
}

// colors reads a multi-select of colours of at most max items.
func (f *flowsFields) colors(prop string, max int) ([]string, bool) {
	raw, ok := f.get(prop, false)
	if !ok {
		return nil, false
	}
	list, ok := elicitimpl.List(raw)
	reason := ""
	var items []string
	switch {
	case !ok:
		reason = elicitimpl.ReasonArray
	case max >= 0 && len(list) > max:
		reason = fmt.Sprintf("must have at most %d items", max)
	}
	for _, it := range list {
		s, ok := it.(string)
		switch {
		case reason != "":
		case !ok:
			reason = elicitimpl.ReasonArray
		case flowsColor(s) != "":
			reason = "items must be among red, green, blue"
		case slices.Contains(items, s):
			reason = elicitimpl.ReasonDuplicate
		}
		items = append(items, s)
	}
	if reason != "" {
		f.fail(prop, reason)
		return nil, false
	}
	return items, true
}

func (f *flowsFields) err() error {
	if f.errs != nil {
		return &elicitrt.ContentError{Fields: f.errs}
	}
	return nil
}

func flowsTest(ok bool, reason string) string {
	if ok {
		return ""
	}
	return reason
}

// flowsColors: favorite (one colour, default green), also (colours,
// default none).
type flowsColors struct {
	Favorite string
	Also     []string
}

var flowsColorsSchema = json.RawMessage(`{"type":"object","properties":{"favorite":{"type":"string","title":"Favorite","enum":["red","green","blue"],"default":"green"},"also":{"type":"array","title":"Also","items":{"type":"string","enum":["red","green","blue"]},"default":[]}}}`)

func (x *flowsColors) DecodeElicit(content map[string]any) error {
	f := &flowsFields{content: content}
	v := flowsColors{Favorite: "green", Also: []string{}}
	if s, ok := f.str("favorite", false, flowsColor); ok {
		v.Favorite = s
	}
	if l, ok := f.colors("also", -1); ok {
		v.Also = l
	}
	if err := f.err(); err != nil {
		return err
	}
	*x = v
	return nil
}

// flowsRating: stars, an integer from 1 to 5, required.
type flowsRating struct{ Stars int }

var flowsRatingSchema = json.RawMessage(`{"type":"object","properties":{"stars":{"type":"integer","title":"Stars","minimum":1,"maximum":5}},"required":["stars"]}`)

func (x *flowsRating) DecodeElicit(content map[string]any) error {
	f := &flowsFields{content: content}
	n, _ := f.integer("stars", true, 1, 5)
	if err := f.err(); err != nil {
		return err
	}
	*x = flowsRating{Stars: int(n)}
	return nil
}

// flowsName: name (1 to 40 characters, required), email (an address).
type flowsName struct{ Name, Email string }

var flowsNameSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name","minLength":1,"maxLength":40},"email":{"type":"string","title":"Email","format":"email"}},"required":["name"]}`)

func (x *flowsName) DecodeElicit(content map[string]any) error {
	f := &flowsFields{content: content}
	var v flowsName
	v.Name, _ = f.str("name", true, func(s string) string {
		return flowsTest(elicitimpl.CharCountWithin(s, 1, 40), "must have 1 to 40 characters")
	})
	v.Email, _ = f.str("email", false, func(s string) string { return flowsTest(elicitimpl.IsEmail(s), elicitimpl.ReasonEmail) })
	if err := f.err(); err != nil {
		return err
	}
	*x = v
	return nil
}

// flowsEverything has one property of every kind.
type flowsEverything struct {
	Count    uint8
	Big      int64
	Ratio    float32
	Favorite string
	Picks    []string
	Day, At  string
	Site     string
	Mail     string
	Note     *string
	Agree    bool
}

var flowsEverythingSchema = json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer","title":"Count","minimum":0,"maximum":200},"big":{"type":"integer","title":"Big","minimum":-9007199254740991,"maximum":9007199254740991},"ratio":{"type":"number","title":"Ratio"},"favorite":{"type":"string","title":"Favorite","enum":["red","green","blue"]},"picks":{"type":"array","title":"Picks","maxItems":2,"items":{"type":"string","enum":["red","green","blue"]}},"day":{"type":"string","title":"Day","format":"date"},"at":{"type":"string","title":"At","format":"date-time"},"site":{"type":"string","title":"Site","format":"uri"},"mail":{"type":"string","title":"Mail","format":"email"},"note":{"type":"string","title":"Note","maxLength":100},"agree":{"type":"boolean","title":"Agree"}},"required":["count","favorite"]}`)

func (x *flowsEverything) DecodeElicit(content map[string]any) error {
	f := &flowsFields{content: content}
	var v flowsEverything
	n, _ := f.integer("count", true, 0, 200)
	v.Count = uint8(n)
	v.Big, _ = f.integer("big", false, -elicitimpl.MaxSafeInteger, elicitimpl.MaxSafeInteger)
	if raw, ok := f.get("ratio", false); ok {
		r, reason := elicitimpl.Number(raw)
		if reason == "" && (r < -math.MaxFloat32 || r > math.MaxFloat32) {
			reason = elicitimpl.ReasonFloat32
		}
		if reason != "" {
			f.fail("ratio", reason)
		}
		v.Ratio = float32(r)
	}
	v.Favorite, _ = f.str("favorite", true, flowsColor)
	v.Picks, _ = f.colors("picks", 2)
	v.Day, _ = f.str("day", false, func(s string) string { return flowsTest(elicitimpl.IsDate(s), elicitimpl.ReasonDate) })
	v.At, _ = f.str("at", false, func(s string) string {
		_, ok := elicitimpl.ParseDateTime(s)
		return flowsTest(ok, elicitimpl.ReasonDateTime)
	})
	v.Site, _ = f.str("site", false, func(s string) string { return flowsTest(elicitimpl.IsAbsoluteURI(s), elicitimpl.ReasonURI) })
	v.Mail, _ = f.str("mail", false, func(s string) string { return flowsTest(elicitimpl.IsEmail(s), elicitimpl.ReasonEmail) })
	if s, ok := f.str("note", false, func(s string) string {
		return flowsTest(elicitimpl.CharCountWithin(s, 0, 100), "must have at most 100 characters")
	}); ok {
		v.Note = &s
	}
	if raw, ok := f.get("agree", false); ok {
		b, isBool := raw.(bool)
		if !isBool {
			f.fail("agree", elicitimpl.ReasonBoolean)
		}
		v.Agree = b
	}
	if err := f.err(); err != nil {
		return err
	}
	*x = v
	return nil
}

// flowsForm returns the Params of a form step asking schema.
func flowsForm(schema json.RawMessage) func(string) *mcp.ElicitParams {
	return func(msg string) *mcp.ElicitParams {
		return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
	}
}

// flowsKeys is the key ring of every flows server of a test binary.
var flowsKeys = elicitrt.RandomKeyring()

// newFlowsServer is flowsServer with flowsKeys.
func newFlowsServer() *mcp.Server { return flowsServer(&elicitrt.ToolOptions{Keys: flowsKeys}) }

// flowsServer registers the four flows tools.
func flowsServer(opts *elicitrt.ToolOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "flows", Version: "v0"}, nil)
	flowsAddSurvey(s, opts)
	flowsAddPoll(s, opts)
	flowsAddStrict(s, opts)
	flowsAddSignup(s, opts)
	return s
}

// flowsAdd registers tool, whose arguments are flowsArgs, served by the
// machine of steps and flow.
func flowsAdd(s *mcp.Server, tool string, steps []elicitimpl.Step, flow elicitimpl.Flow, opts *elicitrt.ToolOptions) {
	base, err := jsonschema.For[flowsArgs](nil)
	m := elicitimpl.NewMachine(tool, steps, flow, opts)
	elicitimpl.AddTool[flowsArgs](s, &mcp.Tool{Name: tool, InputSchema: elicitimpl.MustInputSchema(tool, base, err, nil)}, m)
}

var (
	flowsColorsStep = elicitimpl.Step{Key: "colors", Digest: "flows-colors", Mode: elicitimpl.ModeForm,
		Missing: "favorite is required: one of red, green, blue; also is required: one of red, green, blue",
		Params:  flowsForm(flowsColorsSchema), Check: elicitimpl.Check[flowsColors]}
	flowsRatingStep = elicitimpl.Step{Key: "rating", Digest: "flows-rating", Mode: elicitimpl.ModeForm, Message: "How many stars?",
		Missing: "stars is required", Params: flowsForm(flowsRatingSchema), Check: elicitimpl.Check[flowsRating]}
	flowsNameStep = elicitimpl.Step{Key: "name", Digest: "flows-name", Mode: elicitimpl.ModeForm, Message: "What is your name?",
		Fallback: elicitimpl.FallbackError, Missing: "name is required", Params: flowsForm(flowsNameSchema), Check: elicitimpl.Check[flowsName]}
)

type flowsSurveyAnswers struct {
	Colors *flowsColors
	Rating *flowsRating
	Name   *flowsName
}

func flowsSurveyAnswersOf(a elicitimpl.Answers) flowsSurveyAnswers {
	return flowsSurveyAnswers{Colors: elicitimpl.Decoded[flowsColors](a[0]), Rating: elicitimpl.Decoded[flowsRating](a[1]),
		Name: elicitimpl.Decoded[flowsName](a[2])}
}

// flowsStepName names step i of steps.
func flowsStepName(steps []elicitimpl.Step, i int) string { return steps[i].Key }

// flowsEnded is a Declined or Cancelled handler answering text and the
// step's key.
func flowsEnded[T any](text string, steps []elicitimpl.Step) func(context.Context, *mcp.CallToolRequest, flowsArgs, T, int) (*mcp.CallToolResult, error) {
	return func(_ context.Context, _ *mcp.CallToolRequest, _ flowsArgs, _ T, step int) (*mcp.CallToolResult, error) {
		return elicitrt.Text(text + flowsStepName(steps, step)), nil
	}
}

func flowsAddSurvey(s *mcp.Server, opts *elicitrt.ToolOptions) {
	colors, rating := flowsColorsStep, flowsRatingStep
	colors.Fallback, rating.Fallback = elicitimpl.FallbackDefaults, elicitimpl.FallbackHandler
	steps := []elicitimpl.Step{colors, rating, flowsNameStep}
	flowsAdd(s, "survey", steps, elicitimpl.Typed[flowsArgs, flowsSurveyAnswers, int]{
		Answers: flowsSurveyAnswersOf,
		Complete: func(_ context.Context, _ *mcp.CallToolRequest, args flowsArgs, a flowsSurveyAnswers) (*mcp.CallToolResult, error) {
			return elicitrt.Text(fmt.Sprintf("%s: %s likes %s (also %v), %d stars", args.Topic, a.Name.Name, a.Colors.Favorite, a.Colors.Also, a.Rating.Stars)), nil
		},
		Declined:  flowsEnded[flowsSurveyAnswers]("no survey: declined at ", steps),
		Cancelled: flowsEnded[flowsSurveyAnswers]("no survey: cancelled at ", steps),
		Unavailable: func(_ context.Context, _ *mcp.CallToolRequest, _ flowsArgs, a flowsSurveyAnswers, step int) (*mcp.CallToolResult, error) {
			return elicitrt.ToolError(fmt.Sprintf("the survey needs a person for %s (colors so far: %s)", flowsStepName(steps, step), a.Colors.Favorite)), nil
		},
		Messages: map[int]func(context.Context, *mcp.CallToolRequest, flowsArgs, flowsSurveyAnswers) string{
			0: func(_ context.Context, _ *mcp.CallToolRequest, args flowsArgs, _ flowsSurveyAnswers) string {
				return "Which colours go with " + args.Topic + "?"
			},
		},
	}.Flow(), opts)
}

// flowsOneStep registers tool, of one step, whose Complete answers
// complete(answer) and whose decline or cancel answers the verb.
func flowsOneStep[T any, P interface {
	DecodeElicit(map[string]any) error
	*T
}](s *mcp.Server, tool string, step elicitimpl.Step, complete func(*T) string, ended func(verb string) string, opts *elicitrt.ToolOptions) {
	end := func(verb string) func(context.Context, *mcp.CallToolRequest, flowsArgs, *T, int) (*mcp.CallToolResult, error) {
		return func(context.Context, *mcp.CallToolRequest, flowsArgs, *T, int) (*mcp.CallToolResult, error) {
			return elicitrt.Text(ended(verb)), nil
		}
	}
	flowsAdd(s, tool, []elicitimpl.Step{step}, elicitimpl.Typed[flowsArgs, *T, int]{
		Answers: func(a elicitimpl.Answers) *T { return elicitimpl.Decoded[T, P](a[0]) },
		Complete: func(_ context.Context, _ *mcp.CallToolRequest, _ flowsArgs, a *T) (*mcp.CallToolResult, error) {
			return elicitrt.Text(complete(a)), nil
		},
		Declined:  end("declined"),
		Cancelled: end("cancelled"),
	}.Flow(), opts)
}

func flowsAddPoll(s *mcp.Server, opts *elicitrt.ToolOptions) {
	flowsOneStep(s, "poll", flowsNameStep, func(a *flowsName) string { return "poll: " + a.Name },
		func(verb string) string { return "poll " + verb }, opts)
}

func flowsAddStrict(s *mcp.Server, opts *elicitrt.ToolOptions) {
	step := elicitimpl.Step{Key: "everything", Digest: "flows-everything", Mode: elicitimpl.ModeForm, Message: "Fill in everything.",
		Fallback: elicitimpl.FallbackError, Missing: "count is required; favorite is required: one of red, green, blue",
		Params: flowsForm(flowsEverythingSchema), Check: elicitimpl.Check[flowsEverything]}
	flowsOneStep(s, "strict", step, func(a *flowsEverything) string { return fmt.Sprintf("completed %+v", *a) },
		func(verb string) string { return verb }, opts)
}

type flowsSignupAnswers struct {
	Name   *flowsName
	Rating *flowsRating
	Colors *flowsColors
}

func flowsAddSignup(s *mcp.Server, opts *elicitrt.ToolOptions) {
	rating, colors := flowsRatingStep, flowsColorsStep
	rating.Fallback, rating.Together, rating.Digest = elicitimpl.FallbackError, true, "flows-signup-rating"
	colors.Fallback, colors.Together, colors.Message, colors.Digest = elicitimpl.FallbackDefaults, true, "Which colours?", "flows-signup-colors"
	steps := []elicitimpl.Step{flowsNameStep, rating, colors}
	flowsAdd(s, "signup", steps, elicitimpl.Typed[flowsArgs, flowsSignupAnswers, int]{
		Answers: func(a elicitimpl.Answers) flowsSignupAnswers {
			return flowsSignupAnswers{Name: elicitimpl.Decoded[flowsName](a[0]), Rating: elicitimpl.Decoded[flowsRating](a[1]),
				Colors: elicitimpl.Decoded[flowsColors](a[2])}
		},
		Complete: func(_ context.Context, _ *mcp.CallToolRequest, _ flowsArgs, a flowsSignupAnswers) (*mcp.CallToolResult, error) {
			name := "anonymous"
			if a.Name != nil {
				name = a.Name.Name
			}
			return elicitrt.Text(fmt.Sprintf("signup: %s, %d stars, %s", name, a.Rating.Stars, a.Colors.Favorite)), nil
		},
		Declined:  flowsEnded[flowsSignupAnswers]("no signup: declined at ", steps),
		Cancelled: flowsEnded[flowsSignupAnswers]("no signup: cancelled at ", steps),
		Asks: map[int]func(context.Context, *mcp.CallToolRequest, flowsArgs, flowsSignupAnswers) bool{
			0: func(_ context.Context, _ *mcp.CallToolRequest, args flowsArgs, _ flowsSignupAnswers) bool {
				return args.Topic != "anonymous"
			},
		},
	}.Flow(), opts)
}
