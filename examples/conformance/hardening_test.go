package main

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// TestLongValidAnswerIsReasked sends, on the multi-round fixture, a name
// that the form accepts (a string with no maximum length) but that is too
// long to keep between rounds: it used to make Keyring.Seal panic and the
// process exit. It is asked again with the reason; a shorter one then goes
// on to the next round.
func TestLongValidAnswerIsReasked(t *testing.T) {
	const tool = "test_input_required_result_multi_round"
	cs := connect(t, "http", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
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
