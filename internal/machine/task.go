package machine

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/elicitgen/elicitgen/internal/taskrun"
	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Tasks: a tool declared with //elicit:task runs as a task of the
// io.modelcontextprotocol/tasks extension (SEP-2663) for a client that
// declares the extension on its request. Its steps without `during` are
// asked first, in MRTR rounds, as for any tool; then the tools/call answers
// with a CreateTaskResult, and the handler's Run works on its own context
// while the client polls tasks/get. Run asks the `during` steps through
// Task.Ask: the task turns input_required with the questions, the client
// answers with tasks/update, and Ask returns the strictly decoded answers.
// A client without the extension gets the tool in the foreground (every
// step asked before Run) when its task support is optional, and -32021
// when it is required. The wire (tasks/get, tasks/update, tasks/cancel, the
// CreateTaskResult, discovery) is in taskwire.go; the store in
// taskstore.go.

// TasksExtension is the extension's identifier, in capabilities.extensions.
const TasksExtension = "io.modelcontextprotocol/tasks"

// TaskSupport says whether a tool runs as a task.
type TaskSupport uint8

const (
	// TaskForbidden: never a task (every tool without //elicit:task).
	TaskForbidden TaskSupport = iota
	// TaskOptional: a task when the request declares the extension, in
	// the foreground otherwise.
	TaskOptional
	// TaskRequired: a task; a request without the extension gets -32021.
	TaskRequired
)

// Task is what a task tool's Run gets: the running task (ID, Progress) and
// the questions it may ask (Ask). In the foreground (a client without the
// extension) it has no ID, Progress does nothing and Ask returns the
// answers given before Run.
type Task struct {
	m *Machine
	// c is the call that created the task (its flow state counts the
	// task's asks of each During step, their invalid answers and the
	// reason of the last), or that runs Run in the foreground.
	c  *call
	id string // "" in the foreground
	// ticket counts the task under ToolOptions.TaskLimits while it runs.
	ticket *taskrun.Ticket
	// status is the status last reported to ToolOptions.Hooks.
	status taskStatusReport
	// shutDown is set when TaskLimits.Drain stops the task: a Run that
	// returns an error then fails the task with ErrServerShutDown; handBack
	// instead, for a restartable task: its lease is released for another
	// instance to take it over (taskdrain.go).
	shutDown, handBack atomic.Bool
	// replay are the recorded Asks a restarted task replays; asks counts
	// its Asks so far (taskreplay.go).
	replay []backend.RecordedAsk
	asks   int
	// reopen are, after a restart, the steps the record was asking, by
	// key, with the number of the ask (taskreplay.go).
	reopen map[string]int
	// runner is this run's TaskRecord.Runner.
	runner string
	// digest is the flow's digest, taken before Run and the watcher start
	// (the watcher reads it; the call's own is Run's).
	digest string
}

// ID is the task id, "" in the foreground.
func (t *Task) ID() string { return t.id }

// InForeground reports whether Run runs inside the tools/call, for a
// client without the tasks extension.
func (t *Task) InForeground() bool { return t.id == "" }

// Progress sets the task's statusMessage (at most 256 bytes kept), which
// tasks/get shows. In the foreground it does nothing. It is best effort:
// when the store cannot be reached the message is dropped (and logged),
// and the work goes on; the error is ctx's, once the task is cancelled or
// expired.
func (t *Task) Progress(ctx context.Context, message string) error {
	if t.id == "" {
		return ctx.Err()
	}
	if _, err := t.m.opts.Tasks.Update(ctx, t.id, t.fenced(func(rec *backend.TaskRecord) error {
		if !rec.Status.Terminal() {
			rec.StatusMessage = bounded(message)
		}
		return nil
	})); err != nil && !errors.Is(err, errTaskEnded) && ctx.Err() == nil {
		t.c.storeError(err, "tasks", "Update")
		t.c.log().Warn("elicitgen: task progress not recorded", "task", t.id, "err", err)
	}
	return ctx.Err()
}

// Ask asks the During steps together and waits for the answers: the task
// is input_required with one input request per step until tasks/update
// answers them all (in any number of updates). An invalid answer is asked
// again with the reason, under a new key; a step asked MaxAttempts times
// without a valid answer ends Ask with a *GaveUpError. A decline or cancel
// of any step ends Ask with that Outcome. Ask returns ctx's error when the
// task is cancelled or expires while it waits. Generated code calls it
// through the typed Ask methods of the tool's task type.
func (t *Task) Ask(ctx context.Context, steps ...int) (elicitrt.Reply, error) {
	m := t.m
	for _, j := range steps {
		if j < 0 || j >= len(m.steps) || !m.steps[j].During {
			return elicitrt.Reply{}, fmt.Errorf("elicitrt: Task.Ask: step %d of %s is not a during step", j, m.tool)
		}
	}
	if t.id == "" {
		contents := make(map[int]map[string]any, len(steps))
		for _, j := range steps {
			a := t.c.st.Answers[j]
			if a == nil {
				return elicitrt.Reply{}, fmt.Errorf("%w: %s", elicitrt.ErrNotAsked, m.steps[j].Key)
			}
			if o, ok := a[duringOutcomeKey].(string); ok {
				return elicitrt.Reply{Outcome: elicitrt.Outcome(o), Step: j}, nil
			}
			contents[j] = a
		}
		return elicitrt.Reply{Outcome: elicitrt.Accepted, Step: -1, Contents: contents}, nil
	}
	return t.ask(ctx, steps)
}

// ask is Ask in a task: replayed from the record after a restart, else
// asked, and recorded for a restart.
func (t *Task) ask(ctx context.Context, steps []int) (elicitrt.Reply, error) {
	if r, ok, err := t.replayed(steps); ok {
		return r, err
	}
	r, err := t.askPerson(ctx, steps)
	if err == nil {
		err = t.recordAsk(ctx, steps, r)
	}
	return r, err
}

// askPerson asks the steps through the task's input requests.
func (t *Task) askPerson(ctx context.Context, steps []int) (elicitrt.Reply, error) {
	contents := make(map[int]map[string]any, len(steps))
	pending := slices.Clone(steps)
	for len(pending) > 0 {
		if err := t.gaveUp(pending); err != nil {
			return elicitrt.Reply{}, err
		}
		if !canShow(t.c.req, ModeForm) {
			if err := t.defaults(pending, contents); err != nil {
				return elicitrt.Reply{}, err
			}
			break
		}
		keys, version, err := t.publish(ctx, pending)
		if err != nil {
			return elicitrt.Reply{}, err
		}
		answers, err := t.await(ctx, keys, version)
		if err != nil {
			return elicitrt.Reply{}, err
		}
		next, end, ended := t.judge(pending, answers, contents)
		if ended {
			return end, t.answered(ctx) // declined or cancelled: no longer waiting
		}
		pending = next
	}
	return elicitrt.Reply{Outcome: elicitrt.Accepted, Step: -1, Contents: contents}, t.answered(ctx)
}

// answered turns the task, whose question was answered, back to working.
func (t *Task) answered(ctx context.Context) error {
	_, err := t.update(ctx, func(rec *backend.TaskRecord) error {
		if rec.Status == backend.TaskInputRequired {
			rec.Status = backend.TaskWorking
		}
		return nil
	})
	if errors.Is(err, errTaskEnded) {
		return nil
	}
	return err
}

// gaveUp is ask's GaveUpError for the first pending step out of
// attempts, checked before each round so none is asked once more.
func (t *Task) gaveUp(pending []int) error {
	for _, j := range pending {
		if s := t.c.st.Steps[j]; s.Tries >= t.m.opts.MaxAttempts {
			return &elicitrt.GaveUpError{Step: t.m.steps[j].Key, Tries: s.Tries, Reason: s.Reason}
		}
	}
	return nil
}

// defaults answers the pending steps with their defaults, for a client
// that cannot show a form: only steps whose defaults answer them get here
// (see duringUnavailable), and any other is a MissingCapability.
func (t *Task) defaults(pending []int, contents map[int]map[string]any) error {
	for _, j := range pending {
		if t.m.steps[j].Fallback != FallbackDefaults || t.m.steps[j].Check(map[string]any{}) != nil {
			return MissingCapability(ModeForm)
		}
		contents[j] = map[string]any{}
	}
	return nil
}

// publish counts an ask of each pending step and turns the task
// input_required with their input requests, for await: it returns the
// requests' keys (to their steps) and the record's version. A task that
// ended meanwhile is the error ended says.
func (t *Task) publish(ctx context.Context, pending []int) (map[string]int, uint64, error) {
	m, c := t.m, t.c
	keys := make(map[string]int, len(pending))
	requests := make(mcp.InputRequestMap, len(pending))
	var waitingFor string // the first question, for the status message
	for _, j := range pending {
		t.reopened(j)
		c.st.Steps[j].Asks++
		key := inputKey(m.steps[j].Key, c.st.Steps[j].Asks)
		keys[key] = j
		p := m.steps[j].Params(c.message(j))
		requests[key] = p
		if waitingFor == "" {
			waitingFor = p.Message
		}
	}
	t.reopen = nil
	raw, err := json.Marshal(requests)
	if err != nil {
		return nil, 0, err
	}
	var asked map[string]json.RawMessage
	if err := json.Unmarshal(raw, &asked); err != nil {
		return nil, 0, err
	}
	rec, err := t.update(ctx, func(rec *backend.TaskRecord) error {
		if rec.Status.Terminal() {
			return errTaskEnded
		}
		rec.Status, rec.InputRequests, rec.Answers = backend.TaskInputRequired, asked, keepAnswers(rec.Answers, asked)
		rec.StatusMessage = bounded(taskrun.WaitingPrefix + waitingFor)
		return nil
	})
	if err != nil || rec == nil {
		return nil, 0, t.ended(ctx, err)
	}
	if m.opts.Hooks != nil {
		c.rounds++
		c.asked = m.opts.Now()
		c.event(backend.Event{Kind: backend.EventAsked, Steps: m.stepKeys(pending)})
	}
	return keys, rec.Version, nil
}

// judge judges each pending step's answer as in a round, keeping accepted
// contents in Contents: it returns the steps to ask again, or, ended, the
// Reply of the first (in step order) declined or cancelled, which ends the
// ask.
func (t *Task) judge(pending []int, answers map[string]json.RawMessage, contents map[int]map[string]any) (next []int, end elicitrt.Reply, ended bool) {
	m, c := t.m, t.c
	next = pending[:0:0]
	for _, j := range pending {
		var resp mcp.ElicitResult
		raw := answers[inputKey(m.steps[j].Key, c.st.Steps[j].Asks)]
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &resp) != nil {
			c.answered(j, backend.OutcomeInvalid)
			c.invalid(j, "the answer is not an elicitation result")
			next = append(next, j)
			continue
		}
		switch resp.Action {
		case ActionDecline, ActionCancel:
			c.answered(j, resp.Action)
			return nil, elicitrt.Reply{Outcome: elicitrt.Outcome(resp.Action), Step: j}, true
		case ActionAccept:
			if c.keepForm(j, resp.Content) {
				c.answered(j, backend.OutcomeAccept)
				contents[j] = c.st.Answers[j]
				continue
			}
			c.answered(j, backend.OutcomeInvalid)
		default:
			c.answered(j, backend.OutcomeInvalid)
			c.invalid(j, "unknown action "+strconv.Quote(bounded(resp.Action)))
		}
		next = append(next, j)
	}
	return next, elicitrt.Reply{}, false
}

// duringOutcomeKey holds, in the kept answer of a During step declined or
// cancelled in the foreground, the action: no form has a property without
// a name, and the answers struct decodes it as not answered.
const duringOutcomeKey = ""

// errTaskEnded aborts an update of a task that reached a terminal status.
var errTaskEnded = errors.New("elicitrt: the task has ended")

// ended is the error of an ask whose task ended (cancelled, expired):
// ctx's error once the task's context is cancelled.
func (t *Task) ended(ctx context.Context, err error) error {
	if err != nil && !errors.Is(err, errTaskEnded) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return context.Canceled
}

// await takes the answers to keys as tasks/update delivers them, until
// every key has one.
func (t *Task) await(ctx context.Context, keys map[string]int, version uint64) (map[string]json.RawMessage, error) {
	store := t.m.opts.Tasks
	got := make(map[string]json.RawMessage, len(keys))
	for {
		rec, err := t.update(ctx, func(rec *backend.TaskRecord) error {
			if rec.Status.Terminal() {
				return errTaskEnded
			}
			for k, v := range rec.Answers {
				if _, ok := keys[k]; ok {
					got[k] = v
				}
			}
			rec.Answers = nil
			return nil
		})
		if err != nil || rec == nil {
			return nil, t.ended(ctx, err)
		}
		if len(got) == len(keys) {
			return got, nil
		}
		if err := store.Wait(ctx, t.id, rec.Version); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			t.storeDown(ctx, err) // and read again
		}
	}
}

// update is TaskStore.Update for the running task, which outlasts a store
// outage: a store error (Redis unreachable) is logged and the update tried
// again every storeRetry until it succeeds or the task's context ends. A
// task waiting for an answer thus waits through an outage instead of
// failing; tasks/update and tasks/get fail meanwhile (fail closed).
func (t *Task) update(ctx context.Context, change func(*backend.TaskRecord) error) (*backend.TaskRecord, error) {
	for {
		rec, err := t.m.opts.Tasks.Update(ctx, t.id, t.fenced(taskrun.SaysWhatIsTrue(change)))
		if err == nil && rec != nil {
			t.moved(rec.Status)
		}
		if err == nil || errors.Is(err, errTaskEnded) || ctx.Err() != nil {
			return rec, err
		}
		t.c.storeError(err, "tasks", "Update")
		t.storeDown(ctx, err)
	}
}

// fenced is change for this run only: when another run holds the task
// (it was restarted elsewhere) it aborts with errTaskEnded, and this run
// writes nothing more.
func (t *Task) fenced(change func(*backend.TaskRecord) error) func(*backend.TaskRecord) error {
	return func(rec *backend.TaskRecord) error {
		if rec.Runner != t.runner {
			return errTaskEnded
		}
		return change(rec)
	}
}

// storeRetry is how long a running task waits before trying its store
// again after an error.
const storeRetry = 500 * time.Millisecond

// storeDown logs a store error of the running task and waits storeRetry
// (or until its context ends).
func (t *Task) storeDown(ctx context.Context, err error) {
	t.c.log().Warn("elicitgen: task store unavailable; trying again", "task", t.id, "err", err)
	select {
	case <-ctx.Done():
	case <-time.After(storeRetry):
	}
}

// newTaskID returns a task id: 128 random bits, base64url.
func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// tasking reports whether this call creates a task once its steps before
// the During ones are answered: the tool supports tasks, the request
// declared the extension (never on a 2025-11-25 session) and the server
// serves the tasks methods (AddTool installed them).
func (c *call) tasking() bool {
	return c.m.tasks != TaskForbidden && c.m.kind == kindTool && !c.legacy && taskrun.SlotFrom(c.ctx) != nil && DeclaresTasks(c.req.ClientCapabilities())
}

// DeclaresTasks reports whether caps declare the tasks extension.
func DeclaresTasks(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// MissingTasksExtension is the -32021 error of a required-task tool, and of
// tasks/* requests, for a request that did not declare the extension.
func MissingTasksExtension() *jsonrpc.Error {
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "this request needs the client to support the " + TasksExtension + " extension",
		Data:    json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + TasksExtension + `":{}}}}`),
	}
}

// runTask completes a task tool's call: in a task when the call is
// tasking, in the foreground otherwise.
func (c *call) runTask() (mcp.Result, error) {
	m := c.m
	if !c.task {
		t := &Task{m: m, c: c}
		res, err := m.run(c.ctx, t, c.toolRequest(), c.args, c.st.Answers)
		if res == nil {
			return nil, err
		}
		return res, err
	}
	if done, res, err := c.duringUnavailable(); done {
		return res, err
	}
	id := newTaskID()
	if c.admitted != nil {
		id = c.admitted.ID()
	}
	now := m.opts.Now()
	rec := &backend.TaskRecord{
		Format: backend.TaskRecordFormat, ID: id, Principal: c.bind.Principal, Tool: m.tool,
		Status: backend.TaskWorking, CreatedAt: now, UpdatedAt: now, Expires: now.Add(m.opts.TaskTTL),
		PollInterval: m.opts.TaskPollInterval, Version: 1, LeaseUntil: now.Add(m.opts.TaskLease), Runner: newTaskID(),
	}
	if tt, ok := m.opts.Hooks.(backend.TaskTracer); ok {
		rec.Trace = tt.TaskTrace(c.ctx)
	}
	var err error
	if rec.Replay, err = c.replayRecord(); err != nil {
		return nil, err
	}
	ticket, refused := c.admitTask(rec.ID)
	if refused != nil {
		return nil, refused
	}
	if err = m.opts.Tasks.Create(c.ctx, rec); err != nil {
		c.storeError(err, "tasks", "Create")
		ticket.Release()
		c.log().Warn("elicitgen: cannot create a task", "err", err)
		if errors.Is(err, backend.ErrTaskStoreFull) {
			return nil, taskrun.StoreFullError()
		}
		return nil, ErrInternal
	}
	// The task outlives the request: its own context, with the request's
	// values (the principal), ended by tasks/cancel or the TTL (a
	// duration on the real clock, whatever ToolOptions.Now says).
	slot := taskrun.SlotFrom(c.ctx)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), m.opts.TaskTTL)
	c.ctx = ctx // the handler's hooks (messages) run in the task from now on
	slot.Created = rec
	t := &Task{m: m, c: c, id: rec.ID, ticket: ticket, runner: rec.Runner}
	ticket.Start(t.stopper(cancel))
	t.moved(backend.TaskWorking)
	t.digest = c.flowDigest()
	go t.work(ctx, cancel)
	return &mcp.CallToolResult{}, nil
}

// admitTask takes the task's place under TaskLimits, as id: the one
// complete took before claiming a once flow, or a new one. A refusal is
// logged with the bound that refused, never who.
func (c *call) admitTask(id string) (*taskrun.Ticket, *jsonrpc.Error) {
	if t := c.admitted; t != nil {
		c.admitted = nil
		return t, nil
	}
	ticket, refused := taskrun.LimiterOf(c.m.opts.TaskLimits).Admit(c.bind.Principal, id)
	if refused != nil {
		c.log().Debug("elicitgen: task refused", "limit", string(refused.Data))
	}
	return ticket, refused
}

// duringUnavailable applies, before a task is created, the fallback of
// each During step the request cannot show (it declared the extension but
// not form elicitation), as the foreground would when it reached the
// step: the call ends (-32021, a tool error or the handler's Unavailable)
// unless the step answers with its defaults, which Task.Ask then gives.
func (c *call) duringUnavailable() (done bool, res mcp.Result, err error) {
	m := c.m
	for j := range m.steps {
		step := &m.steps[j]
		if !step.During || canShow(c.req, step.Mode) {
			continue
		}
		switch step.Fallback {
		case FallbackDefaults:
			if step.Check(map[string]any{}) == nil {
				continue
			}
			if step.Missing != "" {
				return true, toolError(step.Missing), nil
			}
		case FallbackArguments:
			return true, toolError(step.Missing), nil
		case FallbackHandler:
			res, err := m.flow.Unavailable(c.ctx, c.req, c.args, j, c.st.Answers)
			return true, res, err
		}
		return true, nil, m.missingCapability(step.Mode)
	}
	return false, nil, nil
}

// toolRequest is the call's tools/call request.
func (c *call) toolRequest() *mcp.CallToolRequest {
	req, _ := c.req.raw.(*mcp.CallToolRequest)
	return req
}

// work runs the task's Run and records how it ended; a cancelled task
// stays cancelled whatever Run returns. The task counts under TaskLimits
// against its principal until it ends, and against the process until
// both its goroutines (this one and watchCancel) return.
func (t *Task) work(ctx context.Context, cancel context.CancelFunc) {
	watched := make(chan struct{})
	defer func() {
		cancel()
		<-watched
		t.ticket.Release()
	}()
	go func() {
		defer close(watched)
		t.watchCancel(ctx, cancel)
	}()
	res, err := t.safeRun(ctx)
	t.ticket.Ended() // before the end is recorded: once a client sees it, it counts no more
	if err != nil && t.handBack.Load() {
		t.releaseLease(ctx)
		return
	}
	result, rpcErr := t.outcome(res, err)
	t.recordEnd(ctx, result, rpcErr)
}

// outcome is how a task whose Run returned (res, err) ends: its result
// (completed) or its JSON-RPC error (failed).
func (t *Task) outcome(res *mcp.CallToolResult, err error) (result, rpcErr json.RawMessage) {
	var gaveUp *elicitrt.GaveUpError
	switch {
	case err != nil && t.shutDown.Load():
		rpcErr, _ = json.Marshal(taskrun.ErrServerShutDown)
	case errors.As(err, &gaveUp):
		result = completeResult(toolError(gaveUp.Error()))
	case err != nil:
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				t.c.log().Error("elicitgen: task failed", "task", t.id, "err", err)
			}
			je = ErrInternal
		}
		rpcErr, _ = json.Marshal(je)
	case res == nil || res.InputRequests != nil || res.RequestState != "":
		t.c.log().Error("elicitgen: a task's Run returned no result, or an input_required one", "task", t.id)
		rpcErr, _ = json.Marshal(ErrInternal)
	default:
		result = completeResult(res)
		if result == nil {
			rpcErr, _ = json.Marshal(ErrInternal)
		}
	}
	return result, rpcErr
}

// recordEnd records the task's end, unless it ended already (cancelled),
// even if its context has ended (its TTL): on a fresh context, bounded,
// through a store outage of up to 30 s.
func (t *Task) recordEnd(ctx context.Context, result, rpcErr json.RawMessage) {
	endCtx, endCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer endCancel()
	if _, err := t.update(endCtx, func(rec *backend.TaskRecord) error {
		if rec.Status.Terminal() {
			return errTaskEnded
		}
		rec.InputRequests, rec.Answers = nil, nil
		if rpcErr != nil {
			rec.Status, rec.Error = backend.TaskFailed, rpcErr
		} else {
			rec.Status, rec.Result = backend.TaskCompleted, result
		}
		return nil
	}); err != nil && !errors.Is(err, errTaskEnded) {
		t.c.log().Warn("elicitgen: cannot record the end of a task", "task", t.id, "err", err)
	}
}

// safeRun calls Run; a panic fails the task with an internal error.
func (t *Task) safeRun(ctx context.Context) (res *mcp.CallToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			t.c.log().Error("elicitgen: panic in a task", "task", t.id, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, ErrInternal
		}
	}()
	return t.m.run(ctx, t, t.c.toolRequest(), t.c.args, t.c.st.Answers)
}

// watchCancel cancels the task's context when the task turns terminal
// (tasks/cancel, on any instance sharing the store, or a lapsed lease
// failed elsewhere) or disappears; meanwhile it renews the task's lease
// every quarter of ToolOptions.TaskLease (on the real clock).
func (t *Task) watchCancel(ctx context.Context, cancel context.CancelFunc) {
	store := t.m.opts.Tasks
	var version uint64
	renewAt := time.Now().Add(t.m.opts.TaskLease / 4)
	for ctx.Err() == nil {
		rec, err := store.Get(ctx, t.id)
		if err == nil && (rec == nil || rec.Status.Terminal() || rec.Runner != t.runner) {
			t.stopped(rec)
			cancel()
			return
		}
		if rec != nil {
			version = rec.Version
		}
		if !time.Now().Before(renewAt) {
			t.renewLease(ctx)
			renewAt = time.Now().Add(t.m.opts.TaskLease / 4)
			continue
		}
		if err != nil {
			// The store is unreachable: look again in a while.
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		wctx, wcancel := context.WithDeadline(ctx, renewAt)
		_ = store.Wait(wctx, t.id, version)
		wcancel()
	}
}

// stopped reports the end of a task whose record turned terminal (rec) or
// disappeared (nil): it counts no more, and its last status is reported.
func (t *Task) stopped(rec *backend.TaskRecord) {
	t.ticket.Ended()
	if rec == nil {
		t.moved(backend.TaskCancelled) // forgotten: no longer running
	} else {
		t.moved(rec.Status)
	}
}

// completeResult is res as a task's inlined result: the tool result with
// resultType "complete" (the ext-tasks client requires it).
func completeResult(res *mcp.CallToolResult) json.RawMessage {
	raw, err := json.Marshal(res)
	if err != nil {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	fields["resultType"] = json.RawMessage(`"complete"`)
	out, err := json.Marshal(fields)
	if err != nil {
		return nil
	}
	return out
}
