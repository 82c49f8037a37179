package machine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// launchServer serves "launch", a destructive tool with one step: a
// confirmation asked once, previewed when the client cannot show forms.
// Each completion is counted in launched.
func launchServer(opts *elicitrt.ToolOptions, launched *counter) *mcp.Server {
	return launchServerChecking(opts, launched, false)
}

// launchServerChecking is launchServer whose confirmation, with
// mustConfirm, takes only true: false is invalid, and asked again.
func launchServerChecking(opts *elicitrt.ToolOptions, launched *counter, mustConfirm bool) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "launch", Version: "v0"}, nil)
	addLaunch(server, "launch", opts, launched, mustConfirm)
	return server
}

// addLaunch adds the launch tool to server under name.
func addLaunch(server *mcp.Server, name string, opts *elicitrt.ToolOptions, launched *counter, mustConfirm bool) {
	schema := json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)
	step := elicitimpl.Step{
		Key: "confirm", Message: "Launch?", Once: true, Fallback: elicitimpl.FallbackPreview,
		Accept: map[string]any{"confirm": true},
		Params: func(msg string) *mcp.ElicitParams {
			return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
		},
		Check: func(c map[string]any) error {
			if v, ok := c["confirm"].(bool); !ok || mustConfirm && !v {
				return fmt.Errorf("invalid content: confirm: must be a boolean, and true")
			}
			return nil
		},
	}
	target := func(req *mcp.CallToolRequest) string {
		var a struct{ Target string }
		json.Unmarshal(req.Params.Arguments, &a)
		return a.Target
	}
	m := elicitimpl.NewMachine(name, []elicitimpl.Step{step}, elicitimpl.Flow{
		Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			if a[0]["confirm"] != true {
				return elicitrt.Text("not launched"), nil
			}
			launched.add()
			return elicitrt.Text("launched " + target(req)), nil
		},
		Ended: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text(action), nil
		},
		Preview: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a elicitimpl.Answers) string {
			return "This will launch " + target(req) + "."
		},
	}, opts)
	elicitimpl.AddTool[map[string]any](server, &mcp.Tool{Name: name, InputSchema: json.RawMessage(
		`{"type":"object","properties":{"target":{"type":"string"},"confirmation_token":{"type":"string"}}}`)}, m)
}

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) add() { c.mu.Lock(); c.n++; c.mu.Unlock() }
func (c *counter) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// previewToken reads the token out of a preview result.
func previewToken(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("want a preview, got %+v", res)
	}
	how := res.Content[1].(*mcp.TextContent).Text
	_, after, ok := strings.Cut(how, `"confirmation_token": "`)
	token, _, ok2 := strings.Cut(after, `"`)
	if !ok || !ok2 || token == "" {
		t.Fatalf("no token in %q", how)
	}
	return token
}

func TestPreviewThenConfirm(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
				user := "alice"
				var mu sync.Mutex
				opts := &elicitrt.ToolOptions{
					Keys: elicitrt.RandomKeyring(), Replay: &backend.MemoryReplayGuard{},
					Now:       func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
					Principal: func(*mcp.CallToolRequest) string { mu.Lock(); defer mu.Unlock(); return user },
				}
				launched := &counter{}
				// A client without elicitation: no one there to ask.
				cs := hosttest.Connect(t, func() *mcp.Server { return launchServer(opts, launched) }, transport, era, hosttest.Options{})
				call := func(args map[string]any) *mcp.CallToolResult {
					t.Helper()
					res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "launch", Arguments: args})
					if err != nil {
						t.Fatal(err)
					}
					return res
				}
				refused := func(what string, res *mcp.CallToolResult) {
					t.Helper()
					if !res.IsError || !strings.Contains(hosttest.Text(res), "call launch again without it for a new preview") {
						t.Fatalf("%s: want the token refused, got %+v", what, res)
					}
				}

				preview := call(map[string]any{"target": "moon"})
				if got := preview.Content[0].(*mcp.TextContent).Text; got != "This will launch moon." {
					t.Fatalf("preview %q", got)
				}
				token := previewToken(t, preview)
				if launched.get() != 0 {
					t.Fatal("the preview launched")
				}
				// Other arguments, another user, a tampered token: refused.
				refused("other arguments", call(map[string]any{"target": "mars", "confirmation_token": token}))
				mu.Lock()
				user = "mallory"
				mu.Unlock()
				refused("another user", call(map[string]any{"target": "moon", "confirmation_token": token}))
				mu.Lock()
				user = "alice"
				mu.Unlock()
				refused("tampered", call(map[string]any{"target": "moon", "confirmation_token": flip(token)}))
				if launched.get() != 0 {
					t.Fatal("a refused token launched")
				}
				// The same arguments and the token: launched, once.
				if res := call(map[string]any{"target": "moon", "confirmation_token": token}); res.IsError || hosttest.Text(res) != "launched moon" {
					t.Fatalf("confirm: %+v", res)
				}
				refused("second use", call(map[string]any{"target": "moon", "confirmation_token": token}))
				if launched.get() != 1 {
					t.Fatalf("launched %d times", launched.get())
				}
				// Expiry.
				late := previewToken(t, call(map[string]any{"target": "moon"}))
				mu.Lock()
				now = now.Add(elicitrt.DefaultPreviewTTL + time.Second)
				mu.Unlock()
				refused("expired", call(map[string]any{"target": "moon", "confirmation_token": late}))
				if launched.get() != 1 {
					t.Fatalf("launched %d times", launched.get())
				}
			})
		}
	}
}

// TestPreviewTokenBoundToToolAndAudience, over HTTP: a preview token of
// launch does not complete relaunch (another tool of the same server, the
// same arguments and user), nor launch on a server of another audience
// sharing the keys and the guard; each is refused and nothing runs, and
// the token still completes the previewed call, once.
func TestPreviewTokenBoundToToolAndAudience(t *testing.T) {
	keys, guard := elicitrt.RandomKeyring(), &backend.MemoryReplayGuard{}
	launched := &counter{}
	serve := func(audience string) *mcp.ClientSession {
		opts := &elicitrt.ToolOptions{Keys: keys, Replay: guard, Audience: audience}
		return hosttest.Connect(t, func() *mcp.Server {
			server := launchServer(opts, launched)
			addLaunch(server, "relaunch", opts, launched, false)
			return server
		}, "http", "modern", hosttest.Options{})
	}
	here, there := serve("https://here.example"), serve("https://there.example")
	call := func(cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	token := previewToken(t, call(here, "launch", map[string]any{"target": "moon"}))
	withToken := map[string]any{"target": "moon", "confirmation_token": token}
	for what, res := range map[string]*mcp.CallToolResult{
		"another tool":     call(here, "relaunch", withToken),
		"another audience": call(there, "launch", withToken),
	} {
		if !res.IsError || !strings.Contains(hosttest.Text(res), "again without it for a new preview") {
			t.Errorf("%s: want the token refused, got %q", what, hosttest.Text(res))
		}
	}
	if n := launched.get(); n != 0 {
		t.Fatalf("a token used elsewhere launched %d times", n)
	}
	if res := call(here, "launch", withToken); res.IsError || hosttest.Text(res) != "launched moon" || launched.get() != 1 {
		t.Fatalf("the previewed call: %q, launched %d", hosttest.Text(res), launched.get())
	}
}

// TestPreviewTokenIgnoredWhenAsked: a client that can show forms is asked
// the confirmation, token or not: an invalid token is ignored, and a valid
// one is spent by the form, even when the person declines.
func TestPreviewTokenIgnoredWhenAsked(t *testing.T) {
	opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring(), Replay: &backend.MemoryReplayGuard{}}
	launched := &counter{}
	blind := hosttest.Connect(t, func() *mcp.Server { return launchServer(opts, launched) }, "memory", "modern", hosttest.Options{})
	newToken := func() string {
		preview, err := blind.CallTool(t.Context(), &mcp.CallToolParams{Name: "launch", Arguments: map[string]any{"target": "moon"}})
		if err != nil {
			t.Fatal(err)
		}
		return previewToken(t, preview)
	}
	for _, era := range hosttest.Eras {
		token := newToken()
		for _, tok := range []string{flip(token), token} {
			u := &hosttest.User{Replies: []*mcp.ElicitResult{{Action: "decline"}}}
			cs := hosttest.Connect(t, func() *mcp.Server { return launchServer(opts, launched) }, "memory", era, hosttest.Options{User: u})
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "launch", Arguments: map[string]any{"target": "moon", "confirmation_token": tok}})
			if err != nil || hosttest.Text(res) != "decline" || len(u.Asked) != 1 {
				t.Fatalf("%s: a client with forms: %+v %v (asked %d)", era, res, err, len(u.Asked))
			}
		}
		res, err := blind.CallTool(t.Context(), &mcp.CallToolParams{Name: "launch", Arguments: map[string]any{"target": "moon", "confirmation_token": token}})
		if err != nil || !res.IsError {
			t.Fatalf("%s: the token after a declined form: %+v %v", era, res, err)
		}
	}
	if launched.get() != 0 {
		t.Fatal("launched without a confirmation")
	}
}

// TestPreviewTokenSpentByForm: one confirmation, one effect. A valid token
// sent by a client that can ask is spent when the form is first asked: an
// invalid answer asked again does not spend it twice (the call completes,
// once); the token then launches nothing, on either era and transport, on
// another server sharing the guard and the keys.
func TestPreviewTokenSpentByForm(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring(), Replay: &backend.MemoryReplayGuard{}}
				launched := &counter{}
				serve := func() *mcp.Server { return launchServerChecking(opts, launched, true) }
				blind := hosttest.Connect(t, serve, transport, era, hosttest.Options{})
				preview, err := blind.CallTool(t.Context(), &mcp.CallToolParams{Name: "launch", Arguments: map[string]any{"target": "moon"}})
				if err != nil {
					t.Fatal(err)
				}
				args := map[string]any{"target": "moon", "confirmation_token": previewToken(t, preview)}
				u := &hosttest.User{Replies: []*mcp.ElicitResult{
					hosttest.Accept(map[string]any{"confirm": false}), // invalid here: asked again
					hosttest.Accept(map[string]any{"confirm": true}),
				}}
				form := hosttest.Connect(t, serve, transport, era, hosttest.Options{User: u})
				res, err := form.CallTool(t.Context(), &mcp.CallToolParams{Name: "launch", Arguments: args})
				if err != nil || hosttest.Text(res) != "launched moon" || len(u.Asked) != 2 {
					t.Fatalf("the form with a token: %q %+v %v (asked %d)", hosttest.Text(res), res, err, len(u.Asked))
				}
				res, err = blind.CallTool(t.Context(), &mcp.CallToolParams{Name: "launch", Arguments: args})
				if err != nil || !res.IsError || !strings.Contains(hosttest.Text(res), "was already used") {
					t.Fatalf("the token after the form: %+v %v", res, err)
				}
				if launched.get() != 1 {
					t.Fatalf("launched %d times", launched.get())
				}
			})
		}
	}
}

// TestPreviewTokenOutlivesStateTTL: a confirmation token that lives
// longer than the tool's states (PreviewTTL 30 minutes, TTL 1 minute) is
// still single use for its whole life: its claim is remembered as long as
// the token opens, by the guard's own clock.
func TestPreviewTokenOutlivesStateTTL(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring(), Replay: &backend.MemoryReplayGuard{Now: clock},
		Now: clock, TTL: time.Minute, PreviewTTL: 30 * time.Minute}
	launched := &counter{}
	cs := hosttest.Connect(t, func() *mcp.Server { return launchServer(opts, launched) }, "memory", "modern", hosttest.Options{})
	call := func(args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "launch", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	args := map[string]any{"target": "moon", "confirmation_token": previewToken(t, call(map[string]any{"target": "moon"}))}
	if res := call(args); res.IsError || launched.get() != 1 {
		t.Fatalf("confirm: %+v", res)
	}
	mu.Lock()
	now = now.Add(10 * time.Minute) // past TTL, within PreviewTTL
	mu.Unlock()
	if res := call(args); !res.IsError || launched.get() != 1 {
		t.Fatalf("the token used again after TTL: %+v, launched %d times", res, launched.get())
	}
}

// flip changes one character in the middle of a sealed token.
func flip(token string) string {
	b := []byte(token)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}
