package machine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// refundServer serves "refund": one confirmation step whose boolean "ok"
// only true answers (Step.Confirm), adjusted by edit. Completions, the
// effect, are counted in refunds; a decline or cancel answers "ended
// ACTION" with the step's answer as the handler got it.
func refundServer(opts *elicitrt.ToolOptions, refunds *counter, edit func(*elicitimpl.Step)) *mcp.Server {
	schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	step := elicitimpl.Step{
		Key: "sure", Message: "Refund?", Confirm: "ok", Mode: elicitimpl.ModeForm,
		Params: func(msg string) *mcp.ElicitParams {
			return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
		},
		Check: func(c map[string]any) error {
			if _, ok := c["ok"].(bool); !ok {
				return errors.New("invalid content: ok: must be a boolean")
			}
			return nil
		},
	}
	if edit != nil {
		edit(&step)
	}
	m := elicitimpl.NewMachine("refund", []elicitimpl.Step{step}, elicitimpl.Flow{
		Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			refunds.add()
			return elicitrt.Text("refunded"), nil
		},
		Ended: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text(fmt.Sprintf("ended %s %v", action, a[step])), nil
		},
		Preview: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a elicitimpl.Answers) string {
			return "This will refund."
		},
	}, opts)
	server := mcp.NewServer(&mcp.Implementation{Name: "refund", Version: "v0"}, nil)
	elicitimpl.AddTool[map[string]any](server, &mcp.Tool{Name: "refund", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"ok":{"type":"boolean"},"confirmation_token":{"type":"string"}}}`)}, m)
	return server
}

// TestConfirmStepNo: an answer accepted with the Confirm boolean false is
// the step's decline (Ended with decline and no answer, not asked again),
// never Complete, on both eras in memory and over HTTP; true completes;
// an invalid answer is asked again.
func TestConfirmStepNo(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				for _, c := range []struct {
					replies []map[string]any
					want    string
					refunds int
				}{
					{[]map[string]any{{"ok": false}}, "ended decline map[]", 0},
					{[]map[string]any{{"ok": true}}, "refunded", 1},
				} {
					refunds := &counter{}
					u := &hosttest.User{}
					for _, r := range c.replies {
						u.Replies = append(u.Replies, hosttest.Accept(r))
					}
					opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring()}
					cs := hosttest.Connect(t, func() *mcp.Server { return refundServer(opts, refunds, nil) }, transport, era, hosttest.Options{User: u})
					res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "refund", Arguments: map[string]any{}})
					if err != nil {
						t.Fatalf("%v: %v", c.replies, err)
					}
					if got := hosttest.Text(res); got != c.want || refunds.get() != c.refunds || len(u.Asked) != len(c.replies) {
						t.Errorf("%v: got %q, %d refunds, asked %d times; want %q, %d, %d", c.replies, got, refunds.get(), len(u.Asked), c.want, c.refunds, len(c.replies))
					}
				}
			})
		}
	}
}

// TestConfirmStepRounds drives the rounds by hand (2026-07-28): an
// invalid answer is asked again, then a false declines; a false among
// other answers under keys the server did not ask for declines too.
func TestConfirmStepRounds(t *testing.T) {
	refunds := &counter{}
	opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring()}
	cs := hosttest.Connect(t, func() *mcp.Server { return refundServer(opts, refunds, nil) }, "memory", "modern",
		hosttest.Options{User: &hosttest.User{}, Manual: true})
	call := func(state string, responses mcp.InputResponseMap) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "refund", Arguments: map[string]any{},
			RequestState: state, InputResponses: responses})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := call("", nil)
	key := hosttest.OnlyKey(t, first)
	again := call(first.RequestState, mcp.InputResponseMap{key: hosttest.Accept(map[string]any{"ok": "no"})})
	key2 := hosttest.OnlyKey(t, again)
	if key2 == key {
		t.Fatalf("asked again under the same key %q", key)
	}
	res := call(again.RequestState, mcp.InputResponseMap{key2: hosttest.Accept(map[string]any{"ok": false}), "other": hosttest.Accept(map[string]any{"ok": true})})
	if got := hosttest.Text(res); got != "ended decline map[]" || refunds.get() != 0 {
		t.Fatalf("false after an invalid answer: %q, %d refunds", got, refunds.get())
	}
}

// TestConfirmStepNeverAnsweredForTheUser: a Confirm step in a hand-built
// table is not answered from the arguments (asked instead), not by its
// defaults, and not by a preview token whose Accept content is not true
// (the client without elicitation gets -32021); nothing completes.
func TestConfirmStepNeverAnsweredForTheUser(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*elicitimpl.Step)
		ask  bool // the client can show forms
	}{
		{"prefill", func(s *elicitimpl.Step) { s.Prefill, s.PrefillNeeds = []string{"ok"}, []string{"ok"} }, true},
		{"defaults", func(s *elicitimpl.Step) {
			s.Fallback = elicitimpl.FallbackDefaults
			s.Check = func(map[string]any) error { return nil } // as if ok defaulted to false
		}, false},
		{"preview of a no", func(s *elicitimpl.Step) {
			s.Once, s.Fallback, s.Accept = true, elicitimpl.FallbackPreview, map[string]any{"ok": false}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			refunds := &counter{}
			opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring()}
			o := hosttest.Options{Manual: true}
			if c.ask {
				o.User = &hosttest.User{}
			}
			cs := hosttest.Connect(t, func() *mcp.Server { return refundServer(opts, refunds, c.edit) }, "memory", "modern", o)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "refund", Arguments: map[string]any{"ok": false}})
			if c.ask {
				if err != nil || !res.NeedsInput() {
					t.Fatalf("want the step asked, got %+v %v", res, err)
				}
			} else {
				var rpcErr *jsonrpc.Error
				if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingRequiredClientCapabilities {
					t.Fatalf("want -32021, got %+v %v", res, err)
				}
			}
			if refunds.get() != 0 {
				t.Fatalf("completed %d times", refunds.get())
			}
		})
	}
}

// TestAcceptedNoIsADecline: a production confirmation accepted with
// {"confirm": false} is the confirm step's decline (Declined, nothing
// deployed, not asked again), never Complete, in memory and over HTTP, on
// both protocol eras, whether the target was asked or prefilled; true
// deploys once.
func TestAcceptedNoIsADecline(t *testing.T) {
	target := hosttest.Accept(map[string]any{"environment": "prod"})
	cases := []struct {
		name    string
		args    map[string]any
		replies []*mcp.ElicitResult
		want    string
		deploys int
	}{
		{"no", map[string]any{"service": "api"},
			[]*mcp.ElicitResult{target, hosttest.Accept(map[string]any{"confirm": false})},
			"Nothing was deployed: api to production was not confirmed.", 0},
		{"no, prefilled", map[string]any{"service": "api", "environment": "prod"},
			[]*mcp.ElicitResult{hosttest.Accept(map[string]any{"confirm": false})},
			"Nothing was deployed: api to production was not confirmed.", 0},
		{"no, with more", map[string]any{"service": "api", "environment": "prod"},
			[]*mcp.ElicitResult{hosttest.Accept(map[string]any{"confirm": false, "sure": true})},
			"Nothing was deployed: api to production was not confirmed.", 0},
		{"yes", map[string]any{"service": "api"},
			[]*mcp.ElicitResult{target, hosttest.Accept(map[string]any{"confirm": true})},
			"Deploying api to prod without notifying.", 1},
	}
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				for _, c := range cases {
					deploys := &counter{}
					newServer := func() *mcp.Server { return deployServer(&elicitrt.ToolOptions{Keys: deployKeys}, deployer{deploys}) }
					u := &hosttest.User{Replies: c.replies}
					cs := hosttest.Connect(t, newServer, transport, era, hosttest.Options{User: u})
					got, res, err := callDeploy(t, cs, c.args)
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					if got != c.want || res.IsError {
						t.Errorf("%s: got %q (isError %v), want %q", c.name, got, res.IsError, c.want)
					}
					if n := deploys.get(); n != c.deploys {
						t.Errorf("%s: Complete ran %d times, want %d", c.name, n, c.deploys)
					}
					if len(u.Asked) != len(c.replies) {
						t.Errorf("%s: asked %d times, want %d (a no is not asked again)", c.name, len(u.Asked), len(c.replies))
					}
				}
			})
		}
	}
}
