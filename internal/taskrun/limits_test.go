package taskrun

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// refusedFor reports the bound a CodeTaskLimit error names.
func refusedFor(t *testing.T, e *jsonrpc.Error) string {
	t.Helper()
	if e == nil {
		t.Fatal("admitted, want a refusal")
	}
	if e.Code != CodeTaskLimit {
		t.Fatalf("code %d, want %d", e.Code, CodeTaskLimit)
	}
	var data struct{ Limit string }
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatal(err)
	}
	return data.Limit
}

// TestLimiterBounds: a principal's tasks are bounded until they end, the
// process's until their goroutines return, and the state is one per
// TaskLimits value.
func TestLimiterBounds(t *testing.T) {
	limits := &elicitrt.TaskLimits{MaxRunning: 3, PerPrincipal: 2}
	l := LimiterOf(limits)
	if LimiterOf(limits) != l || LimiterOf(&elicitrt.TaskLimits{}) == l {
		t.Fatal("LimiterOf is not one Limiter per TaskLimits")
	}
	if LimiterOf(nil) != LimiterOf(elicitrt.DefaultTaskLimits()) {
		t.Fatal("LimiterOf(nil) is not the default's")
	}
	a1, e := l.Admit("alice", "t1")
	if e != nil {
		t.Fatal(e)
	}
	if _, e := l.Admit("alice", "t2"); e != nil {
		t.Fatal(e)
	}
	if _, e := l.Admit("alice", "t3"); refusedFor(t, e) != LimitTasksPerPrincipal {
		t.Fatalf("alice's third task: %v", e)
	}
	if _, e := l.Admit("bob", "t4"); e != nil {
		t.Fatal(e)
	}
	if _, e := l.Admit("carol", "t5"); refusedFor(t, e) != LimitRunningTasks {
		t.Fatalf("the fourth task: %v", e)
	}
	a1.Ended() // alice may start another; the process still runs three
	if _, e := l.Admit("carol", "t5"); refusedFor(t, e) != LimitRunningTasks {
		t.Fatalf("after an end, before its goroutines returned: %v", e)
	}
	a1.Release()
	if _, e := l.Admit("alice", "t6"); e != nil {
		t.Fatalf("after a release: %v", e)
	}
	if got := l.Running(); got != 3 {
		t.Fatalf("Running %d, want 3", got)
	}
}

// TestLimiterStreams: a principal's status streams are bounded until closed.
func TestLimiterStreams(t *testing.T) {
	l := LimiterOf(&elicitrt.TaskLimits{StreamsPerPrincipal: 1})
	done, e := l.OpenStream("alice")
	if e != nil {
		t.Fatal(e)
	}
	if _, e := l.OpenStream("alice"); refusedFor(t, e) != LimitTaskStreamsPerPrincipal {
		t.Fatalf("a second stream: %v", e)
	}
	done()
	if got := l.Streams("alice"); got != 0 {
		t.Fatalf("Streams %d after close", got)
	}
}

// TestLimiterDrain: a drain admits nothing more, stops what still runs
// when its period ends, and counts the tasks it stopped.
func TestLimiterDrain(t *testing.T) {
	l := LimiterOf(&elicitrt.TaskLimits{})
	ticket, e := l.Admit("alice", "t1")
	if e != nil {
		t.Fatal(e)
	}
	stopped := make(chan struct{})
	ticket.Start(func() { close(stopped); go ticket.Release() })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if n := l.Drain(ctx); n != 1 {
		t.Fatalf("Drain stopped %d tasks, want 1", n)
	}
	select {
	case <-stopped:
	default:
		t.Fatal("the running task was not stopped")
	}
	if _, e := l.Admit("bob", "t2"); refusedFor(t, e) != LimitShuttingDown {
		t.Fatalf("admitted after the drain: %v", e)
	}
	late, _ := LimiterOf(&elicitrt.TaskLimits{}).Admit("carol", "t3") // another Limiter: not draining
	if late == nil {
		t.Fatal("another TaskLimits drained too")
	}
}

// TestLeaseLapsed: a lease lapses after its time, never for a record
// without one (an older release's) or an ended task.
func TestLeaseLapsed(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	rec := &backend.TaskRecord{Status: backend.TaskWorking, LeaseUntil: now}
	if LeaseLapsed(rec, now) || !LeaseLapsed(rec, now.Add(time.Nanosecond)) {
		t.Fatal("a lease lapses after its time, not at it")
	}
	if LeaseLapsed(&backend.TaskRecord{Status: backend.TaskWorking}, now) {
		t.Fatal("a record without a lease lapsed")
	}
	rec.Status = backend.TaskCompleted
	if LeaseLapsed(rec, now.Add(time.Hour)) || LeaseLapsed(nil, now) {
		t.Fatal("an ended task, or none, lapsed")
	}
}
