package tasks

import (
	"bytes"
	"regexp"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// TestTaskWaitingGoroutines counts the goroutines that a task nobody
// answers holds while it waits (docs/guide/tasks.md, TTL): those whose stack
// runs, or was started by, a method of its taskrun.Job. Eight tasks wait
// for their answer; each holds one, its work, parked in Run's Ask (which
// watches for a cancel meanwhile: no watcher beside it), counted from the
// goroutine profile, not from
// runtime.NumGoroutine's total, which other goroutines move: only the
// goroutines of this test's own tasks count (a task another test left
// waiting does not).
func TestTaskWaitingGoroutines(t *testing.T) {
	const tasks, perTask = 8, 1
	runs := &brewRun{ended: make(chan error, tasks)}
	w := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: &backend.MemoryTaskStore{}, TaskTTL: time.Hour}, runs))
	var ids []string
	for range tasks {
		ids = append(ids, startBrew(t, w, map[string]any{})["taskId"].(string))
	}
	for _, id := range ids {
		pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
	}
	var profile bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&profile, 2); err != nil {
		t.Fatal(err)
	}
	held := ownTaskGoroutines(profile.String(), "TestTaskWaitingGoroutines")
	if held != tasks*perTask {
		t.Errorf("%d tasks waiting hold %d goroutines, want %d each:\n%s", tasks, held, perTask, profile.String())
	}
	// machine.Cancelled, they end: no goroutine left for the tests after this one.
	for _, id := range ids {
		if _, err := w.call(taskrun.MethodTasksCancel, map[string]any{"taskId": id}); err != nil {
			t.Fatalf("cancel %s: %v", id, err)
		}
	}
	for range ids {
		select {
		case <-runs.ended:
		case <-time.After(10 * time.Second):
			t.Fatal("a cancelled task's Run did not end")
		}
	}
}

// taskFrame finds the receiver of a method of taskrun.Job in a goroutine's stack.
var taskFrame = regexp.MustCompile(`elicitgen/internal/taskrun\.\(\*Job\)\.\w+\((0x[0-9a-f]+)`)

// ownTaskGoroutines counts the goroutines of profile (debug=2) that run a
// method of a taskrun.Job whose work runs a handler of test.
func ownTaskGoroutines(profile, test string) int {
	blocks := strings.Split(profile, "\n\n")
	own := map[string]bool{}
	for _, g := range blocks {
		if m := taskFrame.FindStringSubmatch(g); m != nil && strings.Contains(g, test) {
			own[m[1]] = true
		}
	}
	held := 0
	for _, g := range blocks {
		if m := taskFrame.FindStringSubmatch(g); m != nil && own[m[1]] {
			held++
		}
	}
	return held
}
