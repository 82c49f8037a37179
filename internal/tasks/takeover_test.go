package tasks

import (
	"context"
	"strings"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// An instance that does not serve a restartable task's tool (it serves
// another task tool on the same store) fails the task it finds lapsed,
// saying the server stopped; it does not leave it waiting.
func TestTaskTakeoverToolNotServed(t *testing.T) {
	s := &survey{}
	shared := &backend.MemoryTaskStore{}
	parted := &flakyStore{TaskStore: shared}
	const lease = 300 * time.Millisecond
	a := memoryWire(t, capsTasks, s.tool(&elicitrt.ToolOptions{Tasks: parted, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}))
	b := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: shared, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}, nil))
	id := toMilk(t, a, b, map[string]any{}, true)
	parted.down.Store(true)
	defer parted.down.Store(false)
	failed := pollUntil(t, b, id, hasStatus(backend.TaskFailed))
	if msg := taskError(failed); msg != taskrun.ErrServerStopped.Message {
		t.Errorf("failed with %q, want %q", msg, taskrun.ErrServerStopped.Message)
	}
	if n := s.runs.Load(); n != 1 {
		t.Errorf("%d runs, want the first only", n)
	}
}

// An instance whose TaskLimits refuse (at its running bound) leaves a
// lapsed restartable task as it is, waiting, neither failed nor taken;
// once a task of its own ended and left room, the next tasks/get
// restarts it, and it completes with the answer given before.
func TestTaskTakeoverAtLimit(t *testing.T) {
	sa, sb := &survey{}, &survey{}
	shared := &backend.MemoryTaskStore{}
	parted := &flakyStore{TaskStore: shared}
	const lease = 300 * time.Millisecond
	limitsB := &elicitrt.TaskLimits{MaxRunning: 1}
	a := memoryWire(t, capsTasks, sa.tool(&elicitrt.ToolOptions{Tasks: parted, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}))
	b := memoryWire(t, capsTasks, sb.tool(&elicitrt.ToolOptions{Tasks: shared, TaskLease: lease, TaskLimits: limitsB, Logger: discardLogger()}))
	own := b.must("tools/call", map[string]any{"name": "survey", "arguments": map[string]any{}})["taskId"].(string)
	pollUntil(t, b, own, asking("sugar"))
	waitRunning(t, limitsB, 1)
	id := toMilk(t, a, b, map[string]any{}, true)
	parted.down.Store(true)
	defer parted.down.Store(false)
	for deadline := time.Now().Add(3 * lease); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got := b.must(taskrun.MethodTasksGet, map[string]any{"taskId": id})
		if !asking("milk")(got) || got["statusMessage"] == "restarted after its server stopped" {
			t.Fatalf("the lapsed task, on an instance at its bound: %v", got)
		}
	}
	if rec, _ := shared.Get(context.Background(), id); !taskrun.LeaseLapsed(rec, time.Now()) || rec.Replay.Restarts != 0 {
		t.Fatalf("after three leases the record has lease until %v, %d restarts", rec.LeaseUntil, rec.Replay.Restarts)
	}
	answer(t, b, id, "milk", false) // kept in the record, for the run that takes the task
	if n := sb.runs.Load(); n != 1 {
		t.Fatalf("%d runs on the instance at its bound, want its own task's only", n)
	}
	b.must(taskrun.MethodTasksCancel, map[string]any{"taskId": own})
	waitRunning(t, limitsB, 0)
	done := pollUntil(t, b, id, hasStatus(backend.TaskCompleted))
	if got := resultText(t, done); !strings.HasPrefix(got, "sugar=true milk=false") {
		t.Errorf("result %q", got)
	}
	if n := sb.runs.Load(); n != 2 {
		t.Errorf("%d runs on the second instance, want its own task's and the restart", n)
	}
}
