package upgrade

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/examples/upgrade/v1"
	"github.com/elicitgen/elicitgen/examples/upgrade/v2"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// The test to keep beside a server that is deployed while people answer:
// a flow that starts on the running release and whose retry lands on the
// next one. Both releases share one key ring, as the instances behind one
// address do during a rolling deploy. internal/machine/skew_test.go holds
// every kind of change; this is the one check a user copies.

// onBoth connects a manual client (it sends each round itself) to each
// release over HTTP.
func onBoth(t *testing.T) (one, two *mcp.ClientSession) {
	opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring(), Logger: slog.New(slog.DiscardHandler)}
	release := func(register func(*mcp.Server, *elicitrt.ToolOptions)) func() *mcp.Server {
		return func() *mcp.Server {
			s := mcp.NewServer(&mcp.Implementation{Name: "upgrade", Version: "v0"}, nil)
			register(s, opts)
			return s
		}
	}
	o := hosttest.Options{User: &hosttest.User{}, Manual: true}
	return hosttest.Connect(t, release(v1.Register), "http", "modern", o), hosttest.Connect(t, release(v2.Register), "http", "modern", o)
}

// TestRetryOnTheNextRelease: cleanup's questions changed order in v2, so
// release 1's answer to "purge" is never taken as v2's; v2 asks its own
// first question, saying the tool changed. Same changed only its
// description and handler, so its flow goes on across the deploy.
func TestRetryOnTheNextRelease(t *testing.T) {
	one, two := onBoth(t)
	first, err := one.CallTool(t.Context(), &mcp.CallToolParams{Name: "cleanup", Arguments: map[string]any{}})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("cleanup on v1: %+v %v", first, err)
	}
	retry, err := two.CallTool(t.Context(), &mcp.CallToolParams{Name: "cleanup", Arguments: map[string]any{}, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{hosttest.OnlyKey(t, first): hosttest.Accept(map[string]any{"yes": true})}})
	if err != nil || !retry.NeedsInput() {
		t.Fatalf("the retry on v2: %+v %v", retry, err)
	}
	asked, _ := retry.InputRequests[hosttest.OnlyKey(t, retry)].(*mcp.ElicitParams)
	if asked == nil || !strings.HasPrefix(asked.Message, "This tool changed while you were answering") {
		t.Fatalf("v2 asks %+v, want its first question after the tool's change", retry.InputRequests)
	}

	same, err := one.CallTool(t.Context(), &mcp.CallToolParams{Name: "same", Arguments: map[string]any{}})
	if err != nil || !same.NeedsInput() {
		t.Fatalf("same on v1: %+v %v", same, err)
	}
	next, err := two.CallTool(t.Context(), &mcp.CallToolParams{Name: "same", Arguments: map[string]any{}, RequestState: same.RequestState,
		InputResponses: mcp.InputResponseMap{hosttest.OnlyKey(t, same): hosttest.Accept(map[string]any{"env": "prod"})}})
	if err != nil {
		t.Fatalf("same's retry on v2: %v", err)
	}
	if !next.NeedsInput() || next.InputRequests["ok"] == nil {
		t.Fatalf("same's retry on v2 asks %+v, want its confirmation: the flow goes on", next.InputRequests)
	}
	if p := next.InputRequests["ok"].(*mcp.ElicitParams); strings.HasPrefix(p.Message, "This tool changed") {
		t.Fatalf("same's flow started again on v2: %q", p.Message)
	}
}
