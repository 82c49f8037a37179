package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup/promtest"
	"github.com/elicitgen/elicitgen/runtime/serve"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// series are the labelled series of the elicitgen and MCP families of a
// scrape, as "family{label=value,...}", sorted.
func series(fams map[string]*dto.MetricFamily) []string {
	var out []string
	for name, f := range fams {
		if !strings.HasPrefix(name, "elicitgen_") && !strings.HasPrefix(name, "mcp_") {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			out = append(out, name+"{"+strings.Join(labels, ",")+"}")
		}
	}
	sort.Strings(out)
	return out
}

// junk posts to h what no client of this server sends: a tool, a method,
// a protocol revision, a user, a task id, a step key and a state each
// chosen by the sender, different every time (i).
func junk(h http.Handler, i int) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, junkRequest(i))
	_, _ = io.Copy(io.Discard, rec.Result().Body)
}

// junkRequest is junk's request i.
func junkRequest(i int) *http.Request {
	n := strconv.Itoa(i)
	tool, method := "deploy", "tools/call"
	switch i % 4 {
	case 1:
		tool = "tool-" + n
	case 2:
		method = "tasks/get"
	case 3:
		method = "junk/" + n
	}
	version, name := "2026-07-28", tool
	if i%3 == 0 {
		version = "2031-01-" + n // refused by the transport
	}
	if method == "tasks/get" {
		name = "task-" + n
	}
	state := `"requestState":"s2.junk` + n + `","inputResponses":{"step-` + n + `":{"action":"accept","content":{"x":"` + n + `"}}},`
	if i%8 == 0 {
		state = "" // a flow of its own begins
	}
	body := `{"jsonrpc":"2.0","id":` + n + `,"method":"` + method + `","params":{"name":"` + tool + `","taskId":"task-` + n +
		`","arguments":{"service":"svc-` + n + `"},` + state +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	req := httptest.NewRequest("POST", "/", strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": version, "Mcp-Method": method, "Mcp-Name": name, "X-User": "user-" + n} {
		req.Header.Set(k, v)
	}
	return req
}

// outcomeTelemetry starts telemetry as a user's main sets it up
// (otelsetup, Prometheus on 127.0.0.1) and returns it with the deploy
// tool's options over it, on the clock *now, the principal from X-User.
func outcomeTelemetry(t *testing.T, now *time.Time) (*otelsetup.Telemetry, *elicitrt.ToolOptions) {
	t.Helper()
	tel, err := otelsetup.Start(context.Background(), &otelsetup.Config{MetricsAddr: "127.0.0.1:0", Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tel.Shutdown(context.Background()) })
	opts := &elicitrt.ToolOptions{Keys: keys, Hooks: tel.Hooks, Now: func() time.Time { return *now }, Logger: slog.New(slog.DiscardHandler),
		Principal: func(req *mcp.CallToolRequest) string {
			if req.Extra != nil && req.Extra.Header != nil {
				return req.Extra.Header.Get("X-User")
			}
			return ""
		}}
	return tel, opts
}

// TestEveryOutcomeInItsSeries runs a scripted mix of flows against the
// deploy server, with telemetry as a user's main sets it up, and reads the
// outcomes from the scrape: each in a series of its own.
func TestEveryOutcomeInItsSeries(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tel, opts := outcomeTelemetry(t, &now)
	cs := manual(t, opts)
	accept := func(key string, content map[string]any) mcp.InputResponseMap {
		return mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept", Content: content}}
	}
	// Accepted, then confirmed: a production deploy.
	prod := map[string]any{"service": "api", "environment": "prod"}
	first, err := retry(cs, prod, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	yes := accept(onlyKey(t, first), map[string]any{"confirm": true})
	if _, err := retry(cs, prod, first.RequestState, yes); err != nil {
		t.Fatal(err)
	}
	// Replayed: the same confirmation again.
	_, err = retry(cs, prod, first.RequestState, yes)
	wantRefused(t, "replay", err, "requestState already used")
	// Re-asked, then declined.
	args := map[string]any{"service": "api"}
	start, err := retry(cs, args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := retry(cs, args, start.RequestState, accept(onlyKey(t, start), map[string]any{"environment": "mars"}))
	if err != nil || !again.NeedsInput() {
		t.Fatalf("invalid answer: %+v %v", again, err)
	}
	if _, err := retry(cs, args, again.RequestState, mcp.InputResponseMap{onlyKey(t, again): &mcp.ElicitResult{Action: "decline"}}); err != nil {
		t.Fatal(err)
	}
	// Given up: three invalid answers in a row.
	res, err := retry(cs, args, "", nil)
	for i := 0; err == nil && res.NeedsInput() && i < 3; i++ {
		res, err = retry(cs, args, res.RequestState, accept(onlyKey(t, res), map[string]any{"environment": "mars"}))
	}
	if err != nil || !res.IsError || !strings.Contains(hosttest.Text(res), "gave up") {
		t.Fatalf("three invalid answers: %+v %v", res, err)
	}
	// Expired: the person answered an hour later.
	now = now.Add(time.Hour)
	_, err = retry(cs, args, start.RequestState, accept(onlyKey(t, start), map[string]any{"environment": "dev"}))
	wantInvalidState(t, "expired", err)
	// Fallen back: a client that cannot show a form gets the preview.
	h := serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return newServer(opts) }, &elicitrt.HTTPOptions{JSONResponse: true})
	if res, rpcErr, ok := postDeployAs(h, `{}`, `{"service":"api","environment":"prod"}`, "", ""); !ok || rpcErr != nil || res == nil {
		t.Fatalf("fallback: %+v %v", res, rpcErr)
	}

	fams := promtest.Scrape(t, tel.MetricsURL)
	with := func(kv ...string) map[string]string {
		m := map[string]string{"gen_ai_tool_name": "deploy"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		family string
		labels map[string]string
	}{
		{"elicitgen_elicitation_requests_total", with("elicitgen_step", "target")},
		{"elicitgen_elicitation_responses_total", with("elicitgen_step", "confirm", "elicitgen_outcome", "accept")},
		{"elicitgen_elicitation_responses_total", with("elicitgen_step", "target", "elicitgen_outcome", "invalid")},
		{"elicitgen_elicitation_responses_total", with("elicitgen_step", "target", "elicitgen_outcome", "decline")},
		{"elicitgen_elicitation_reasks_total", with("elicitgen_step", "target", "elicitgen_reason", "invalid")},
		{"elicitgen_fallbacks_total", with("elicitgen_step", "confirm", "elicitgen_reason", "preview", "elicitgen_client_modes", "no elicitation")},
		{"elicitgen_refusals_total", with("elicitgen_refused", "requestState", "elicitgen_reason", "expired")},
		{"elicitgen_refusals_total", with("elicitgen_refused", "requestState", "elicitgen_reason", "already_used")},
		{"elicitgen_once_claims_total", with("elicitgen_outcome", "refused")},
		{"elicitgen_once_claims_total", with("elicitgen_outcome", "won")},
		{"elicitgen_elicitation_gave_up_total", with("elicitgen_step", "target")},
	} {
		f := fams[c.family]
		if f == nil || promtest.Sample(f, c.labels) < 1 {
			t.Errorf("no %s%v in the scrape", c.family, c.labels)
		}
	}
}

// TestJunkAddsNoSeries: 10,000 requests naming tools, methods, revisions,
// users, task ids, steps and states of the sender's choosing add no
// series to the deploy server's scrape: every attribute comes from a
// closed set. It skips under the race detector, which makes the 10,000
// nine times slower; .ci/test runs it plainly.
func TestJunkAddsNoSeries(t *testing.T) {
	if raceEnabled {
		t.Skip("10,000 requests; .ci/test runs it without -race")
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tel, opts := outcomeTelemetry(t, &now)
	h := serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return newServer(opts) }, &elicitrt.HTTPOptions{JSONResponse: true})
	for i := range 100 { // every series junk can reach, once
		junk(h, i)
	}
	before := series(promtest.Scrape(t, tel.MetricsURL))
	var after []string
	// The first thousand are checked on their own, so that a series per
	// request fails in seconds, not after 10,000 of them.
	for _, wave := range [][2]int{{100, 1100}, {1100, 10100}} {
		var wg sync.WaitGroup
		for w := range 8 { // eight senders at once
			wg.Go(func() {
				for i := wave[0] + w; i < wave[1]; i += 8 {
					junk(h, i)
				}
			})
		}
		wg.Wait()
		after = series(promtest.Scrape(t, tel.MetricsURL))
		if strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Fatalf("%d junk requests changed the series: %d before, %d after; new:\n%s", wave[1]-100, len(before), len(after), diff(after, before))
		}
	}
	t.Logf("%d series, unchanged by 10,000 junk requests", len(after))
}

// diff lists what a has and b lacks.
func diff(a, b []string) string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("… and %d more", len(out)-20))
	}
	return strings.Join(out, "\n")
}

func wantRefused(t *testing.T, what string, err error, message string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), message) {
		t.Errorf("%s: %v, want %q", what, err, message)
	}
}
