package main

import (
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/oteltest"
)

// TestTelemetryTask: a task with a mid-task question, answered wrongly
// first, over the SDK's in-memory recorders: elicitgen.tasks.active
// counts the task input_required while it asks, and none once it
// completed; the responses counter counts the format round's accept and
// the task's invalid then accepted salaries answer, each with its answer
// duration; tasks/get and tasks/update are spans of their own, with their
// durations; the task's id appears nowhere.
func TestTelemetryTask(t *testing.T) {
	t.Parallel()
	rec := oteltest.New(t)
	w := memoryWire(t, newServer(&elicitrt.ToolOptions{Keys: reportKeys, Hooks: rec.Hooks}))
	w.must("server/discover", nil)
	id := w.createTask(map[string]any{"topic": "Q3", "seconds": 1}, "html")
	w.poll(id, 10*time.Second, asks("salaries"))
	active := func(status string) float64 {
		return oteltest.Count(rec.Points(t), "elicitgen.tasks.active", map[string]string{"elicitgen.task.status": status})
	}
	waitFor(t, "one task input_required", func() bool { return active("input_required") == 1 && active("working") == 0 })
	w.must("tasks/update", map[string]any{"taskId": id,
		"inputResponses": map[string]any{"salaries": acceptAnswer(map[string]any{"include": "yes"})}})
	w.poll(id, 5*time.Second, asks("salaries.2"))
	w.must("tasks/update", map[string]any{"taskId": id,
		"inputResponses": map[string]any{"salaries.2": acceptAnswer(map[string]any{"include": false})}})
	w.poll(id, 10*time.Second, status("completed"))
	waitFor(t, "no task active", func() bool { return active("input_required") == 0 && active("working") == 0 })
	pts := rec.Points(t)
	for _, c := range []struct {
		step, outcome string
	}{{"format", "accept"}, {"salaries", "invalid"}, {"salaries", "accept"}} {
		if got := oteltest.Count(pts, "elicitgen.elicitation.responses", map[string]string{
			"gen_ai.tool.name": "report", "elicitgen.step": c.step, "elicitgen.outcome": c.outcome}); got != 1 {
			t.Errorf("responses %s/%s: %v, want 1", c.step, c.outcome, got)
		}
	}
	if got := oteltest.Count(pts, "elicitgen.elicitation.answer.duration", map[string]string{"gen_ai.tool.name": "report"}); got != 3 {
		t.Errorf("answer durations: %v, want 3", got)
	}
	if got := oteltest.Count(pts, "mcp.server.operation.duration", map[string]string{
		"mcp.method.name": "tasks/update", "mcp.protocol.version": "2026-07-28"}); got != 2 {
		t.Errorf("tasks/update durations: %v, want 2", got)
	}
	spans := map[string]int{}
	for _, s := range rec.Ended() {
		spans[s.Name()]++
	}
	if spans["tasks/update"] != 2 || spans["tasks/get"] == 0 || spans["tools/call report"] != 2 {
		t.Errorf("spans %v, want two tools/call report, tasks/get, two tasks/update", spans)
	}
	// A task has no name to add: its id is in no span name, attribute,
	// event or metric point.
	if text := rec.Text(t); strings.Contains(text, id) {
		t.Errorf("the task id %s appears in the telemetry:\n%s", id, text)
	}
}

// waitFor polls cond every 10 ms, failing after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10s: %s", what)
		}
	}
}

// TestTelemetryTaskSpan: a task's work is a span of its own, `tasks/run
// report`, linked to the span of the tools/call that created it: it
// carries the task's status changes and its mid-task question's answers,
// and ends, completed, when the task does. The spans of its tasks/get and
// tasks/update requests link to the creating call too (its trace context
// is kept in the task's record, so any instance links them).
func TestTelemetryTaskSpan(t *testing.T) {
	t.Parallel()
	rec := oteltest.New(t)
	w := memoryWire(t, newServer(&elicitrt.ToolOptions{Keys: reportKeys, Hooks: rec.Hooks}))
	w.must("server/discover", nil)
	id := w.createTask(map[string]any{"topic": "Q3", "seconds": 1}, "html")
	w.poll(id, 10*time.Second, asks("salaries"))
	w.must("tasks/update", map[string]any{"taskId": id,
		"inputResponses": map[string]any{"salaries": acceptAnswer(map[string]any{"include": false})}})
	w.poll(id, 10*time.Second, status("completed"))
	var run, created sdktrace.ReadOnlySpan
	waitFor(t, "the task's span ended", func() bool {
		for _, s := range rec.Ended() {
			switch {
			case s.Name() == "tasks/run report":
				run = s
			case s.Name() == "tools/call report" && hasEvent(s, "elicitgen.answered"):
				created = s
			}
		}
		return run != nil
	})
	if created == nil || len(run.Links()) != 1 || run.Links()[0].SpanContext.SpanID() != created.SpanContext().SpanID() {
		t.Fatalf("tasks/run links %v, want the creating call's span %v", run.Links(), created)
	}
	if run.Parent().IsValid() || oteltest.SpanAttrs(run)["elicitgen.task.status"] != "completed" {
		t.Errorf("tasks/run: parent %v, attributes %v", run.Parent(), oteltest.SpanAttrs(run))
	}
	events := map[string]int{}
	for _, e := range run.Events() {
		events[e.Name]++
	}
	if events["elicitgen.task_status"] < 3 || events["elicitgen.answered"] != 1 || events["elicitgen.asked"] != 1 {
		t.Errorf("tasks/run events %v, want the status changes, salaries asked and answered", events)
	}
	linked := map[string]int{}
	for _, s := range rec.Ended() {
		if name := s.Name(); name == "tasks/get" || name == "tasks/update" {
			if len(s.Links()) == 1 && s.Links()[0].SpanContext.SpanID() == created.SpanContext().SpanID() {
				linked[name]++
			} else {
				t.Errorf("%s links %v, want the call that created the task", name, s.Links())
			}
		}
	}
	if linked["tasks/get"] == 0 || linked["tasks/update"] != 1 {
		t.Errorf("tasks/* spans linked to the creating call: %v", linked)
	}
}

// hasEvent reports whether s has an event named name.
func hasEvent(s sdktrace.ReadOnlySpan, name string) bool {
	for _, e := range s.Events() {
		if e.Name == name {
			return true
		}
	}
	return false
}
