package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/oteltest"
)

// telemetryOptions are the options of a deploy server whose hooks record
// into rec and whose log (when logs is not nil) goes to logs, at debug.
func telemetryOptions(rec *oteltest.Recorder, logs *bytes.Buffer) *elicitrt.ToolOptions {
	opts := &elicitrt.ToolOptions{Keys: keys, Hooks: rec.Hooks, Replay: &backend.MemoryReplayGuard{}}
	if logs != nil {
		opts.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		opts.Principal = func(*mcp.CallToolRequest) string { return "user-p9k2z" }
	}
	return opts
}

// telemetrySession connects a client that answers every round itself (no
// schema check of its own: the server judges the answers) over transport
// on era; a legacy one answers with replies in turn.
func telemetrySession(t *testing.T, opts *elicitrt.ToolOptions, transport, era string, replies []*mcp.ElicitResult) *mcp.ClientSession {
	t.Helper()
	if era == "legacy" {
		n := 0
		return rawAnswersTo(t, transport, opts, func(*mcp.ElicitParams) *mcp.ElicitResult {
			n++
			return replies[n-1]
		})
	}
	return hosttest.Connect(t, func() *mcp.Server { return newServer(opts) }, transport, era, hosttest.Options{User: &user{}, Manual: true})
}

// drive calls deploy with args and answers each round's one question with
// the next of replies (on 2025-11-25 the session answers them), returning
// the final result and every question asked.
func drive(t *testing.T, cs *mcp.ClientSession, args map[string]any, replies []*mcp.ElicitResult) (*mcp.CallToolResult, []*mcp.ElicitParams) {
	t.Helper()
	params := &mcp.CallToolParams{Name: "deploy", Arguments: args}
	var asked []*mcp.ElicitParams
	for {
		res, err := cs.CallTool(t.Context(), params)
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() {
			return res, asked
		}
		key := hosttest.OnlyKey(t, res)
		asked = append(asked, res.InputRequests[key].(*mcp.ElicitParams))
		params = &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: res.RequestState,
			InputResponses: mcp.InputResponseMap{key: replies[len(asked)-1]}}
	}
}

// The foreground flows of the telemetry tests: what the person answers,
// and the outcomes the responses counter must count per step.
var telemetryFlows = []struct {
	name     string
	replies  []*mcp.ElicitResult
	outcomes map[[2]string]float64 // {step, outcome}: count
	rounds   int                   // input_required results
}{
	{"accept", []*mcp.ElicitResult{accept(map[string]any{"environment": "staging", "notify": true})},
		map[[2]string]float64{{"target", "accept"}: 1}, 1},
	{"decline", []*mcp.ElicitResult{{Action: "decline"}},
		map[[2]string]float64{{"target", "decline"}: 1}, 1},
	{"cancel", []*mcp.ElicitResult{accept(map[string]any{"environment": "prod"}), {Action: "cancel"}},
		map[[2]string]float64{{"target", "accept"}: 1, {"confirm", "cancel"}: 1}, 2},
	{"invalid then re-ask", []*mcp.ElicitResult{accept(map[string]any{"environment": "moon"}), accept(map[string]any{"environment": "dev"})},
		map[[2]string]float64{{"target", "invalid"}: 1, {"target", "accept"}: 1}, 2},
}

// TestTelemetryForegroundFlow: each flow's requests are spans
// "tools/call deploy" with the MCP conventions' attributes; every round of
// one flow carries the same elicitgen.flow.id, its round number and the
// step keys asked; the responses counter counts each answer by step and
// outcome, the answer-duration histogram each answer, and the operation
// duration every request; over memory and streamable HTTP.
func TestTelemetryForegroundFlow(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, f := range telemetryFlows {
			t.Run(transport+"/"+f.name, func(t *testing.T) {
				rec := oteltest.New(t)
				cs := telemetrySession(t, telemetryOptions(rec, nil), transport, "modern", f.replies)
				drive(t, cs, map[string]any{"service": "api"}, f.replies)
				checkFlowSpans(t, rec, f.rounds)
				pts := rec.Points(t)
				answers := 0.0
				for k, n := range f.outcomes {
					answers += n
					if got := oteltest.Count(pts, "elicitgen.elicitation.responses", map[string]string{
						"gen_ai.tool.name": "deploy", "elicitgen.step": k[0], "elicitgen.outcome": k[1]}); got != n {
						t.Errorf("responses %v: %v, want %v", k, got, n)
					}
				}
				if got := oteltest.Count(pts, "elicitgen.elicitation.responses", nil); got != answers {
					t.Errorf("responses in all: %v, want %v", got, answers)
				}
				if got := oteltest.Count(pts, "elicitgen.elicitation.answer.duration", map[string]string{"gen_ai.tool.name": "deploy"}); got != answers {
					t.Errorf("answer durations: %v, want %v", got, answers)
				}
				if got := oteltest.Count(pts, "mcp.server.operation.duration", map[string]string{
					"mcp.method.name": "tools/call", "gen_ai.tool.name": "deploy", "mcp.protocol.version": "2026-07-28"}); got != float64(f.rounds+1) {
					t.Errorf("operation durations: %v, want %v", got, f.rounds+1)
				}
			})
		}
	}
}

// checkFlowSpans checks the spans of one flow of rounds input_required
// results: rounds+1 requests, one flow id, rounds numbered 1.. in order.
func checkFlowSpans(t *testing.T, rec *oteltest.Recorder, rounds int) {
	t.Helper()
	spans := rec.Ended()
	if len(spans) != rounds+1 {
		t.Fatalf("%d spans, want %d:\n%s", len(spans), rounds+1, rec.Text(t))
	}
	flow := ""
	for i, s := range spans {
		a := oteltest.SpanAttrs(s)
		if s.Name() != "tools/call deploy" || a["mcp.method.name"] != "tools/call" || a["gen_ai.tool.name"] != "deploy" ||
			a["mcp.protocol.version"] != "2026-07-28" {
			t.Errorf("span %d: %s %v", i, s.Name(), a)
		}
		if flow == "" {
			flow = a["elicitgen.flow.id"]
		}
		if a["elicitgen.flow.id"] != flow || len(flow) != 16 {
			t.Errorf("span %d: flow id %q, the flow's %q", i, a["elicitgen.flow.id"], flow)
		}
		if i < rounds {
			if want := []string{"1", "2", "3"}[i]; a["elicitgen.round"] != want {
				t.Errorf("span %d: round %q, want %s", i, a["elicitgen.round"], want)
			}
			if a["elicitgen.steps"] == "" {
				t.Errorf("span %d asks no steps: %v", i, a)
			}
		}
	}
}

// TestTelemetryContinuesClientTrace: a tools/call whose params._meta
// carries a W3C traceparent gets a span in that trace, its child.
func TestTelemetryContinuesClientTrace(t *testing.T) {
	rec := oteltest.New(t)
	cs := telemetrySession(t, telemetryOptions(rec, nil), "memory", "modern", nil)
	const traceID, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy",
		Arguments: map[string]any{"service": "api", "environment": "dev"},
		Meta:      mcp.Meta{"traceparent": "00-" + traceID + "-" + parent + "-01", "tracestate": "vendor=x"}})
	if err != nil {
		t.Fatal(err)
	}
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	s := spans[0]
	if s.SpanContext().TraceID().String() != traceID || s.Parent().SpanID().String() != parent || !s.Parent().IsRemote() {
		t.Errorf("span trace %s parent %s, want the client's %s %s", s.SpanContext().TraceID(), s.Parent().SpanID(), traceID, parent)
	}
	if got := s.SpanContext().TraceState().String(); got != "vendor=x" {
		t.Errorf("tracestate %q", got)
	}
}

// TestTelemetryPrivacy fills the deploy forms with distinctive values
// (an argument, an invalid answer the re-ask echoes, a principal) over
// both eras, and finds none of them in any span, metric point or log
// record.
func TestTelemetryPrivacy(t *testing.T) {
	secrets := []string{"svc-zq81x", "moon-j4w7v", "user-p9k2z"}
	for _, era := range hosttest.Eras {
		t.Run(era, func(t *testing.T) {
			rec := oteltest.New(t)
			var logs bytes.Buffer
			replies := []*mcp.ElicitResult{
				accept(map[string]any{"environment": "moon-j4w7v", "notify": true}),
				accept(map[string]any{"environment": "prod", "notify": true}),
				accept(map[string]any{"confirm": true}),
			}
			cs := telemetrySession(t, telemetryOptions(rec, &logs), "http", era, replies)
			res, _ := drive(t, cs, map[string]any{"service": "svc-zq81x"}, replies)
			if text := hosttest.Text(res); !strings.Contains(text, "svc-zq81x") {
				t.Fatalf("flow: %q", text)
			}
			all := rec.Text(t) + logs.String()
			if !strings.Contains(all, "elicitgen.outcome") {
				t.Fatalf("nothing recorded:\n%s", all)
			}
			for _, s := range secrets {
				if strings.Contains(all, s) {
					t.Errorf("%q appears in the telemetry or logs:\n%s", s, all)
				}
			}
		})
	}
}

// TestTelemetryNoStatesOrTokens: over streamable HTTP, the sealed state
// of every round of a production deploy, and a preview's confirmation
// token (then sent back as an argument), appear in no span, span event,
// metric point or log record (slog JSON at debug level).
func TestTelemetryNoStatesOrTokens(t *testing.T) {
	rec := oteltest.New(t)
	var logs bytes.Buffer
	opts := telemetryOptions(rec, &logs)
	var secrets []string
	cs := telemetrySession(t, opts, "http", "modern", nil)
	replies := []*mcp.ElicitResult{accept(map[string]any{"environment": "prod"}), accept(map[string]any{"confirm": true})}
	params := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api"}}
	for {
		res, err := cs.CallTool(t.Context(), params)
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() {
			break
		}
		secrets = append(secrets, res.RequestState)
		key := hosttest.OnlyKey(t, res)
		params = &mcp.CallToolParams{Name: "deploy", Arguments: params.Arguments, RequestState: res.RequestState,
			InputResponses: mcp.InputResponseMap{key: replies[len(secrets)-1]}}
	}
	// A client without forms gets a preview and a token instead.
	plain := hosttest.Connect(t, func() *mcp.Server { return newServer(opts) }, "http", "modern", hosttest.Options{})
	prod := map[string]any{"service": "api", "environment": "prod"}
	preview, err := plain.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: prod})
	if err != nil || preview.IsError {
		t.Fatalf("preview: %+v %v", preview, err)
	}
	token := tokenOf(t, preview)
	secrets = append(secrets, token)
	prod[elicitrt.PreviewTokenArgument] = token
	if got, _, err := call(t, plain, prod); err != nil || got != "Deploying api to prod without notifying." {
		t.Fatalf("confirmed with the token: %q %v", got, err)
	}
	if len(secrets) != 3 {
		t.Fatalf("%d rounds and tokens, want 2 states and a token", len(secrets))
	}
	all := rec.Text(t) + logs.String()
	if !strings.Contains(all, "elicitgen.once") {
		t.Fatalf("the single-use claims were not recorded:\n%s", all)
	}
	for _, s := range secrets {
		// Any 24 bytes of it: a state or token cut short is still a leak.
		for i := 0; i+24 <= len(s); i += 24 {
			if strings.Contains(all, s[i:i+24]) {
				t.Errorf("part of %.30q... appears in the telemetry or logs", s)
				break
			}
		}
	}
}

// TestTelemetryLegacyFlow: a 2025-11-25 call, whose questions are
// server-to-client requests within it, is one span with the protocol
// version, a flow id, the number of questions asked as its round and a
// re-ask event; its answers count as in MRTR rounds, with their durations.
func TestTelemetryLegacyFlow(t *testing.T) {
	for _, transport := range hosttest.Transports {
		t.Run(transport, func(t *testing.T) {
			rec := oteltest.New(t)
			replies := []*mcp.ElicitResult{accept(map[string]any{"environment": "moon"}), accept(map[string]any{"environment": "dev"})}
			cs := telemetrySession(t, telemetryOptions(rec, nil), transport, "legacy", replies)
			if res, _ := drive(t, cs, map[string]any{"service": "api"}, nil); hosttest.Text(res) != "Deploying api to dev without notifying." {
				t.Fatalf("got %+v", res)
			}
			var calls []string
			for _, s := range rec.Ended() {
				if s.Name() != "tools/call deploy" {
					continue
				}
				a := oteltest.SpanAttrs(s)
				calls = append(calls, a["elicitgen.round"])
				if a["mcp.protocol.version"] != "2025-11-25" || len(a["elicitgen.flow.id"]) != 16 {
					t.Errorf("span %v", a)
				}
				reasked := 0
				for _, e := range s.Events() {
					if e.Name == "elicitgen.reasked" {
						reasked++
					}
				}
				if reasked != 1 {
					t.Errorf("%d re-ask events, want 1:\n%s", reasked, rec.Text(t))
				}
			}
			if len(calls) != 1 || calls[0] != "2" {
				t.Errorf("tools/call spans with rounds %v, want one with 2", calls)
			}
			pts := rec.Points(t)
			for _, outcome := range []string{"invalid", "accept"} {
				if got := oteltest.Count(pts, "elicitgen.elicitation.responses", map[string]string{"elicitgen.step": "target", "elicitgen.outcome": outcome}); got != 1 {
					t.Errorf("responses %s: %v, want 1", outcome, got)
				}
			}
			if got := oteltest.Count(pts, "elicitgen.elicitation.answer.duration", nil); got != 2 {
				t.Errorf("answer durations: %v, want 2", got)
			}
		})
	}
}

// downGuard is a replay guard that cannot be reached.
type downGuard struct{}

func (downGuard) Claim(context.Context, string, time.Duration) (bool, error) {
	return false, errors.New("guard down")
}

// TestTelemetryOnceAndStoreErrors: a production deploy confirmed once is a
// once-claim won (a span event); with its replay guard down, the flow fails
// closed and elicitgen.store.errors counts the guard's Claim.
func TestTelemetryOnceAndStoreErrors(t *testing.T) {
	replies := []*mcp.ElicitResult{accept(map[string]any{"environment": "prod"}), accept(map[string]any{"confirm": true})}
	for _, c := range []struct {
		name  string
		guard backend.ReplayGuard
		event string
		errs  float64
	}{{"won", &backend.MemoryReplayGuard{}, "elicitgen.once", 0}, {"guard down", downGuard{}, "elicitgen.store_error", 1}} {
		t.Run(c.name, func(t *testing.T) {
			rec := oteltest.New(t)
			opts := telemetryOptions(rec, nil)
			opts.Replay = c.guard
			cs := telemetrySession(t, opts, "memory", "modern", replies)
			params := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api"}}
			for i := 0; ; i++ {
				res, err := cs.CallTool(t.Context(), params)
				if err != nil || !res.NeedsInput() {
					break
				}
				key := hosttest.OnlyKey(t, res)
				params = &mcp.CallToolParams{Name: "deploy", Arguments: params.Arguments, RequestState: res.RequestState,
					InputResponses: mcp.InputResponseMap{key: replies[i]}}
			}
			if !strings.Contains(rec.Text(t), "event "+c.event+" ") {
				t.Errorf("no %s event:\n%s", c.event, rec.Text(t))
			}
			if got := oteltest.Count(rec.Points(t), "elicitgen.store.errors", map[string]string{
				"elicitgen.store": "replay", "elicitgen.store.operation": "Claim"}); got != c.errs {
				t.Errorf("store errors %v, want %v", got, c.errs)
			}
		})
	}
}
