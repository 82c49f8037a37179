package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestMetricsProcess runs the deploy binary as an operator would, with
// -metrics, -log json and OTEL_TRACES_EXPORTER=console, drives an accepted
// and a declined flow over HTTP, scrapes /metrics and parses the
// exposition: the responses counter by step and outcome, and the operation
// duration of every request.
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
	families := scrape(t, metricsURL)
	for _, outcome := range []string{"accept", "decline"} {
		if got := sample(families["elicitgen_elicitation_responses_total"], map[string]string{
			"gen_ai_tool_name": "deploy", "elicitgen_step": "target", "elicitgen_outcome": outcome}); got != 1 {
			t.Errorf("elicitgen_elicitation_responses_total{outcome=%s} = %v, want 1", outcome, got)
		}
	}
	if got := histogramCount(families["mcp_server_operation_duration_seconds"], map[string]string{
		"mcp_method_name": "tools/call", "gen_ai_tool_name": "deploy"}); got != 4 {
		t.Errorf("mcp_server_operation_duration_seconds_count = %v, want 4", got)
	}
	if got := histogramCount(families["elicitgen_elicitation_answer_duration_seconds"], nil); got != 2 {
		t.Errorf("elicitgen_elicitation_answer_duration_seconds_count = %v, want 2", got)
	}
	first, _, _ := strings.Cut(p.stderr(), "\n")
	if !json.Valid([]byte(first)) {
		t.Errorf("-log json: the first log line is not JSON: %q", first)
	}
}

// scrape gets url and parses the Prometheus text exposition.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the exposition: %v", err)
	}
	return families
}

// labelled reports whether m has every label of want.
func labelled(m *dto.Metric, want map[string]string) bool {
	have := map[string]string{}
	for _, l := range m.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// sample sums the counter values of f's metrics labelled with want.
func sample(f *dto.MetricFamily, want map[string]string) float64 {
	n := 0.0
	for _, m := range f.GetMetric() {
		if labelled(m, want) {
			n += m.GetCounter().GetValue()
		}
	}
	return n
}

// histogramCount sums the counts of f's histograms labelled with want.
func histogramCount(f *dto.MetricFamily, want map[string]string) float64 {
	n := 0.0
	for _, m := range f.GetMetric() {
		if labelled(m, want) {
			n += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return n
}
