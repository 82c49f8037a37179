package main

import (
	"context"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup/promtest"
)

// TestTelemetryMetricsServed: report wired as main wires it with -metrics
// (runtime/otelelicit/otelsetup, as deploy's) serves, after a real
// round and a task's question, the responses counter, the task's changes
// of status and the operation durations as Prometheus text at /metrics.
func TestTelemetryMetricsServed(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	t.Setenv("OTEL_SDK_DISABLED", "")
	tel, err := otelsetup.Start(t.Context(), &otelsetup.Config{ServiceName: "report", MetricsAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	if tel.Hooks == nil || tel.MetricsURL == "" {
		t.Fatalf("no hooks or metrics: %+v", tel)
	}
	w := memoryWire(t, newServer(&elicitrt.ToolOptions{Keys: reportKeys, Hooks: tel.Hooks, Logger: tel.Logger}))
	w.must("server/discover", nil)
	id := w.createTask(map[string]any{"topic": "Q3", "seconds": 1}, "html")
	w.poll(id, 10*time.Second, asks("salaries"))
	w.must("tasks/cancel", map[string]any{"taskId": id})
	families := promtest.Scrape(t, tel.MetricsURL)
	if got := promtest.Sample(families["elicitgen_elicitation_responses_total"], map[string]string{
		"gen_ai_tool_name": "report", "elicitgen_step": "format", "elicitgen_outcome": "accept"}); got != 1 {
		t.Errorf("elicitgen_elicitation_responses_total{step=format,outcome=accept} = %v, want 1", got)
	}
	// The task's changes of status: working, waiting for the answer, then
	// cancelled (reported once the task's watcher sees the cancel: the
	// scrape is read again until then, for at most 10 s).
	changes := func(status string) float64 {
		return promtest.Sample(families["elicitgen_tasks_status_changes_total"], map[string]string{
			"gen_ai_tool_name": "report", "elicitgen_task_status": status})
	}
	for deadline := time.Now().Add(10 * time.Second); changes("cancelled") < 1 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		families = promtest.Scrape(t, tel.MetricsURL)
	}
	for _, status := range []string{"working", "input_required", "cancelled"} {
		if got := changes(status); got < 1 {
			t.Errorf("elicitgen_tasks_status_changes_total{status=%s} = %v, want at least 1", status, got)
		}
	}
	if got := promtest.HistogramCount(families["mcp_server_operation_duration_seconds"], map[string]string{
		"mcp_method_name": "tools/call", "gen_ai_tool_name": "report"}); got != 2 {
		t.Errorf("mcp_server_operation_duration_seconds_count{tools/call report} = %v, want 2", got)
	}
}
