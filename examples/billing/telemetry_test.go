package main

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/oteltest"
)

// TestTelemetryNoLinkOrState: a sign-in over streamable HTTP, asked,
// completed in alice's browser and answered, with telemetry and a debug
// log: the link, its flow token, the call's sealed state and the user
// appear in no span, span event, metric point or log record.
func TestTelemetryNoLinkOrState(t *testing.T) {
	rec := oteltest.New(t)
	var logs bytes.Buffer
	s := startSiteWith(t, "", func(c *config) {
		c.hooks = rec.Hooks
		c.logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	cs := s.mcpClient(t, "http", "alice", hosttest.Options{Capabilities: bothModes, Manual: true})
	first, err := list(cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	key, p := urlRequest(t, first)
	if code, body, err := signIn(s.browser(t, "alice"), p.URL); err != nil || code != http.StatusOK {
		t.Fatalf("sign-in: %d %v\n%s", code, err, body)
	}
	res, err := list(cs, first.RequestState, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}})
	if err != nil || res.NeedsInput() || res.IsError {
		t.Fatalf("after the sign-in: %+v %v", res, err)
	}
	u, _ := url.Parse(p.URL)
	secrets := map[string]string{"link": p.URL, "flow token": u.Query().Get("flow"), "state": first.RequestState}
	all := rec.Text(t) + logs.String()
	if !strings.Contains(all, "elicitgen.answered") {
		t.Fatalf("nothing recorded:\n%s", all)
	}
	for what, v := range secrets {
		if len(v) < 24 {
			t.Fatalf("%s %q: too short to be one", what, v)
		}
		for i := 0; i+24 <= len(v); i += 24 {
			if strings.Contains(all, v[i:i+24]) {
				t.Errorf("part of the %s appears in the telemetry or logs", what)
				break
			}
		}
	}
	if strings.Contains(all, "alice") {
		t.Errorf("the user appears in the telemetry or logs:\n%s", all)
	}
}
