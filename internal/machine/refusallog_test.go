package machine_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/refuse"
	"github.com/elicitgen/elicitgen/internal/testkit/fakeclock"
	"github.com/elicitgen/elicitgen/internal/testkit/syncbuf"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// TestRefusalBurstReportedOverTheSDK: 301 retries with an altered
// requestState, over the go-sdk in memory, then silence: the first is
// logged at once, and when its window closes on the refusal log's clock,
// one line says suppressed=300, tampered, for the tool; the log never
// names the argument or the state.
func TestRefusalBurstReportedOverTheSDK(t *testing.T) {
	var logs syncbuf.Buffer
	clock := fakeclock.New(time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC))
	opts := &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring(), Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	m := elicitimpl.NewMachine("burst", []elicitimpl.Step{{Key: "sure", Message: "Sure?", Mode: elicitimpl.ModeForm,
		Params: func(msg string) *mcp.ElicitParams {
			return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
		}}}, elicitimpl.Flow{
		Complete: func(context.Context, *mcp.CallToolRequest, any, elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text("done"), nil
		}}, opts)
	machine.SetRefusalClock(m, clock)
	server := mcp.NewServer(&mcp.Implementation{Name: "burst", Version: "v0"}, nil)
	elicitimpl.AddTool[map[string]any](server, &mcp.Tool{Name: "burst", InputSchema: json.RawMessage(`{"type":"object"}`)}, m)
	cs := hosttest.Connect(t, func() *mcp.Server { return server }, "memory", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	const state = "s2.altered-state-of-the-attacker"
	for range 301 {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "burst", Arguments: map[string]any{"note": "s3cr3t-argument"},
			RequestState: state, InputResponses: mcp.InputResponseMap{"sure": hosttest.Accept(map[string]any{"ok": true})}})
		if err == nil && hosttest.Text(res) == "done" {
			t.Fatal("an altered state completed the call")
		}
	}
	lines := func() []map[string]any {
		var out []map[string]any
		for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "elicitgen: requestState refused" {
				out = append(out, rec)
			}
		}
		return out
	}
	if got := lines(); len(got) != 1 || got[0]["suppressed"] != nil {
		t.Fatalf("before the window closes: %v, want the first refusal only", got)
	}
	clock.Advance(refuse.DefaultEvery)
	got := lines()
	if len(got) != 2 || got[1]["suppressed"] != 300.0 || got[1]["reason"] != "tampered" || got[1]["tool"] != "burst" || got[1]["level"] != "WARN" {
		t.Fatalf("after the window closed: %v, want a second line with suppressed 300, tampered, burst", got)
	}
	for _, secret := range []string{"s3cr3t", "altered-state"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log names %q:\n%s", secret, logs.String())
		}
	}
	if n := clock.Pending(); n != 0 {
		t.Errorf("%d timers pending after the report", n)
	}
}
