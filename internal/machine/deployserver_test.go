package machine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The tool "deploy", written by hand as elicitgen writes it (the
// examples/deploy tool): a target step (environment, a titled enum,
// required; notify, a boolean defaulting to false), prefilled from the
// arguments and answered by them for a client that cannot ask
// (fallback=arguments), then a confirm step asked only for production:
// its boolean confirm is the step's yes (Step.Confirm), once per flow
// (Step.Once), previewed with a confirmation token for a client that
// cannot ask. The request-state, confirmation, re-ask and defaults tests
// of this package drive it over the real SDK.

// deployKeys is the key ring of the deploy tests: fixed, so that two
// servers built with it are two instances of one deployment.
var deployKeys = func() *elicitrt.Keyring {
	k, err := elicitrt.NewKeyring([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		panic(err)
	}
	return k
}()

var (
	deployTargetSchema  = json.RawMessage(`{"type":"object","properties":{"environment":{"type":"string","title":"Environment","oneOf":[{"const":"dev","title":"Development"},{"const":"staging","title":"Staging"},{"const":"prod","title":"Production"}]},"notify":{"type":"boolean","title":"Notify","description":"Post in #deployments","default":false}},"required":["environment"]}`)
	deployConfirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","description":"Deploy to production now."}},"required":["confirm"]}`)
	deployPrefill       = json.RawMessage(`{"confirmation_token":{"description":"Only to confirm a previewed action: the confirmation_token that a previous call of this tool returned with its preview, passed with the same other arguments. Never invent one.","type":"string"},"environment":{"type":"string","title":"Environment","oneOf":[{"const":"dev","title":"Development"},{"const":"staging","title":"Staging"},{"const":"prod","title":"Production"}]},"notify":{"type":"boolean","title":"Notify","description":"Post in #deployments","default":false}}`)
)

type deployTarget struct {
	Environment string
	Notify      bool
}

// DecodeElicit is the generated decoder of the target form.
func (x *deployTarget) DecodeElicit(content map[string]any) error {
	var v deployTarget
	var errs []elicitrt.FieldError
	switch raw, ok := content["environment"]; {
	case !ok:
		errs = append(errs, elicitrt.FieldError{Property: "environment", Reason: elicitimpl.ReasonRequired})
	case raw != "dev" && raw != "staging" && raw != "prod":
		if _, isString := raw.(string); !isString {
			errs = append(errs, elicitrt.FieldError{Property: "environment", Reason: elicitimpl.ReasonString})
			break
		}
		errs = append(errs, elicitrt.FieldError{Property: "environment", Reason: "must be one of dev, staging, prod",
			Shown: "must be one of Development, Staging, Production"})
	default:
		v.Environment = raw.(string)
	}
	if raw, ok := content["notify"]; ok {
		b, isBool := raw.(bool)
		if !isBool {
			errs = append(errs, elicitrt.FieldError{Property: "notify", Reason: elicitimpl.ReasonBoolean})
		}
		v.Notify = b
	}
	if errs != nil {
		return &elicitrt.ContentError{Fields: errs}
	}
	*x = v
	return nil
}

type deployConfirmation struct{ Confirm bool }

// DecodeElicit is the generated decoder of the confirm form.
func (x *deployConfirmation) DecodeElicit(content map[string]any) error {
	raw, ok := content["confirm"]
	b, isBool := raw.(bool)
	switch {
	case !ok:
		return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: "confirm", Reason: elicitimpl.ReasonRequired}}}
	case !isBool:
		return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: "confirm", Reason: elicitimpl.ReasonBoolean}}}
	}
	x.Confirm = b
	return nil
}

type deployArgs struct {
	Service string `json:"service" jsonschema:"the service to deploy"`
}

type deployAnswers struct {
	Target  *deployTarget
	Confirm *deployConfirmation
}

type deployStep int

func (s deployStep) String() string { return [...]string{"target", "confirm"}[s] }

// deployer is the example's handler; Complete, the deploy, is counted in
// deploys when it is not nil.
type deployer struct{ deploys *counter }

func (d deployer) complete(ctx context.Context, req *mcp.CallToolRequest, args deployArgs, a deployAnswers) (*mcp.CallToolResult, error) {
	if d.deploys != nil {
		d.deploys.add()
	}
	return elicitrt.Text(fmt.Sprintf("Deploying %s to %s %s.", args.Service, a.Target.Environment, notifying(a.Target))), nil
}

func (deployer) declined(ctx context.Context, req *mcp.CallToolRequest, args deployArgs, a deployAnswers, step deployStep) (*mcp.CallToolResult, error) {
	if step == 1 {
		return elicitrt.Text(fmt.Sprintf("Nothing was deployed: %s to production was not confirmed.", args.Service)), nil
	}
	return elicitrt.Text(fmt.Sprintf("Nothing was deployed: the %s question was declined.", step)), nil
}

func (deployer) cancelled(ctx context.Context, req *mcp.CallToolRequest, args deployArgs, a deployAnswers, step deployStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text(fmt.Sprintf("Nothing was deployed: the %s question was cancelled.", step)), nil
}

func notifying(t *deployTarget) string {
	if t.Notify {
		return "and posting in #deployments"
	}
	return "without notifying"
}

// deploySteps is the generated step table.
func deploySteps() []elicitimpl.Step {
	target := func(msg string) *mcp.ElicitParams {
		return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: deployTargetSchema}
	}
	confirm := func(msg string) *mcp.ElicitParams {
		return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: deployConfirmSchema}
	}
	return []elicitimpl.Step{{
		Key: "target", Message: "Which environment should I deploy to?", Mode: elicitimpl.ModeForm,
		Check: elicitimpl.Check[deployTarget], Digest: "895e363b642ab8f903380cd64231e599", Params: target,
		Fallback: elicitimpl.FallbackArguments, Missing: "environment is required: one of dev, staging, prod",
		Prefill: []string{"environment", "notify"}, PrefillNeeds: []string{"environment"},
	}, {
		Key: "confirm", Confirm: "confirm", Once: true, Mode: elicitimpl.ModeForm, Missing: "confirm is required",
		Check: elicitimpl.Check[deployConfirmation], Digest: "33edc7005e54f9a63ec89af378463a6c", Params: confirm,
		Fallback: elicitimpl.FallbackPreview, Accept: map[string]any{"confirm": true},
	}}
}

// deployServer is a server with the tool deploy, opts its options.
func deployServer(opts *elicitrt.ToolOptions, d deployer) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "deploy", Version: "v1.0.0"}, nil)
	step := func(s deployStep) map[deployStep]func(context.Context, *mcp.CallToolRequest, deployArgs, deployAnswers) bool {
		return map[deployStep]func(context.Context, *mcp.CallToolRequest, deployArgs, deployAnswers) bool{s: func(_ context.Context, _ *mcp.CallToolRequest, _ deployArgs, a deployAnswers) bool {
			return a.Target != nil && a.Target.Environment == "prod"
		}}
	}
	flow := elicitimpl.Typed[deployArgs, deployAnswers, deployStep]{
		Answers: func(a elicitimpl.Answers) deployAnswers {
			return deployAnswers{Target: elicitimpl.Decoded[deployTarget](a[0]), Confirm: elicitimpl.Decoded[deployConfirmation](a[1])}
		},
		Asks:      step(1),
		Complete:  d.complete,
		Declined:  d.declined,
		Cancelled: d.cancelled,
		Messages: map[deployStep]func(context.Context, *mcp.CallToolRequest, deployArgs, deployAnswers) string{1: func(_ context.Context, _ *mcp.CallToolRequest, args deployArgs, _ deployAnswers) string {
			return fmt.Sprintf("Deploy %s to production now?", args.Service)
		}},
		Previews: map[deployStep]func(context.Context, *mcp.CallToolRequest, deployArgs, deployAnswers) string{1: func(_ context.Context, _ *mcp.CallToolRequest, args deployArgs, a deployAnswers) string {
			return fmt.Sprintf("Preview: this deploys %s to production %s.", args.Service, notifying(a.Target))
		}},
	}.Flow()
	base, err := jsonschema.For[deployArgs](nil)
	elicitimpl.AddTool[deployArgs](server, &mcp.Tool{Name: "deploy", Annotations: &mcp.ToolAnnotations{DestructiveHint: elicitimpl.Bool(true)},
		InputSchema: elicitimpl.MustInputSchema("deploy", base, err, deployPrefill)}, elicitimpl.NewMachine("deploy", deploySteps(), flow, opts))
	return server
}

// newDeploy returns deployServer(opts, deployer{}) as hosttest.Connect
// takes it.
func newDeploy(opts *elicitrt.ToolOptions) func() *mcp.Server {
	return func() *mcp.Server { return deployServer(opts, deployer{}) }
}

// deploySession connects a client over transport on era to deploy with
// the fixed keys; u nil means the client declares no elicitation.
func deploySession(t *testing.T, transport, era string, u *hosttest.User) *mcp.ClientSession {
	t.Helper()
	return hosttest.Connect(t, newDeploy(&elicitrt.ToolOptions{Keys: deployKeys}), transport, era, hosttest.Options{User: u})
}

// manual connects a client over HTTP on 2026-07-28 that does not run the
// MRTR loop itself, so the test sees each input_required result and sends
// each retry by hand, to deploy with opts.
func manual(t *testing.T, opts *elicitrt.ToolOptions) *mcp.ClientSession {
	t.Helper()
	return hosttest.Connect(t, newDeploy(opts), "http", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
}

// retry calls deploy with args, state and responses.
func retry(cs *mcp.ClientSession, args map[string]any, state string, responses mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: state, InputResponses: responses})
}

// callDeploy calls deploy with args and returns its text, failing the
// test unless a result has exactly one content.
func callDeploy(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, *mcp.CallToolResult, error) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: args})
	if err == nil && len(res.Content) != 1 {
		t.Fatalf("want one content, got %+v", res)
	}
	if err != nil {
		return "", nil, err
	}
	_, isText := res.Content[0].(*mcp.TextContent)
	if !isText {
		t.Fatalf("want a text content, got %+v", res.Content[0])
	}
	return hosttest.Text(res), res, nil
}
