package machine_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
)

// linkServer serves "connect", one URL step with fallback=link and no
// ask hook, for the principal its arguments name; its handler answers
// "done" with the step's answer, or "declined".
func linkServer(opts *elicitrt.ToolOptions) func() *mcp.Server {
	return func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "connect", Version: "v0"}, nil)
		m := elicitimpl.NewMachine("connect", []elicitimpl.Step{{Key: "billing", Mode: elicitimpl.ModeURL, Message: "Connect billing.", Fallback: elicitimpl.FallbackLink}},
			elicitimpl.Flow{
				Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
					b, _ := json.Marshal(a)
					return elicitrt.Text("done " + string(b)), nil
				},
				Ended: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
					return elicitrt.Text(action), nil
				},
				Link: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a elicitimpl.Answers, token string) string {
					return "https://app.example/connect?flow=" + url.QueryEscape(token)
				},
			}, opts)
		elicitimpl.AddTool[noArgs](s, &mcp.Tool{Name: "connect", InputSchema: json.RawMessage(`{"type":"object"}`)}, m)
		return s
	}
}

// TestLinkFallback: a call that cannot show the URL step gets its link in
// the result; within one window of TTL every call of a user gets the same
// link, another user another; once the flow of the link finished for the
// user (as the callback records it), the next fresh call answers the step
// from it and completes, also when the link was of the window before. A
// denied flow is not handed out again: the next attempt of the window is,
// and once every attempt of the window was denied the call is the step's
// decline.
func TestLinkFallback(t *testing.T) {
	keys := elicitrt.RandomKeyring()
	grants := &backend.MemoryGrants{}
	now := time.Date(2031, 5, 6, 7, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	principal := ""
	opts := &elicitrt.ToolOptions{Keys: keys, Grants: grants, Now: clock, Principal: func(*mcp.CallToolRequest) string { return principal }}
	cs := hosttest.Connect(t, linkServer(opts), "memory", "modern", hosttest.Options{User: &hosttest.User{}})
	call := func(user string) string {
		t.Helper()
		principal = user
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "connect", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %+v %v", user, res, err)
		}
		return hosttest.Text(res)
	}
	flowOf := func(text string) string {
		t.Helper()
		_, rest, ok := strings.Cut(text, "?flow=")
		token, _, _ := strings.Cut(rest, "\n")
		token, _ = url.QueryUnescape(token)
		f, err := (*seal.Keyring)(keys).OpenFlow(token, "", now)
		if !ok || err != nil {
			t.Fatalf("no flow token in %q: %v", text, err)
		}
		return f.ID
	}
	finish := func(flow, subject string, deny bool) {
		t.Helper()
		ctx := context.Background()
		if ok, err := grants.ClaimFlow(ctx, flow, time.Minute); !ok || err != nil {
			t.Fatalf("claim %s: %v %v", flow, ok, err)
		}
		var err error
		if deny {
			err = grants.DenyFlow(ctx, flow, time.Hour)
		} else {
			err = grants.CompleteFlow(ctx, flow, subject, time.Hour)
		}
		if err != nil {
			t.Fatal(err)
		}
	}

	first := call("alice")
	if !strings.HasPrefix(first, "Connect billing.\n\nhttps://app.example/connect?flow=") || !strings.HasSuffix(first, "\n\n"+machine.LinkResultText) {
		t.Fatalf("the link result: %q", first)
	}
	now = now.Add(time.Minute)
	if again := call("alice"); again != first {
		t.Fatalf("the same window's link: %q, want %q", again, first)
	}
	bob := call("bob")
	if bob == first {
		t.Fatal("bob got alice's link")
	}
	finish(flowOf(first), "bob", false) // finished, for another user
	if got := call("alice"); got != first {
		t.Fatalf("a flow finished for bob answers alice: %q", got)
	}
	carol := call("carol")
	finish(flowOf(carol), "carol", false)
	now = now.Add(elicitrt.DefaultStateTTL) // the next window: carol's link was of the one before
	if got, want := call("carol"), `done [{"flow":"`+flowOf(carol)+`"}]`; got != want {
		t.Fatalf("after the sign-in: %q, want %q", got, want)
	}

	dave := call("dave")
	for range 3 {
		finish(flowOf(dave), "", true)
		next := call("dave")
		if next == dave || !strings.Contains(next, "?flow=") {
			t.Fatalf("after a denial: %q (before %q)", next, dave)
		}
		dave = next
	}
	finish(flowOf(dave), "", true)
	if got := call("dave"); got != "decline" {
		t.Fatalf("every attempt of the window denied: %q, want the decline", got)
	}
}
