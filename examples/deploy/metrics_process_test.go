package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup/promtest"
)

// TestMetricsProcess runs the deploy binary as an operator would, with
// -metrics, -log json and OTEL_TRACES_EXPORTER=console, drives an accepted
// and a declined flow over HTTP, scrapes /metrics and parses the
// exposition: the responses counter by step and outcome, the operation
// duration of every request, and the Go runtime's and the process's series.
func TestMetricsProcess(t *testing.T) {
	p := startProcServerWith(t, []string{"OTEL_TRACES_EXPORTER=console"}, "-metrics", "127.0.0.1:0", "-log", "json")
	p.mu.Lock()
	metricsURL := p.metrics
	p.mu.Unlock()
	if metricsURL == "" {
		t.Fatalf("no metrics address logged: %s", p.stderr())
	}
	for _, answer := range []string{`{"action":"accept","content":{"environment":"staging"}}`, `{"action":"decline"}`} {
		_, data := procPost(t, p.url, procCall(`{"service":"api"}`, "", ""))
		first, _ := procJSONRPC(t, "first round", data)
		state, _ := first["requestState"].(string)
		_, data = procPost(t, p.url, procCall(`{"service":"api"}`, state, `{"target":`+answer+`}`))
		if res, rpcErr := procJSONRPC(t, "retry", data); res == nil || res["requestState"] != nil {
			t.Fatalf("retry: %v %v", res, rpcErr)
		}
	}
	families := promtest.Scrape(t, metricsURL)
	for _, outcome := range []string{"accept", "decline"} {
		if got := promtest.Sample(families["elicitgen_elicitation_responses_total"], map[string]string{
			"gen_ai_tool_name": "deploy", "elicitgen_step": "target", "elicitgen_outcome": outcome}); got != 1 {
			t.Errorf("elicitgen_elicitation_responses_total{outcome=%s} = %v, want 1", outcome, got)
		}
	}
	if got := promtest.HistogramCount(families["mcp_server_operation_duration_seconds"], map[string]string{
		"mcp_method_name": "tools/call", "gen_ai_tool_name": "deploy"}); got != 4 {
		t.Errorf("mcp_server_operation_duration_seconds_count = %v, want 4", got)
	}
	if got := promtest.HistogramCount(families["elicitgen_elicitation_answer_duration_seconds"], nil); got != 2 {
		t.Errorf("elicitgen_elicitation_answer_duration_seconds_count = %v, want 2", got)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "process_resident_memory_bytes"} {
		if families[name] == nil {
			t.Errorf("no %s at /metrics: the Go runtime's and the process's collectors", name)
		}
	}
	first, _, _ := strings.Cut(p.stderr(), "\n")
	if !json.Valid([]byte(first)) {
		t.Errorf("-log json: the first log line is not JSON: %q", first)
	}
}
