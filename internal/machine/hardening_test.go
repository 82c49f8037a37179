package machine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The hardening review's findings on the deploy tool
// (deployserver_test.go) and a two-round tool: answers too long to keep
// are asked again, undeclared properties are dropped, reasons are cut to
// their bound; a confirmation is asked, never taken from what the server
// did not ask, and one flow confirms once, whichever of its states or its
// preview token is replayed.

// TestOversizedAnswersAreNotKept sends the requests of the hardening
// review's first finding, each of which used to make Keyring.Seal panic
// and the process exit: the server now answers each, and the state keeps
// only the form's declared properties and a bounded reason.
func TestOversizedAnswersAreNotKept(t *testing.T) {
	cs := manual(t, &elicitrt.ToolOptions{Keys: deployKeys, Replay: &backend.MemoryReplayGuard{}})
	args := map[string]any{"service": "api"}
	pad := strings.Repeat("A", 50_000)
	padded := mcp.InputResponseMap{"target": &mcp.ElicitResult{Action: "accept",
		Content: map[string]any{"environment": "prod", "pad": pad}}}

	// Without a state nothing was asked: the answer is ignored.
	first, err := retry(cs, args, "", padded)
	if err != nil || hosttest.OnlyKey(t, first) != "target" {
		t.Fatalf("first call with an unasked, oversized answer: %+v %v", first, err)
	}
	// Asked, the valid answer is kept without the undeclared "pad".
	second, err := retry(cs, args, first.RequestState, padded)
	if err != nil || hosttest.OnlyKey(t, second) != "confirm" {
		t.Fatalf("retry with an oversized undeclared property: %+v %v", second, err)
	}
	if n := len(second.RequestState); n > 1024 {
		t.Fatalf("the state keeps what the form does not declare: %d bytes", n)
	}

	// A 50 kB action is an invalid answer: asked again, with a bounded reason.
	again, err := retry(cs, args, first.RequestState, mcp.InputResponseMap{"target": &mcp.ElicitResult{Action: pad}})
	if err != nil || hosttest.OnlyKey(t, again) != "target.2" {
		t.Fatalf("retry with a 50 kB action: %+v %v", again, err)
	}
	// The reason is cut at its bound, 256 bytes (docs/security/guarantees.md), to
	// the byte.
	msg := again.InputRequests["target.2"].(*mcp.ElicitParams).Message
	_, reason, _ := strings.Cut(msg, "\n\nPlease correct: ")
	reason = strings.TrimSuffix(reason, ".")
	if !strings.HasPrefix(reason, `unknown action "AAAA`) || !strings.HasSuffix(reason, "…") || len(reason) != 256 {
		t.Fatalf("reason of a 50 kB action: %d bytes, want 256 ending in …: %.200q", len(reason), reason)
	}
	if n := len(again.RequestState); n > 1024 {
		t.Fatalf("the state keeps the unbounded reason: %d bytes", n)
	}
}

// TestLongValidAnswerIsReasked sends, on a two-round tool (multiRoundServer), a name
// that the form accepts (a string with no maximum length) but that is too
// long to keep between rounds: it used to make Keyring.Seal panic and the
// process exit. It is asked again with the reason; a shorter one then goes
// on to the next round.
func TestLongValidAnswerIsReasked(t *testing.T) {
	const tool = "test_input_required_result_multi_round"
	cs := hosttest.Connect(t, multiRoundServer, "http", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	ctx := context.Background()
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
	if err != nil || hosttest.OnlyKey(t, first) != "step1" {
		t.Fatalf("first round: %+v %v", first, err)
	}
	long := hosttest.Accept(map[string]any{"name": strings.Repeat("A", 50_000)})
	again, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{},
		RequestState: first.RequestState, InputResponses: mcp.InputResponseMap{"step1": long}})
	if err != nil || hosttest.OnlyKey(t, again) != "step1.2" {
		t.Fatalf("a 50 kB name: %+v %v", again, err)
	}
	if msg := again.InputRequests["step1.2"].(*mcp.ElicitParams).Message; !strings.Contains(msg, "too long") {
		t.Fatalf("reason: %q", msg)
	}
	next, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{},
		RequestState: again.RequestState, InputResponses: mcp.InputResponseMap{"step1.2": hosttest.Accept(map[string]any{"name": "Alice"})}})
	if err != nil || hosttest.OnlyKey(t, next) != "step2" {
		t.Fatalf("a short name after: %+v %v", next, err)
	}
}

// TestConfirmationIsAskedOnce covers issue 12's second finding: a
// confirmation is never answered by an answer the server did not ask for,
// and a flow completes its confirmation once, whichever of its states is
// replayed.
func TestConfirmationIsAskedOnce(t *testing.T) {
	for _, transport := range hosttest.Transports {
		t.Run(transport, func(t *testing.T) {
			opts := &elicitrt.ToolOptions{Keys: deployKeys, Replay: &backend.MemoryReplayGuard{}}
			cs := hosttest.Connect(t, newDeploy(opts), transport, "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
			confirm := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}

			// The environment comes from the arguments (prefill); the
			// unasked confirmation is ignored and asked.
			prefilled := map[string]any{"service": "api", "environment": "prod"}
			res, err := retry(cs, prefilled, "", confirm)
			if err != nil || hosttest.OnlyKey(t, res) != "confirm" {
				t.Fatalf("an unasked confirmation was taken: %+v %v", res, err)
			}
			// A confirmation is never taken from the arguments (the SDK
			// refuses an argument the input schema does not declare).
			res, err = retry(cs, map[string]any{"service": "api", "environment": "prod", "confirm": true}, "", nil)
			if err != nil || !res.IsError || !strings.Contains(hosttest.Text(res), "confirm") {
				t.Fatalf("confirm in the arguments: %+v %v", res, err)
			}

			// One flow: round 1 asks the target, round 2 the confirmation.
			args := map[string]any{"service": "api"}
			target := mcp.InputResponseMap{"target": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "prod"}}}
			round1, err := retry(cs, args, "", nil)
			if err != nil || hosttest.OnlyKey(t, round1) != "target" {
				t.Fatalf("round 1: %+v %v", round1, err)
			}
			round2, err := retry(cs, args, round1.RequestState, target)
			if err != nil || hosttest.OnlyKey(t, round2) != "confirm" {
				t.Fatalf("round 2: %+v %v", round2, err)
			}
			done, err := retry(cs, args, round2.RequestState, confirm)
			if err != nil || hosttest.Text(done) != "Deploying api to prod without notifying." {
				t.Fatalf("confirmed: %+v %v", done, err)
			}
			// The same confirmation again, and the flow replayed from its
			// first state to a fresh confirmation: both refused.
			if _, err := retry(cs, args, round2.RequestState, confirm); !isReplayed(err) {
				t.Fatalf("replayed confirmation: %v", err)
			}
			replay, err := retry(cs, args, round1.RequestState, target)
			if err != nil || hosttest.OnlyKey(t, replay) != "confirm" {
				t.Fatalf("replayed round 1: %+v %v", replay, err)
			}
			if _, err := retry(cs, args, replay.RequestState, confirm); !isReplayed(err) {
				t.Fatalf("a flow replayed from round 1 deployed again: %v", err)
			}

			// Another flow is another identity: it completes.
			other, _ := retry(cs, args, "", nil)
			other, _ = retry(cs, args, other.RequestState, target)
			if res, err := retry(cs, args, other.RequestState, confirm); err != nil || res.IsError {
				t.Fatalf("a second flow: %+v %v", res, err)
			}
		})
	}
}

func isReplayed(err error) bool {
	return err != nil && strings.Contains(err.Error(), "requestState already used")
}

// TestPreviewTokenAndFormConfirmOnce: one confirmation, one effect. A
// valid confirmation token presented by a client that can ask is used up
// by that call's flow: the person is asked and confirms (one production
// deploy), and the same token from a client that cannot ask then deploys
// nothing. The other way round, a token already used refuses the call
// that can ask, before anyone is asked; and a token presented to a form
// that the person declines is used up too. Over the real SDK, in memory
// and over HTTP, on both eras, with one replay guard as one server has.
func TestPreviewTokenAndFormConfirmOnce(t *testing.T) {
	const deployed = "Deploying api to prod without notifying."
	prod := map[string]any{"service": "api", "environment": "prod"}
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				opts := &elicitrt.ToolOptions{Keys: deployKeys, Replay: &backend.MemoryReplayGuard{}}
				connect := func(u *hosttest.User) *mcp.ClientSession {
					return hosttest.Connect(t, newDeploy(opts), transport, era, hosttest.Options{User: u})
				}
				blind := connect(nil)
				newToken := func() map[string]any {
					t.Helper()
					preview, err := blind.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: prod})
					if err != nil || preview.IsError || len(preview.Content) != 2 {
						t.Fatalf("preview: %+v %v", preview, err)
					}
					return map[string]any{"service": "api", "environment": "prod", elicitrt.PreviewTokenArgument: previewToken(t, preview)}
				}
				refused := func(what string, cs *mcp.ClientSession, args map[string]any) {
					t.Helper()
					got, res, err := callDeploy(t, cs, args)
					if err != nil || !res.IsError || !strings.Contains(got, "was already used") {
						t.Errorf("%s: want the token refused, got %q %v", what, got, err)
					}
				}

				// The form first: asked, confirmed, deployed; the token is spent.
				withToken := newToken()
				u := &hosttest.User{Replies: []*mcp.ElicitResult{hosttest.Accept(map[string]any{"confirm": true})}}
				if got, _, err := callDeploy(t, connect(u), withToken); err != nil || got != deployed || len(u.Asked) != 1 {
					t.Fatalf("the form with a token: %q %v, asked %d times", got, err, len(u.Asked))
				}
				refused("the token after the form confirmed", blind, withToken)

				// The token first: deployed; the form is not asked.
				withToken = newToken()
				if got, _, err := callDeploy(t, blind, withToken); err != nil || got != deployed {
					t.Fatalf("the token: %q %v", got, err)
				}
				u = &hosttest.User{Replies: []*mcp.ElicitResult{hosttest.Accept(map[string]any{"confirm": true})}}
				refused("the form after the token was used", connect(u), withToken)
				if len(u.Asked) != 0 {
					t.Errorf("asked %d times after the token was used", len(u.Asked))
				}

				// Declined in the form: the token is spent all the same.
				withToken = newToken()
				u = &hosttest.User{Replies: []*mcp.ElicitResult{{Action: "decline"}}}
				if got, _, err := callDeploy(t, connect(u), withToken); err != nil || got == deployed || len(u.Asked) != 1 {
					t.Fatalf("the form declined: %q %v, asked %d times", got, err, len(u.Asked))
				}
				refused("the token after the form was declined", blind, withToken)
			})
		}
	}
}

// multiRoundServer serves "test_input_required_result_multi_round", the
// conformance suite's two rounds written by hand: step1 asks a name (a
// string without a maximum length), step2 a color.
func multiRoundServer() *mcp.Server {
	const tool = "test_input_required_result_multi_round"
	ask := func(key, message, property string) elicitimpl.Step {
		schema := json.RawMessage(`{"type":"object","properties":{"` + property + `":{"type":"string"}},"required":["` + property + `"]}`)
		return elicitimpl.Step{Key: key, Message: message, Mode: elicitimpl.ModeForm, Missing: property + " is required",
			Params: func(msg string) *mcp.ElicitParams {
				return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
			},
			Check: func(c map[string]any) error {
				if _, ok := c[property].(string); !ok {
					return errors.New("invalid content: " + property + ": must be a string")
				}
				return nil
			},
		}
	}
	m := elicitimpl.NewMachine(tool, []elicitimpl.Step{ask("step1", "Step 1: What is your name?", "name"), ask("step2", "Step 2: What is your favorite color?", "color")},
		elicitimpl.Flow{
			Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
				return elicitrt.Text("done"), nil
			},
			Ended: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
				return elicitrt.Text(action), nil
			},
		}, &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring()})
	server := mcp.NewServer(&mcp.Implementation{Name: "multi", Version: "v0"}, nil)
	elicitimpl.AddTool[noArgs](server, &mcp.Tool{Name: tool, InputSchema: json.RawMessage(`{"type":"object"}`)}, m)
	return server
}
