package tasks

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// taskError is the message of a failed task's error, as tasks/get shows it.
func taskError(task map[string]any) string {
	e, _ := task["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}

// A running task's lease is renewed: with a lease of 200 ms, a task
// waiting for an answer for six leases is still waiting, then completes.
func TestTaskLeaseRenewed(t *testing.T) {
	opts := &elicitrt.ToolOptions{TaskLease: 200 * time.Millisecond, Logger: discardLogger()}
	bothWires(t, capsTasks, brewTool(machine.TaskOptional, opts, nil), func(t *testing.T, w *taskWire) {
		id := startBrew(t, w, map[string]any{})["taskId"].(string)
		pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
		time.Sleep(1200 * time.Millisecond)
		if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": id}); got["status"] != string(backend.TaskInputRequired) {
			t.Fatalf("after six leases: %v", got)
		}
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
		pollUntil(t, w, id, hasStatus(backend.TaskCompleted))
	})
}

// Two instances share a store. The instance running a task loses the
// store (as a dead one would stop renewing); the other instance's
// tasks/get fails the task within the lease and a poll, saying the server
// stopped, not "internal error". When the first comes back, its Run is
// cancelled and the task stays failed.
func TestTaskLeaseLapses(t *testing.T) {
	shared := &backend.MemoryTaskStore{}
	parted := &flakyStore{TaskStore: shared}
	const lease = 300 * time.Millisecond
	runs := &brewRun{ended: make(chan error, 1)}
	a := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: parted, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}, runs))
	b := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: shared, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}, nil))
	id := startBrew(t, a, map[string]any{})["taskId"].(string)
	pollUntil(t, b, id, hasStatus(backend.TaskInputRequired))
	parted.down.Store(true)
	cut := time.Now()
	failed := pollUntil(t, b, id, hasStatus(backend.TaskFailed))
	took := time.Since(cut)
	if msg := taskError(failed); msg != taskrun.ErrServerStopped.Message {
		t.Errorf("failed with %q, want %q", msg, taskrun.ErrServerStopped.Message)
	}
	if took > lease+time.Second {
		t.Errorf("failed %v after the instance stopped, want within the lease (%v) and a poll", took, lease)
	}
	t.Logf("failed %v after the instance stopped renewing (lease %v)", took, lease)
	parted.down.Store(false)
	select {
	case err := <-runs.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the Run of the stopped instance ended with %v, want cancelled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the Run of the stopped instance was not cancelled once it saw the task failed")
	}
	time.Sleep(100 * time.Millisecond)
	if got := b.must(taskrun.MethodTasksGet, map[string]any{"taskId": id}); taskError(got) != taskrun.ErrServerStopped.Message {
		t.Errorf("after the instance came back: %v", got)
	}
}

// A record left by a dead instance (its lease in the past) fails at the
// next tasks/get or tasks/update, on any instance, and a tasks/cancel
// cancels it; a record of a release before leases (no lease) never fails.
func TestTaskLeaseLapsedRecord(t *testing.T) {
	store := &backend.MemoryTaskStore{}
	w := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: store, Logger: discardLogger()}, nil))
	now := time.Now()
	for id, lease := range map[string]time.Time{"dead": now.Add(-time.Second), "old": {}, "dropped": now.Add(-time.Second)} {
		rec := &backend.TaskRecord{Format: backend.TaskRecordFormat, ID: id, Tool: "brew", Status: backend.TaskInputRequired,
			CreatedAt: now, UpdatedAt: now, Expires: now.Add(time.Hour), LeaseUntil: lease}
		if err := store.Create(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": "dead", "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}}); !isAck(got) {
		t.Fatalf("tasks/update: %v", got)
	}
	got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": "dead"})
	if got["status"] != string(backend.TaskFailed) || !strings.Contains(taskError(got), "server stopped") || got["inputRequests"] != nil {
		t.Errorf("a task whose lease lapsed: %v", got)
	}
	if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": "old"}); got["status"] != string(backend.TaskInputRequired) {
		t.Errorf("a task without a lease: %v", got)
	}
	w.must(taskrun.MethodTasksCancel, map[string]any{"taskId": "dropped"})
	if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": "dropped"}); got["status"] != string(backend.TaskCancelled) {
		t.Errorf("a task whose lease lapsed, cancelled: %v", got)
	}
}

// Drain: a task still running at the end of the drain period fails saying
// the server shut down, and its Run returns; a task that finishes within
// the period completes; no task starts during the drain; Drain returns
// within the period and a second, with the number failed.
func TestTaskDrain(t *testing.T) {
	limits := &elicitrt.TaskLimits{}
	runs := &brewRun{ended: make(chan error, 2)}
	w := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{TaskLimits: limits, Logger: discardLogger()}, runs))
	stays := startBrew(t, w, map[string]any{})["taskId"].(string)
	ends := startBrew(t, w, map[string]any{})["taskId"].(string)
	pollUntil(t, w, ends, hasStatus(backend.TaskInputRequired))
	// The period leaves a loaded machine time to answer ends within it.
	const drain = 1500 * time.Millisecond
	start := time.Now()
	drained := make(chan int, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), drain)
		defer cancel()
		drained <- taskrun.LimiterOf(limits).Drain(ctx)
	}()
	time.Sleep(50 * time.Millisecond)
	_, err := createBrew(t, w, map[string]any{})
	refusedBy(t, err, taskrun.LimitShuttingDown, "call again")
	w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": ends, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": false})}})
	failed := <-drained
	if took := time.Since(start); took < drain || took > drain+time.Second {
		t.Errorf("Drain returned after %v, want within %v and a second", took, drain)
	}
	if failed != 1 {
		t.Errorf("Drain failed %d tasks, want 1", failed)
	}
	if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": ends}); got["status"] != string(backend.TaskCompleted) {
		t.Errorf("the task answered during the drain: %v", got)
	}
	if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": stays}); taskError(got) != taskrun.ErrServerShutDown.Message {
		t.Errorf("the task still running at the end of the drain: %v", got)
	}
	for range 2 {
		select {
		case <-runs.ended:
		default:
			t.Fatal("a Run had not returned when Drain did")
		}
	}
	if n := taskrun.LimiterOf(limits).Running(); n != 0 {
		t.Errorf("%d tasks still counted as running", n)
	}
}

// A status stream sends nothing for a lease renewed (a change the client
// cannot see): a task waiting for six leases sends its input_required
// notification once; and once the instance running it stops renewing, the
// stream, on the other instance, sends the failure without any request.
func TestTaskStreamLeases(t *testing.T) {
	shared := &backend.MemoryTaskStore{}
	parted := &flakyStore{TaskStore: shared}
	const lease = 200 * time.Millisecond
	urlA := httpTServeAuth(t, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: parted, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}, nil))
	urlB := httpTServeAuth(t, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: shared, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}, nil))
	a := httpWireAt(t, urlA, capsTasks, "tok-alice")
	id := startBrew(t, a, map[string]any{})["taskId"].(string)
	pollUntil(t, a, id, hasStatus(backend.TaskInputRequired))
	stream := listenTasks(t, urlB, "tok-alice", id)
	next(t, stream) // the acknowledgement
	if p := next(t, stream)["params"].(map[string]any); p["status"] != string(backend.TaskInputRequired) {
		t.Fatalf("first notification %v", p)
	}
	select {
	case m := <-stream:
		t.Fatalf("a notification while only the lease was renewed: %v", m)
	case <-time.After(6 * lease):
	}
	parted.down.Store(true)
	p := next(t, stream)["params"].(map[string]any)
	if p["status"] != string(backend.TaskFailed) || taskError(p) != taskrun.ErrServerStopped.Message {
		t.Fatalf("after the instance stopped renewing: %v", p)
	}
}
