package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/internal/testkit/syncbuf"
	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tests of docs/guide/tasks.md#bounds beside those of task_test.go.

// One status stream follows at most machine.MaxListenTaskIDs (64) tasks:
// a listen naming 65 is refused with -32602 saying so, and opens no
// stream; one naming 64 is acknowledged.
func TestTaskListenAtMost64(t *testing.T) {
	limits := &elicitrt.TaskLimits{}
	url := httpTServeAuth(t, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{TaskLimits: limits}, nil))
	alice := httpWireAt(t, url, capsTasks, "tok-alice")
	mine := startBrew(t, alice, map[string]any{})["taskId"].(string)
	ids := []string{mine}
	for i := range taskrun.MaxListenTaskIDs {
		ids = append(ids, fmt.Sprintf("made-up-%d", i))
	}
	status, data := listenRaw(t, url, "tok-alice", ids...)
	var resp struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if json.Unmarshal(data, &resp) != nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams ||
		resp.Error.Message != "subscriptions/listen: at most 64 taskIds" {
		t.Fatalf("a listen of %d task ids: HTTP %d %s", len(ids), status, data)
	}
	if n := taskrun.LimiterOf(limits).Streams("alice"); n != 0 {
		t.Errorf("a refused listen holds %d streams", n)
	}
	ack := next(t, listenTasks(t, url, "tok-alice", ids[:taskrun.MaxListenTaskIDs]...))
	if ack["method"] != "notifications/subscriptions/acknowledged" || fmt.Sprint(ack["params"]) != fmt.Sprintf("map[notifications:map[taskIds:[%s]]]", mine) {
		t.Fatalf("a listen of 64 task ids: %v", ack)
	}
}

// The log of a bound's refusal, at debug level, names the bound and never
// the user: neither alice's name nor her token is anywhere in the logs.
func TestTaskRefusalLogNamesTheBoundNotTheUser(t *testing.T) {
	var logs syncbuf.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts := &elicitrt.ToolOptions{TaskLimits: &elicitrt.TaskLimits{PerPrincipal: 1}, Tasks: &backend.MemoryTaskStore{}, Logger: logger}
	url := httpTServeAuth(t, brewTool(machine.TaskOptional, opts, nil))
	alice := httpWireAt(t, url, capsTasks, "tok-alice")
	startBrew(t, alice, map[string]any{})
	_, err := createBrew(t, alice, map[string]any{})
	refusedBy(t, err, taskrun.LimitTasksPerPrincipal, "tasks/cancel")
	var refusals int
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["msg"] == "elicitgen: task refused" {
			refusals++
			if rec["level"] != "DEBUG" || !strings.Contains(fmt.Sprint(rec["limit"]), taskrun.LimitTasksPerPrincipal) {
				t.Errorf("refusal logged as %s", line)
			}
		}
	}
	if refusals != 1 {
		t.Errorf("%d refusals logged, want 1:\n%s", refusals, logs.String())
	}
	for _, who := range []string{"alice", "tok-alice"} {
		if strings.Contains(logs.String(), who) {
			t.Errorf("the logs name %q:\n%s", who, logs.String())
		}
	}
}

// A full MemoryTaskStore makes room by dropping an ended task of the user
// creating one, the least recently changed, before anyone else's: bob's
// completed task, the oldest of all, keeps its result while alice, who
// floods the store, has ended tasks of her own to drop; once she has
// none, bob's goes.
func TestTaskStoreDropsTheCreatorsEndedTasksFirst(t *testing.T) {
	store := &backend.MemoryTaskStore{MaxTasks: 3}
	url := httpTServeAuth(t, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: store, Logger: discardLogger()}, nil))
	alice, bob := httpWireAt(t, url, capsTasks, "tok-alice"), httpWireAt(t, url, capsTasks, "tok-bob")
	bobs := startBrew(t, bob, map[string]any{})["taskId"].(string)
	pollUntil(t, bob, bobs, hasStatus(backend.TaskInputRequired))
	bob.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": bobs, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
	pollUntil(t, bob, bobs, hasStatus(backend.TaskCompleted))
	bobKept := func(when string) {
		t.Helper()
		got, err := bob.call(taskrun.MethodTasksGet, map[string]any{"taskId": bobs})
		if err != nil || got["status"] != "completed" || !strings.HasPrefix(resultText(t, got), "large coffee, sugar=true") {
			t.Fatalf("bob's completed task %s: %v %v", when, got, err)
		}
	}
	// Alice's tasks fail at once: ended, each more recent than bob's.
	var failed []string
	for i := range 6 {
		got, err := createBrew(t, alice, map[string]any{"fail": "rpc"})
		if err != nil || got["resultType"] != "task" {
			t.Fatalf("alice's task %d: %v %v", i+1, got, err)
		}
		failed = append(failed, got["taskId"].(string))
		pollUntil(t, alice, failed[i], hasStatus(backend.TaskFailed))
		bobKept(fmt.Sprintf("after alice's task %d", i+1))
		if n := store.Len(); n > 3 {
			t.Fatalf("the store holds %d tasks", n)
		}
	}
	// Two tasks of alice that wait take the room of her two ended ones.
	for i := range 2 {
		startBrew(t, alice, map[string]any{})
		bobKept(fmt.Sprintf("after alice's waiting task %d", i+1))
	}
	// Alice has no ended task left: the next drops bob's.
	if got, err := createBrew(t, alice, map[string]any{}); err != nil || got["resultType"] != "task" {
		t.Fatalf("alice's task with only bob's ended: %v %v", got, err)
	}
	if _, err := bob.call(taskrun.MethodTasksGet, map[string]any{"taskId": bobs}); err == nil || err.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("bob's task once alice had no ended task to drop: %v", err)
	}
}

// A tools/call that a bound refuses creates nothing, and its questions
// before the task stay answered: once there is room, the same retry (its
// requestState and inputResponses, sent again as they were) creates the
// task, with the answers it carried. Also for a tool whose last step
// before the task is once, whose completion is single use.
func TestTaskRefusedRetryWorksLater(t *testing.T) {
	t.Run("brew", func(t *testing.T) {
		store := &backend.MemoryTaskStore{}
		opts := &elicitrt.ToolOptions{Tasks: store, TaskLimits: &elicitrt.TaskLimits{PerPrincipal: 1}, Logger: discardLogger()}
		w := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, opts, nil))
		first := startBrew(t, w, map[string]any{})["taskId"].(string)
		round := w.must("tools/call", map[string]any{"name": "brew", "arguments": map[string]any{}})
		retry := func() (map[string]any, *jsonrpc.Error) {
			return w.call("tools/call", map[string]any{"name": "brew", "arguments": map[string]any{},
				"inputResponses": map[string]any{"size": accept(map[string]any{"size": "small"})}, "requestState": round["requestState"]})
		}
		_, err := retry()
		refusedBy(t, err, taskrun.LimitTasksPerPrincipal, "tasks/cancel")
		if n := store.Len(); n != 1 {
			t.Fatalf("after a refusal the store holds %d tasks, want 1", n)
		}
		w.must(taskrun.MethodTasksCancel, map[string]any{"taskId": first})
		got, err := retry()
		if err != nil || got["resultType"] != "task" {
			t.Fatalf("the same retry once there is room: %v %v", got, err)
		}
		id := got["taskId"].(string)
		if n := store.Len(); n != 2 {
			t.Errorf("the store holds %d tasks, want 2", n)
		}
		pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
		if got := resultText(t, pollUntil(t, w, id, hasStatus(backend.TaskCompleted))); !strings.HasPrefix(got, "small coffee, sugar=true") {
			t.Errorf("result %q", got)
		}
	})
	t.Run("once", func(t *testing.T) {
		store := &backend.MemoryTaskStore{}
		opts := &elicitrt.ToolOptions{Tasks: store, TaskLimits: &elicitrt.TaskLimits{PerPrincipal: 1}, Replay: &backend.MemoryReplayGuard{}, Logger: discardLogger()}
		w := memoryWire(t, capsTasks, launchTool(opts))
		launch := func() (map[string]any, func() (map[string]any, *jsonrpc.Error)) {
			round := w.must("tools/call", map[string]any{"name": "launch", "arguments": map[string]any{}})
			return round, func() (map[string]any, *jsonrpc.Error) {
				return w.call("tools/call", map[string]any{"name": "launch", "arguments": map[string]any{},
					"inputResponses": map[string]any{"go": accept(map[string]any{"go": true})}, "requestState": round["requestState"]})
			}
		}
		_, retry := launch()
		created, err := retry()
		if err != nil || created["resultType"] != "task" {
			t.Fatalf("the first launch: %v %v", created, err)
		}
		defer w.must(taskrun.MethodTasksCancel, map[string]any{"taskId": created["taskId"]})
		_, retry = launch()
		_, err = retry()
		refusedBy(t, err, taskrun.LimitTasksPerPrincipal, "tasks/cancel")
		if n := store.Len(); n != 1 {
			t.Fatalf("after a refusal the store holds %d tasks, want 1", n)
		}
		w.must(taskrun.MethodTasksCancel, map[string]any{"taskId": created["taskId"]})
		got, err := retry()
		if err != nil || got["resultType"] != "task" {
			t.Fatalf("the same retry once there is room: %v %v", got, err)
		}
		// And its completion is still single use, once there is room too.
		w.must(taskrun.MethodTasksCancel, map[string]any{"taskId": got["taskId"]})
		if _, err := retry(); err == nil || err.Code != jsonrpc.CodeInvalidParams || err.Message != "requestState already used" {
			t.Errorf("the retry sent a third time: %v", err)
		}
		if n := store.Len(); n != 2 {
			t.Errorf("the store holds %d tasks, want 2", n)
		}
	})
}

// launchTool is a task tool whose one step, before the task, is a once
// confirmation; its Run waits until the task is cancelled.
func launchTool(opts *elicitrt.ToolOptions) func(*mcp.Server) {
	return func(s *mcp.Server) {
		steps := []machine.Step{{Key: "go", Mode: machine.ModeForm, Message: "Launch?", Once: true, Params: brewForm("go", "boolean"), Check: brewCheck("go", isBool)}}
		flow := machine.Flow{Tasks: machine.TaskOptional,
			Ended: func(context.Context, *mcp.CallToolRequest, any, int, string, machine.Answers) (*mcp.CallToolResult, error) {
				return elicitrt.Text("not launched"), nil
			},
			Run: func(ctx context.Context, _ *machine.Task, _ *mcp.CallToolRequest, _ any, _ machine.Answers) (*mcp.CallToolResult, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}}
		m := machine.NewMachine("launch", steps, flow, opts)
		Enable(s, m)
		machine.AddTool[struct{}](s, &mcp.Tool{Name: "launch", InputSchema: json.RawMessage(`{"type":"object"}`)}, m)
	}
}
