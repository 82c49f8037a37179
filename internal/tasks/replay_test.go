package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// surveyArgs are the arguments of the survey tool.
type surveyArgs struct {
	After  int `json:"after,omitempty"`  // milliseconds of work after the last answer
	Sugars int `json:"sugars,omitempty"` // asks of sugar before milk (default 1)
}

// survey is a restartable task tool asking sugar, then milk, each on its
// own; runs counts the starts of its Run; swap makes every run after the
// first ask milk first.
type survey struct {
	runs  atomic.Int32
	swap  bool
	ended chan error
	// working, when set, receives once a run has every answer and works
	// on (writing nothing to its task).
	working chan struct{}
	// started, when set, is called as each run starts, with its context
	// and request.
	started func(ctx context.Context, req *mcp.CallToolRequest)
}

// surveySteps is the survey tool's step table.
func surveySteps() []machine.Step {
	return []machine.Step{
		{Key: "sugar", Mode: machine.ModeForm, Message: "Sugar?", During: true, Params: brewForm("sugar", "boolean"), Check: brewCheck("sugar", isBool)},
		{Key: "milk", Mode: machine.ModeForm, Message: "Milk?", During: true, Params: brewForm("milk", "boolean"), Check: brewCheck("milk", isBool)},
	}
}

func (s *survey) tool(opts *elicitrt.ToolOptions) func(*mcp.Server) {
	return func(srv *mcp.Server) {
		steps := surveySteps()
		flow := machine.Flow{Tasks: machine.TaskOptional, Run: s.run,
			Restart: func(raw json.RawMessage) (any, error) {
				var a surveyArgs
				err := json.Unmarshal(raw, &a)
				return a, err
			}}
		m := machine.NewMachine("survey", steps, flow, opts)
		Enable(srv, m)
		machine.AddTool[surveyArgs](srv, &mcp.Tool{Name: "survey", InputSchema: json.RawMessage(`{"type":"object","properties":{"after":{"type":"integer"},"sugars":{"type":"integer"}}}`)}, m)
	}
}

func (s *survey) run(ctx context.Context, task *machine.Task, req *mcp.CallToolRequest, a any, _ machine.Answers) (res *mcp.CallToolResult, err error) {
	if s.started != nil {
		s.started(ctx, req)
	}
	n := s.runs.Add(1)
	defer func() {
		if s.ended != nil {
			s.ended <- err
		}
	}()
	order := []int{0, 1}
	if s.swap && n > 1 {
		order = []int{1, 0}
	}
	got := map[int]any{}
	for range a.(surveyArgs).Sugars - 1 {
		if _, err := task.Ask(ctx, 0); err != nil {
			return nil, err
		}
	}
	for _, j := range order {
		r, err := task.Ask(ctx, j)
		if err != nil {
			return nil, err
		}
		got[j] = r.Content(j)[[]string{"sugar", "milk"}[j]]
	}
	if s.working != nil {
		s.working <- struct{}{}
	}
	select {
	case <-time.After(time.Duration(a.(surveyArgs).After) * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return elicitrt.Text(fmt.Sprintf("sugar=%v milk=%v runs=%d", got[0], got[1], n)), nil
}

// twoInstances serves s on two instances sharing a store; the first can be
// cut off from it.
func twoInstances(t *testing.T, s *survey, lease time.Duration) (a, b *taskWire, cut *atomic.Bool) {
	shared := &backend.MemoryTaskStore{}
	parted := &flakyStore{TaskStore: shared}
	a = memoryWire(t, capsTasks, s.tool(&elicitrt.ToolOptions{Tasks: parted, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}))
	b = memoryWire(t, capsTasks, s.tool(&elicitrt.ToolOptions{Tasks: shared, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}))
	return a, b, &parted.down
}

// asking is the condition of a task waiting for exactly the step key.
func asking(key string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		reqs, _ := m["inputRequests"].(map[string]any)
		_, ok := reqs[key]
		return m["status"] == string(backend.TaskInputRequired) && ok && len(reqs) == 1
	}
}

// toMilk creates a survey task on a with args, answers its sugar question
// through b and waits until it asks milk; it returns the task id.
func toMilk(t *testing.T, a, b *taskWire, args map[string]any, sugar bool) string {
	t.Helper()
	id := a.must("tools/call", map[string]any{"name": "survey", "arguments": args})["taskId"].(string)
	pollUntil(t, b, id, asking("sugar"))
	answer(t, b, id, "sugar", sugar)
	pollUntil(t, b, id, asking("milk"))
	return id
}

func answer(t *testing.T, w *taskWire, id, key string, v bool) {
	t.Helper()
	w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{key: accept(map[string]any{key: v})}})
}

// A restartable task whose instance stops (cut off from the store) is run
// again by the instance that finds its lease lapsed: the answered question
// is replayed, not asked again; the open one is asked, under the same key
// (the status message says so: waiting for the milk answer).
// The first instance, back before the task ends, finds the task taken and
// stops its run, writing nothing; the task completes on the second.
func TestTaskRestartReplays(t *testing.T) {
	s := &survey{ended: make(chan error, 2)}
	a, b, cut := twoInstances(t, s, 300*time.Millisecond)
	id := toMilk(t, a, b, map[string]any{}, true)
	cut.Store(true)
	// The restarted run asks milk again: its status message says so.
	pollUntil(t, b, id, func(m map[string]any) bool {
		return s.runs.Load() == 2 && asking("milk")(m) && m["statusMessage"] == taskrun.WaitingPrefix+"Milk?"
	})
	cut.Store(false)
	select {
	case err := <-s.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the first run ended with %v, want cancelled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first instance's run goes on after its task was taken")
	}
	answer(t, b, id, "milk", false)
	done := pollUntil(t, b, id, hasStatus(backend.TaskCompleted))
	if got := resultText(t, done); got != "sugar=true milk=false runs=2" {
		t.Errorf("result %q", got)
	}
	<-s.ended
}

// An answer given while no instance runs the task (after its instance
// stopped, before another restarts it) counts: the restarted run takes it
// and the person is not asked again.
func TestTaskRestartKeepsAnswerGivenMeanwhile(t *testing.T) {
	s := &survey{}
	a, b, cut := twoInstances(t, s, 500*time.Millisecond)
	id := toMilk(t, a, b, map[string]any{"after": 100}, false)
	cut.Store(true)
	answer(t, b, id, "milk", true) // the lease has not lapsed yet: stored
	done := pollUntil(t, b, id, hasStatus(backend.TaskCompleted))
	if got := resultText(t, done); got != "sugar=false milk=true runs=2" {
		t.Errorf("result %q", got)
	}
}

// An answer given while no instance ran the task counts under any key the
// record was asking: the restarted run asks the open question under its
// key, a re-ask's milk.2 (after an invalid answer) or sugar.2 (the second
// Ask of a step), not the first ask's.
func TestTaskRestartKeepsReaskedAnswer(t *testing.T) {
	reply := func(w *taskWire, id, key, prop string, v any) {
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{key: accept(map[string]any{prop: v})}})
	}
	t.Run("reasked", func(t *testing.T) {
		s := &survey{}
		a, b, cut := twoInstances(t, s, 500*time.Millisecond)
		id := toMilk(t, a, b, map[string]any{"after": 100}, false)
		reply(b, id, "milk", "milk", "yes") // invalid: asked again
		pollUntil(t, b, id, asking("milk.2"))
		cut.Store(true)
		reply(b, id, "milk.2", "milk", true)
		done := pollUntil(t, b, id, hasStatus(backend.TaskCompleted))
		if got := resultText(t, done); got != "sugar=false milk=true runs=2" {
			t.Errorf("result %q", got)
		}
	})
	t.Run("asked twice", func(t *testing.T) {
		s := &survey{}
		a, b, cut := twoInstances(t, s, 500*time.Millisecond)
		id := a.must("tools/call", map[string]any{"name": "survey", "arguments": map[string]any{"sugars": 2}})["taskId"].(string)
		pollUntil(t, b, id, asking("sugar"))
		answer(t, b, id, "sugar", true)
		pollUntil(t, b, id, asking("sugar.2"))
		cut.Store(true)
		reply(b, id, "sugar.2", "sugar", false)
		pollUntil(t, b, id, asking("milk"))
		answer(t, b, id, "milk", true)
		done := pollUntil(t, b, id, hasStatus(backend.TaskCompleted))
		if got := resultText(t, done); got != "sugar=false milk=true runs=2" {
			t.Errorf("result %q", got)
		}
	})
}

// A restarted run that asks other steps than its first run did at the
// same point fails the task, saying so.
func TestTaskRestartDiverged(t *testing.T) {
	s := &survey{swap: true}
	a, b, cut := twoInstances(t, s, 300*time.Millisecond)
	id := toMilk(t, a, b, map[string]any{}, true)
	cut.Store(true)
	failed := pollUntil(t, b, id, hasStatus(backend.TaskFailed))
	if msg := taskError(failed); !strings.Contains(msg, "asked milk where it had asked sugar") {
		t.Errorf("failed with %q", msg)
	}
}

// A task restarted DefaultTaskRestarts times is not restarted again: it fails
// saying the server stopped.
func TestTaskRestartsBounded(t *testing.T) {
	store := &backend.MemoryTaskStore{}
	s := &survey{}
	w := memoryWire(t, capsTasks, s.tool(&elicitrt.ToolOptions{Tasks: store, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}))
	now := time.Now()
	call := json.RawMessage(`{"name":"survey","arguments":{},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}`)
	state := json.RawMessage(`{"v":"` + machine.QuestionsDigest(surveySteps()) + `","s":0,"a":[null,null],"q":[{},{}]}`)
	for id, restarts := range map[string]int{"spent": elicitrt.DefaultTaskRestarts, "fresh": elicitrt.DefaultTaskRestarts - 1} {
		rec := &backend.TaskRecord{Format: backend.TaskRecordFormat, ID: id, Tool: "survey", Status: backend.TaskWorking,
			CreatedAt: now, UpdatedAt: now, Expires: now.Add(time.Hour), LeaseUntil: now.Add(-time.Second), Runner: "dead",
			Replay: &backend.TaskReplay{Call: call, State: state, Restarts: restarts}}
		if err := store.Create(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": "spent"}); taskError(got) != taskrun.ErrServerStopped.Message {
		t.Errorf("a task restarted %d times: %v", elicitrt.DefaultTaskRestarts, got)
	}
	pollUntil(t, w, "fresh", asking("sugar"))
	if n := s.runs.Load(); n != 1 {
		t.Errorf("%d runs, want the one restart", n)
	}
	rec, _ := store.Get(context.Background(), "fresh")
	if rec.Replay.Restarts != elicitrt.DefaultTaskRestarts {
		t.Errorf("restarts recorded %d, want %d", rec.Replay.Restarts, elicitrt.DefaultTaskRestarts)
	}
}

// At the end of a drain a restartable task is handed back, not failed: its
// lease is released at once, and the other instance takes it over at the
// next tasks/get, long before the lease would have lapsed, replaying the
// answer given and asking the open question again.
func TestTaskDrainHandsBack(t *testing.T) {
	s := &survey{}
	shared := &backend.MemoryTaskStore{}
	limitsA := &elicitrt.TaskLimits{}
	const lease = time.Hour // a takeover now is a hand-back, not a lapse
	a := memoryWire(t, capsTasks, s.tool(&elicitrt.ToolOptions{Tasks: shared, TaskLease: lease, TaskLimits: limitsA, Logger: discardLogger()}))
	b := memoryWire(t, capsTasks, s.tool(&elicitrt.ToolOptions{Tasks: shared, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}))
	id := toMilk(t, a, b, map[string]any{}, true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if n := taskrun.LimiterOf(limitsA).Drain(ctx); n != 1 {
		t.Errorf("Drain stopped %d tasks, want 1", n)
	}
	got := b.must(taskrun.MethodTasksGet, map[string]any{"taskId": id})
	if got["status"] == string(backend.TaskFailed) || got["statusMessage"] != "restarted after its server stopped" {
		t.Fatalf("the task handed back, at the next tasks/get on the other instance: %v", got)
	}
	pollUntil(t, b, id, asking("milk"))
	answer(t, b, id, "milk", true)
	if got := resultText(t, pollUntil(t, b, id, hasStatus(backend.TaskCompleted))); got != "sugar=true milk=true runs=2" {
		t.Errorf("result %q", got)
	}
}

// A run that lost its task (its instance was cut off, and another took the
// task over) is cancelled once its instance sees the store again, even
// while it works without writing to the task.
func TestTaskRestartStopsLostRun(t *testing.T) {
	s := &survey{ended: make(chan error, 2), working: make(chan struct{}, 2)}
	a, b, cut := twoInstances(t, s, 300*time.Millisecond)
	id := toMilk(t, a, b, map[string]any{"after": 3000}, true)
	answer(t, b, id, "milk", true)
	<-s.working // the first run took the answer, and works 3 s writing nothing
	cut.Store(true)
	pollUntil(t, b, id, func(map[string]any) bool { return s.runs.Load() == 2 })
	cut.Store(false)
	select {
	case err := <-s.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the first run ended with %v, want cancelled", err)
		}
	case <-time.After(5 * time.Second): // a run going on ends (uncancelled) at 3 s
		t.Fatal("the first run goes on after its task was taken")
	}
	if got := resultText(t, pollUntil(t, b, id, hasStatus(backend.TaskCompleted))); got != "sugar=true milk=true runs=2" {
		t.Errorf("result %q", got)
	}
}

// A restartable task's record keeps at most MaxRecordedAsks replies: a Run
// that asks more is no longer restartable (the record stays small; each
// answer is at most MaxAnswersLen).
func TestTaskRecordedAsksBounded(t *testing.T) {
	store := &backend.MemoryTaskStore{}
	s := &survey{}
	w := memoryWire(t, capsTasks, s.tool(&elicitrt.ToolOptions{Tasks: store, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}))
	id := w.must("tools/call", map[string]any{"name": "survey", "arguments": map[string]any{"sugars": backend.MaxRecordedAsks + 1}})["taskId"].(string)
	for asked := 1; asked <= backend.MaxRecordedAsks+1; asked++ {
		got := pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
		for key := range got["inputRequests"].(map[string]any) {
			w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{key: accept(map[string]any{"sugar": true})}})
		}
		pollUntil(t, w, id, func(map[string]any) bool {
			rec, _ := store.Get(context.Background(), id)
			return rec.Replay == nil || len(rec.Replay.Asked) == asked
		})
		rec, _ := store.Get(context.Background(), id)
		if asked <= backend.MaxRecordedAsks && (rec.Replay == nil || len(rec.Replay.Asked) != asked) {
			t.Fatalf("after %d answers the record keeps %v", asked, rec.Replay)
		}
		if asked > backend.MaxRecordedAsks && rec.Replay != nil {
			t.Fatalf("after %d answers the record still keeps %d asks", asked, len(rec.Replay.Asked))
		}
	}
}

// requestMark is a context value a receiving middleware puts in every
// request's context, as a tracing or auth middleware would.
type requestMark struct{}

// markRequests adds that middleware to a server.
func markRequests(srv *mcp.Server) {
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return next(context.WithValue(ctx, requestMark{}, method), method, req)
		}
	})
}

// runContext is what a run of Run found in its context and request.
type runContext struct {
	principal string
	mark      any             // the requestMark value
	token     *auth.TokenInfo // the bearer token's claims, from the context
	session   bool            // the request has a session
	extra     bool            // the request has its token's claims
}

// A restarted Run's context carries the principal of the task and none
// of a request's other values: not the bearer token's claims, not a
// middleware's value (the first run has them all), and its request no
// session (neither has the first run's: the task keeps of its call only
// what it reads). Over HTTP, two instances, alice's task: bob's tasks/get of it,
// the lease lapsed, is refused and does not restart it, and after the
// restart bob's tasks/get, tasks/update and tasks/cancel are still
// refused.
func TestTaskRestartKeepsOnlyPrincipal(t *testing.T) {
	seen := make(chan runContext, 4)
	started := func(ctx context.Context, req *mcp.CallToolRequest) {
		seen <- runContext{principal: elicitrt.PrincipalFrom(ctx), mark: ctx.Value(requestMark{}), token: auth.TokenInfoFromContext(ctx),
			session: req.Session != nil, extra: req.Extra != nil && req.Extra.TokenInfo != nil}
	}
	sa, sb := &survey{started: started}, &survey{started: started}
	shared := &backend.MemoryTaskStore{}
	parted := &flakyStore{TaskStore: shared}
	const lease = 300 * time.Millisecond
	serve := func(s *survey, store backend.TaskStore) string {
		opts := &elicitrt.ToolOptions{Tasks: store, TaskLease: lease, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}
		tool := s.tool(opts)
		return httpTServeAuth(t, func(srv *mcp.Server) { tool(srv); markRequests(srv) })
	}
	urlA, urlB := serve(sa, parted), serve(sb, shared)
	aliceA, aliceB, bobB := httpWireAt(t, urlA, capsTasks, "tok-alice"), httpWireAt(t, urlB, capsTasks, "tok-alice"), httpWireAt(t, urlB, capsTasks, "tok-bob")
	id := toMilk(t, aliceA, aliceB, map[string]any{}, true)
	if first := <-seen; first.principal != "alice" || first.mark != "tools/call" || first.token == nil || !first.extra || first.session {
		t.Fatalf("the first run found %+v, want alice, the middleware's value and the token, and no session", first)
	}
	parted.down.Store(true)
	defer parted.down.Store(false)
	time.Sleep(lease + 200*time.Millisecond)
	if _, err := bobB.call(taskrun.MethodTasksGet, map[string]any{"taskId": id}); err == nil || err.Message != "unknown task" {
		t.Errorf("bob's tasks/get of alice's lapsed task: %v", err)
	}
	if n := sb.runs.Load(); n != 0 {
		t.Fatalf("bob's tasks/get restarted alice's task (%d runs)", n)
	}
	pollUntil(t, aliceB, id, func(m map[string]any) bool { return sb.runs.Load() == 1 && asking("milk")(m) })
	if again := <-seen; again != (runContext{principal: "alice"}) {
		t.Errorf("the restarted run found %+v, want the principal alice and nothing else", again)
	}
	for _, m := range []string{taskrun.MethodTasksGet, taskrun.MethodTasksUpdate, taskrun.MethodTasksCancel} {
		_, err := bobB.call(m, map[string]any{"taskId": id, "inputResponses": map[string]any{"milk": accept(map[string]any{"milk": true})}})
		if err == nil || err.Code != jsonrpc.CodeInvalidParams || err.Message != "unknown task" {
			t.Errorf("bob's %s of alice's restarted task: %v", m, err)
		}
	}
	answer(t, aliceB, id, "milk", false)
	if got := resultText(t, pollUntil(t, aliceB, id, hasStatus(backend.TaskCompleted))); got != "sugar=true milk=false runs=1" {
		t.Errorf("result %q", got)
	}
}

// TestTaskTakeoverOtherRelease: during a rolling deploy, a restartable
// task whose instance died is taken over by an instance of the next
// release, whose tool asks its milk question in other words. Its record
// (written by the release before: its questions digest, and the sugar
// answer given then) is not replayed against the new questions: the task
// fails with ErrToolChanged and Run never runs. An instance of the same
// release takes the same record over and asks on (TestTaskRestartsBounded).
func TestTaskTakeoverOtherRelease(t *testing.T) {
	store := &backend.MemoryTaskStore{}
	s := &survey{}
	w := memoryWire(t, capsTasks, s.tool(&elicitrt.ToolOptions{Tasks: store, TaskLimits: &elicitrt.TaskLimits{}, Logger: discardLogger()}))
	before := surveySteps()
	before[1].Message, before[1].Digest = "Any milk at all?", "the release before"
	now := time.Now()
	call := json.RawMessage(`{"name":"survey","arguments":{},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}`)
	state := json.RawMessage(`{"v":"` + machine.QuestionsDigest(before) + `","s":0,"a":[null,null],"q":[{},{}]}`)
	asked := []backend.RecordedAsk{{Steps: []string{"sugar"}, Outcome: string(elicitrt.Accepted), Contents: map[string]map[string]any{"sugar": {"sugar": true}}}}
	rec := &backend.TaskRecord{Format: backend.TaskRecordFormat, ID: "lapsed", Tool: "survey", Status: backend.TaskInputRequired,
		CreatedAt: now, UpdatedAt: now, Expires: now.Add(time.Hour), LeaseUntil: now.Add(-time.Second), Runner: "dead",
		Replay: &backend.TaskReplay{Call: call, State: state, Asked: asked}}
	if err := store.Create(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": "lapsed"})
	if got["status"] != string(backend.TaskFailed) || taskError(got) != machine.ErrToolChanged.Message {
		t.Fatalf("a record of the release before, taken over: %v", got)
	}
	if n := s.runs.Load(); n != 0 {
		t.Errorf("Run ran %d times on another release's answers", n)
	}
}
