package tasks

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// pauseTool is a task tool whose Run asks sugar, tells the test the
// outcome it got, and waits for the test to let it end.
func pauseTool(got chan<- elicitrt.Outcome, release <-chan struct{}) func(*mcp.Server) {
	return func(s *mcp.Server) {
		steps := []machine.Step{{Key: "sugar", Mode: machine.ModeForm, Message: "Sugar?", During: true, Params: brewForm("sugar", "boolean"), Check: brewCheck("sugar", isBool)}}
		flow := machine.Flow{Tasks: machine.TaskOptional,
			Run: func(ctx context.Context, task *machine.Task, _ *mcp.CallToolRequest, _ any, _ machine.Answers) (*mcp.CallToolResult, error) {
				r, err := task.Ask(ctx, 0)
				if err != nil {
					return nil, err
				}
				got <- r.Outcome
				<-release
				return elicitrt.Text(string(r.Outcome)), nil
			}}
		m := machine.NewMachine("pause", steps, flow, &elicitrt.ToolOptions{Logger: discardLogger()})
		Enable(s, m)
		machine.AddTool[struct{}](s, &mcp.Tool{Name: "pause", InputSchema: json.RawMessage(`{"type":"object"}`)}, m)
	}
}

// TestTaskStatusSaysWhatIsTrue: while a task waits for an answer its
// status message says so, with the question; once the answer is accepted
// or declined (before: a declined task stayed input_required) the task is
// working and no message is left (neither "Waiting for your answer" nor
// the resuming one), nor once it completed (before: a completed task still
// read "Waiting for your answer").
func TestTaskStatusSaysWhatIsTrue(t *testing.T) {
	for _, reply := range []map[string]any{accept(map[string]any{"sugar": true}), {"action": "decline"}} {
		got, release := make(chan elicitrt.Outcome, 1), make(chan struct{})
		w := memoryWire(t, capsTasks, pauseTool(got, release))
		id := w.must("tools/call", map[string]any{"name": "pause", "arguments": map[string]any{}})["taskId"].(string)
		asked := pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
		if asked["statusMessage"] != taskrun.WaitingPrefix+"Sugar?" {
			t.Fatalf("waiting: %v", asked["statusMessage"])
		}
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": reply}})
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not get the reply")
		}
		working := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": id})
		if msg, _ := working["statusMessage"].(string); working["status"] != string(backend.TaskWorking) || msg != "" {
			t.Errorf("%v answered: %v %q", reply["action"], working["status"], msg)
		}
		close(release)
		done := pollUntil(t, w, id, hasStatus(backend.TaskCompleted))
		if msg, _ := done["statusMessage"].(string); msg != "" {
			t.Errorf("%v, completed: %q", reply["action"], msg)
		}
	}
}

// TestTaskResumingAfterAnswer: a task whose instance stopped while it
// waited, whose question was answered since, with its lease not run out
// yet (no instance has taken the answer up), is shown by tasks/get as
// working and resuming (before: working, "Waiting for your answer").
func TestTaskResumingAfterAnswer(t *testing.T) {
	store := &backend.MemoryTaskStore{}
	w := memoryWire(t, capsTasks, (&survey{}).tool(&elicitrt.ToolOptions{Tasks: store, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}))
	now := time.Now()
	rec := &backend.TaskRecord{Format: backend.TaskRecordFormat, ID: "gone", Tool: "survey", Status: backend.TaskInputRequired,
		StatusMessage: taskrun.WaitingPrefix + "Sugar?", CreatedAt: now, UpdatedAt: now, Expires: now.Add(time.Hour),
		LeaseUntil: now.Add(time.Hour), Runner: "an instance that stopped",
		InputRequests: map[string]json.RawMessage{"sugar": json.RawMessage(`{"method":"elicitation/create","params":{"mode":"form","message":"Sugar?"}}`)}}
	if err := store.Create(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": "gone"}); got["statusMessage"] != taskrun.WaitingPrefix+"Sugar?" {
		t.Fatalf("not answered yet: %v", got["statusMessage"])
	}
	w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": "gone", "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
	if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": "gone"}); got["statusMessage"] != taskrun.Resuming || got["status"] != string(backend.TaskWorking) {
		t.Fatalf("answered, no instance running it: %v %v", got["status"], got["statusMessage"])
	}
}
