package machine_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/serve"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/asktest"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// TestKindsDoNotShareStates: a prompt's state does not open for the tool
// of the same name and arguments, nor the tool's for the prompt.
func TestKindsDoNotShareStates(t *testing.T) {
	ctx := context.Background()
	cs := hosttest.Connect(t, func() *mcp.Server { return asktest.Server(nil) }, "memory", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	answer := mcp.InputResponseMap{"user_context": hosttest.Accept(map[string]any{"context": "the Q3 report"})}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"project": "atlas"}})
	if err != nil || p.RequestState == "" {
		t.Fatalf("prompt: %+v %v", p, err)
	}
	tr, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "summarize", Arguments: map[string]any{"project": "atlas"}})
	if err != nil || tr.RequestState == "" {
		t.Fatalf("tool: %+v %v", tr, err)
	}
	var werr *jsonrpc.Error
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "summarize", Arguments: map[string]any{"project": "atlas"},
		RequestState: p.RequestState, InputResponses: answer}); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a prompt's state on the tool: %v", err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"project": "atlas"},
		RequestState: tr.RequestState, InputResponses: answer}); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("the tool's state on a prompt: %v", err)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "summarize", Arguments: map[string]any{"project": "atlas"},
		RequestState: tr.RequestState, InputResponses: answer}); err != nil || text(res) != "tool done" {
		t.Errorf("the tool's own state: %+v %v", res, err)
	}
}

func promptText(res *mcp.GetPromptResult) string {
	if res == nil || len(res.Messages) != 1 {
		return ""
	}
	tc, _ := res.Messages[0].Content.(*mcp.TextContent)
	if tc == nil {
		return ""
	}
	return tc.Text
}

func resourceText(res *mcp.ReadResourceResult) string {
	if res == nil || len(res.Contents) != 1 {
		return ""
	}
	return res.Contents[0].Text
}

// TestPromptAndResourceAsk: accept, decline and cancel of a prompt and a
// resource template, on both eras, in memory and over HTTP.
func TestPromptAndResourceAsk(t *testing.T) {
	ctx := context.Background()
	newServer := func() *mcp.Server { return asktest.Server(nil) }
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				u := &hosttest.User{Replies: []*mcp.ElicitResult{
					hosttest.Accept(map[string]any{"context": "the Q3 report"}), {Action: "decline"}, {Action: "cancel"},
					hosttest.Accept(map[string]any{"context": "March"}), {Action: "decline"}, {Action: "cancel"},
				}}
				cs := hosttest.Connect(t, newServer, transport, era, hosttest.Options{User: u})
				get := func() (*mcp.GetPromptResult, error) {
					return cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"project": "atlas"}})
				}
				if res, err := get(); err != nil || promptText(res) != "Summarize atlas for the Q3 report." {
					t.Errorf("accepted prompt: %+v %v", res, err)
				}
				if res, err := get(); err != nil || promptText(res) != "Summarize atlas." {
					t.Errorf("declined prompt: %+v %v", res, err)
				}
				var werr *jsonrpc.Error
				if res, err := get(); !errors.As(err, &werr) || werr.Message != "cancelled" {
					t.Errorf("cancelled prompt: %+v %v", res, err)
				}
				read := func() (*mcp.ReadResourceResult, error) {
					return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://42"})
				}
				for _, want := range []string{"notes on March", "declined", "cancelled"} {
					if res, err := read(); err != nil || resourceText(res) != want || res.Contents[0].URI != "notes://42" {
						t.Errorf("resource: %+v %v, want %q", res, err, want)
					}
				}
				if len(u.Asked) != 6 || u.Asked[0].Message != "What context should the prompt use?" || u.Asked[3].Message != "Which notes?" {
					t.Errorf("asked %d questions: %+v", len(u.Asked), u.Asked)
				}
			})
		}
	}
}

// TestPromptAndResourceRounds drives the rounds by hand on 2026-07-28: the
// wire shape, an invalid answer asked again under its next key with the
// reason, a tampered state refused with -32602, and a state that opens
// only for its own prompt, arguments or URI.
func TestPromptAndResourceRounds(t *testing.T) {
	ctx := context.Background()
	for _, transport := range hosttest.Transports {
		t.Run(transport, func(t *testing.T) {
			cs := hosttest.Connect(t, func() *mcp.Server { return asktest.Server(nil) }, transport, "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
			params := func(args map[string]string, state string, answers mcp.InputResponseMap) *mcp.GetPromptParams {
				return &mcp.GetPromptParams{Name: "summarize", Arguments: args, RequestState: state, InputResponses: answers}
			}
			atlas := map[string]string{"project": "atlas"}
			first, err := cs.GetPrompt(ctx, params(atlas, "", nil))
			if err != nil || !first.NeedsInput() || first.RequestState == "" || len(first.InputRequests) != 1 || first.InputRequests["user_context"] == nil {
				t.Fatalf("first round: %+v %v", first, err)
			}
			again, err := cs.GetPrompt(ctx, params(atlas, first.RequestState, mcp.InputResponseMap{"user_context": hosttest.Accept(map[string]any{"context": "x"})}))
			if err != nil || !again.NeedsInput() || again.InputRequests["user_context.2"] == nil {
				t.Fatalf("invalid answer: %+v %v", again, err)
			}
			if p, _ := again.InputRequests["user_context.2"].(*mcp.ElicitParams); p == nil || !strings.Contains(p.Message, "Please correct: context: must be a string of at least 3 characters.") {
				t.Errorf("re-asked with %+v", again.InputRequests["user_context.2"])
			}
			answer := mcp.InputResponseMap{"user_context.2": hosttest.Accept(map[string]any{"context": "the Q3 report"})}
			var werr *jsonrpc.Error
			if _, err := cs.GetPrompt(ctx, params(atlas, again.RequestState+"-TAMPERED", answer)); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("tampered state: %v", err)
			}
			if _, err := cs.GetPrompt(ctx, params(map[string]string{"project": "other"}, again.RequestState, answer)); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("state of other arguments: %v", err)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://42", RequestState: again.RequestState, InputResponses: answer}); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("a prompt's state on a resource: %v", err)
			}
			done, err := cs.GetPrompt(ctx, params(atlas, again.RequestState, answer))
			if err != nil || done.NeedsInput() || promptText(done) != "Summarize atlas for the Q3 report." {
				t.Errorf("complete: %+v %v", done, err)
			}

			r1, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://42"})
			if err != nil || !r1.NeedsInput() || r1.InputRequests["note_context"] == nil || r1.Contents != nil {
				t.Fatalf("resource, first round: %+v %v", r1, err)
			}
			ok := mcp.InputResponseMap{"note_context": hosttest.Accept(map[string]any{"context": "March"})}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://43", RequestState: r1.RequestState, InputResponses: ok}); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("a state of notes://42 on notes://43: %v", err)
			}
			if r2, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://42", RequestState: r1.RequestState, InputResponses: ok}); err != nil || resourceText(r2) != "notes on March" {
				t.Errorf("resource, complete: %+v %v", r2, err)
			}
		})
	}
}

// TestPromptGivesUp: a prompt whose answer stays invalid ends, after
// MaxAttempts, with the tool error's text as a JSON-RPC invalid-params
// error (a prompt has no error result).
func TestPromptGivesUp(t *testing.T) {
	ctx := context.Background()
	cs := hosttest.Connect(t, func() *mcp.Server { return asktest.Server(&elicitrt.ToolOptions{MaxAttempts: 1}) }, "memory", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	args := map[string]string{"project": "atlas"}
	first, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: args, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"user_context": hosttest.Accept(map[string]any{"context": 5})}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "user_context: gave up after 1 invalid answers") {
		t.Errorf("got %v", err)
	}
}

// TestPromptArgumentsAndCapabilities: a missing required argument is
// -32602 before anything is asked; a client without elicitation gets
// -32021 naming it, on a prompt as on a resource.
func TestPromptArgumentsAndCapabilities(t *testing.T) {
	ctx := context.Background()
	for _, transport := range hosttest.Transports {
		t.Run(transport, func(t *testing.T) {
			cs := hosttest.Connect(t, func() *mcp.Server { return asktest.Server(nil) }, transport, "modern", hosttest.Options{})
			var werr *jsonrpc.Error
			if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize"}); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || werr.Message != "invalid arguments: project: is required" {
				t.Errorf("missing argument: %v", err)
			}
			if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"project": "atlas"}}); !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.HasPrefix(werr.Message, "this prompt needs") {
				t.Errorf("prompt without elicitation: %v", err)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://1"}); !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.HasPrefix(werr.Message, "this resource needs") {
				t.Errorf("resource without elicitation: %v", err)
			}
		})
	}
}

// TestLegacyPromptInvalidAnswer: a 2025-11-25 client's invalid answer to a
// prompt's question is asked again with the reason, over
// elicitation/create, and the prompt completes.
func TestLegacyPromptInvalidAnswer(t *testing.T) {
	server := asktest.Server(nil)
	srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()
	var asked []string
	cs := legacyClient(t, srv.URL, func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked = append(asked, p.Message)
		if len(asked) == 1 {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"context": "x"}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"context": "the Q3 report"}}, nil
	})
	defer cs.Close()
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"project": "atlas"}})
	if err != nil || promptText(res) != "Summarize atlas for the Q3 report." {
		t.Fatalf("%+v %v", res, err)
	}
	if len(asked) != 2 || !strings.Contains(asked[1], "Please correct: context:") {
		t.Errorf("asked %q", asked)
	}
}

// TestPromptStateBoundToPrincipal: a prompt's or resource's state opens
// only for the principal it was sealed for (ToolOptions.Principal).
func TestPromptStateBoundToPrincipal(t *testing.T) {
	ctx := context.Background()
	var user atomic.Value
	user.Store("alice")
	opts := &elicitrt.ToolOptions{Principal: func(req *mcp.CallToolRequest) string {
		if req.Session == nil {
			return "no session"
		}
		return user.Load().(string)
	}}
	cs := hosttest.Connect(t, func() *mcp.Server { return asktest.Server(opts) }, "memory", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	args := map[string]string{"project": "atlas"}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: args})
	if err != nil || p.RequestState == "" {
		t.Fatalf("prompt: %+v %v", p, err)
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://1"})
	if err != nil || r.RequestState == "" {
		t.Fatalf("resource: %+v %v", r, err)
	}
	user.Store("bob")
	var werr *jsonrpc.Error
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: args, RequestState: p.RequestState,
		InputResponses: mcp.InputResponseMap{"user_context": hosttest.Accept(map[string]any{"context": "the Q3 report"})}}); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("alice's prompt state for bob: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://1", RequestState: r.RequestState,
		InputResponses: mcp.InputResponseMap{"note_context": hosttest.Accept(map[string]any{"context": "March"})}}); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("alice's resource state for bob: %v", err)
	}
	user.Store("alice")
	if res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: args, RequestState: p.RequestState,
		InputResponses: mcp.InputResponseMap{"user_context": hosttest.Accept(map[string]any{"context": "the Q3 report"})}}); err != nil || promptText(res) != "Summarize atlas for the Q3 report." {
		t.Errorf("alice's own state: %+v %v", res, err)
	}
}
