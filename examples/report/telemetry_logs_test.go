package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/oteltest"
)

// flakyTasks is a task store whose first Update fails.
type flakyTasks struct {
	backend.TaskStore
	failed atomic.Bool
}

func (f *flakyTasks) Update(ctx context.Context, id string, change func(*backend.TaskRecord) error) (*backend.TaskRecord, error) {
	if f.failed.CompareAndSwap(false, true) {
		return nil, errors.New("store down")
	}
	return f.TaskStore.Update(ctx, id, change)
}

// TestTelemetryTaskLogs: a task's record (its store failed once) names
// the tool and the flow, by the digest the creating call's span carries as
// elicitgen.flow.id, and none of the flow's values.
func TestTelemetryTaskLogs(t *testing.T) {
	t.Parallel()
	rec := oteltest.New(t)
	var logs hosttest.LogBuffer
	w := memoryWire(t, newServer(&elicitrt.ToolOptions{Keys: reportKeys, Hooks: rec.Hooks,
		Tasks:  &flakyTasks{TaskStore: &backend.MemoryTaskStore{}},
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))}))
	w.must("server/discover", nil)
	id := w.createTask(map[string]any{"topic": "topic-x7q2", "seconds": 1}, "html")
	w.poll(id, 10*time.Second, asks("salaries"))
	w.must("tasks/cancel", map[string]any{"taskId": id})
	var flows []string
	for _, s := range rec.Ended() {
		if a := oteltest.SpanAttrs(s); s.Name() == "tools/call report" && a["elicitgen.flow.id"] != "" {
			flows = append(flows, a["elicitgen.flow.id"])
		}
	}
	if len(flows) != 2 || flows[0] != flows[1] || len(flows[0]) != 16 {
		t.Fatalf("flow ids %v, want one of 16 digits on both calls", flows)
	}
	var records int
	for line := range strings.Lines(logs.String()) {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r["task"] != id {
			continue
		}
		records++
		if r["flow"] != flows[0] || r["tool"] != "report" {
			t.Errorf("record %v, want flow %s and tool report", r, flows[0])
		}
	}
	if records == 0 || strings.Contains(logs.String(), "topic-x7q2") {
		t.Errorf("%d records about the task, or the topic in:\n%s", records, logs.String())
	}
}
