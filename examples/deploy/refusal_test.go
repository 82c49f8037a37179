package main

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// refusalLines are the Warn records of log about a refused requestState.
func refusalLines(t *testing.T, log *hosttest.LogBuffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var rec map[string]any
		if line == "" || json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		if rec["msg"] == "elicitgen: requestState refused" {
			lines = append(lines, rec)
		}
	}
	return lines
}

// TestRefusalsSayWhyToTheOperator: a retry that an instance refuses gets
// the same -32602 whatever the reason, over HTTP; the refusing instance
// logs one Warn line naming the reason and what to check (an audience that
// differs between instances sharing a key ring, an expired state, a key
// the ring lacks), rate-limited per reason, and never the state, the user,
// the arguments or the answers.
func TestRefusalsSayWhyToTheOperator(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	args := map[string]any{"service": "api-secret-service"}
	sealer := &elicitrt.ToolOptions{Keys: keys, Audience: "http://10.0.0.1:8080", Principal: func(*mcp.CallToolRequest) string { return "alice@example.com" },
		Now: func() time.Time { return now }}
	first, err := retry(manual(t, sealer), args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	answer := mcp.InputResponseMap{onlyKey(t, first): &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "staging"}}}
	otherRing, err := elicitrt.NewKeyring([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		change func(o *elicitrt.ToolOptions, clock *time.Time)
		reason string
		check  string
	}{
		{"another audience", func(o *elicitrt.ToolOptions, _ *time.Time) { o.Audience = "http://10.0.0.2:8080" }, "other_audience", "instances of one deployment share one Audience"},
		{"expired", func(o *elicitrt.ToolOptions, clock *time.Time) {
			o.Now = func() time.Time { return clock.Add(time.Hour) }
		}, "expired", "older than its lifetime"},
		{"unknown key", func(o *elicitrt.ToolOptions, _ *time.Time) { o.Keys = otherRing }, "unknown_key", "share ELICITGEN_STATE_KEYS"},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := &hosttest.LogBuffer{}
			clock := now
			o := *sealer
			o.Logger = slog.New(slog.NewJSONHandler(log, nil))
			o.Now = func() time.Time { return clock }
			c.change(&o, &clock)
			refusing := manual(t, &o)
			for range 3 {
				_, err := retry(refusing, args, first.RequestState, answer)
				wantInvalidState(t, c.name, err)
			}
			lines := refusalLines(t, log)
			if len(lines) != 1 {
				t.Fatalf("%d refusal lines for three refusals within a minute, want 1:\n%s", len(lines), log)
			}
			rec := lines[0]
			if rec["level"] != "WARN" || rec["reason"] != c.reason || rec["tool"] != "deploy" || !strings.Contains(rec["check"].(string), c.check) {
				t.Errorf("refusal line %v, want WARN, reason %s, tool deploy, check %q", rec, c.reason, c.check)
			}
			clock = clock.Add(time.Minute) // the next line is due, and counts those not logged
			_, err := retry(refusing, args, first.RequestState, answer)
			wantInvalidState(t, c.name, err)
			if lines = refusalLines(t, log); len(lines) != 2 || lines[1]["suppressed"] != 2.0 || lines[1]["reason"] != c.reason {
				t.Errorf("a minute later: %v, want a second line with suppressed 2", lines)
			}
			for _, secret := range []string{first.RequestState[:12], "alice", "api-secret-service", "staging"} {
				if strings.Contains(log.String(), secret) {
					t.Errorf("the log names %q:\n%s", secret, log)
				}
			}
		})
	}
}
