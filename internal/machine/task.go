package machine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

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
// CreateTaskResult, discovery) is internal/tasks; the run of a task on this
// instance (its record, lease, watcher and end) is a taskrun.Job; the
// store's contract is runtime/backend's.

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
// answers given before Run. In a task its rounds are the interpreter's
// and the record's side is its taskrun.Job.
type Task struct {
	m *Machine
	// c is the call that created the task (its flow state counts the
	// task's asks of each During step, their invalid answers and the
	// reason of the last), or that runs Run in the foreground.
	c *call
	// job runs the task on this instance; nil in the foreground.
	job *taskrun.Job
	// status is the status last reported to ToolOptions.Hooks.
	status taskStatusReport
	// replay are the recorded Asks a restarted task replays (taskreplay.go).
	replay taskrun.Replay
	// reopen are, after a restart, the steps the record was asking, by
	// key, with the number of the ask (taskreplay.go).
	reopen map[string]int
	// digest is the flow's digest, taken before Run and the watcher start
	// (the watcher reads it; the call's own is Run's).
	digest string
}

// ID is the task id, "" in the foreground.
func (t *Task) ID() string {
	if t.job == nil {
		return ""
	}
	return t.job.ID
}

// InForeground reports whether Run runs inside the tools/call, for a
// client without the tasks extension.
func (t *Task) InForeground() bool { return t.job == nil }

// Progress sets the task's statusMessage (at most 256 bytes kept), which
// tasks/get shows. In the foreground it does nothing. It is best effort:
// when the store cannot be reached the message is dropped (and logged),
// and the work goes on; the error is ctx's, once the task is cancelled or
// expired.
func (t *Task) Progress(ctx context.Context, message string) error {
	if t.job == nil {
		return ctx.Err()
	}
	return t.job.Progress(ctx, bounded(message))
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
	if t.job == nil {
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
		answers, err := t.job.Await(ctx, keys, version)
		if err != nil {
			return elicitrt.Reply{}, err
		}
		next, end, ended := t.judge(pending, answers, contents)
		if ended {
			return end, t.job.Answered(ctx) // declined or cancelled: no longer waiting
		}
		pending = next
	}
	return elicitrt.Reply{Outcome: elicitrt.Accepted, Step: -1, Contents: contents}, t.job.Answered(ctx)
}

// gaveUp is ask's GaveUpError for the first pending step out of
// attempts, checked before each round so none is asked once more.
func (t *Task) gaveUp(pending []int) error {
	for _, j := range pending {
		if s := t.c.st.Steps[j]; s.Tries >= t.m.opts.MaxAttempts {
			t.c.event(backend.Event{Kind: backend.EventGaveUp, Steps: []string{t.m.steps[j].Key}})
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
// input_required with their input requests, for Await: it returns the
// requests' keys (to their steps) and the record's version.
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
	asked, err := rawRequests(requests)
	if err != nil {
		return nil, 0, err
	}
	version, err := t.job.Ask(ctx, asked, bounded(taskrun.WaitingPrefix+waitingFor))
	if err != nil {
		return nil, 0, err
	}
	if m.opts.Hooks != nil {
		c.rounds++
		c.asked = m.opts.Now()
		c.event(backend.Event{Kind: backend.EventAsked, Steps: m.stepKeys(pending)})
	}
	return keys, version, nil
}

// rawRequests are requests as the record keeps them, each as its JSON.
// Encoding the forms' schemas runs deep: it runs on a goroutine of its
// own, so that the stack of Run's goroutine, which a waiting task keeps,
// does not double for it (4 KiB instead of 8 for examples/report).
func rawRequests(requests mcp.InputRequestMap) (asked map[string]json.RawMessage, err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("elicitgen: encoding a task's questions: %v", r)
			}
		}()
		var raw []byte
		if raw, err = json.Marshal(requests); err == nil {
			err = json.Unmarshal(raw, &asked)
		}
	}()
	<-done
	return asked, err
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
	id := taskrun.NewID()
	if c.admitted != nil {
		id = c.admitted.ID()
	}
	rec, view, err := c.taskRecord(id)
	if err != nil {
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
	// The handler's hooks (messages) run in the task from now on, which
	// keeps only what it reads of the request (taskrequest.go).
	c.ctx, c.req = ctx, view
	slot.Created = rec
	m.newTask(c, rec, ticket).start(ctx, cancel, backend.TaskWorking)
	return &mcp.CallToolResult{}, nil
}

// taskRecord is the record of the task id the call creates, and the
// request the task keeps (taskView).
func (c *call) taskRecord(id string) (*backend.TaskRecord, *request, error) {
	m := c.m
	now := m.opts.Now()
	rec := &backend.TaskRecord{
		Format: backend.TaskRecordFormat, ID: id, Principal: c.bind.Principal, Tool: m.tool,
		Status: backend.TaskWorking, CreatedAt: now, UpdatedAt: now, Expires: now.Add(m.opts.TaskTTL),
		PollInterval: m.opts.TaskPollInterval, Version: 1, LeaseUntil: now.Add(m.opts.TaskLease), Runner: taskrun.NewID(),
	}
	if tt, ok := m.opts.Hooks.(backend.TaskTracer); ok {
		rec.Trace = tt.TaskTrace(c.ctx)
	}
	kept, err := keptCall(c.toolRequest())
	if err != nil {
		return nil, nil, err
	}
	if rec.Replay, err = c.replayRecord(kept); err != nil {
		return nil, nil, err
	}
	view, err := taskView(kept, c.tokenOf())
	if err != nil {
		return nil, nil, err
	}
	return rec, view, nil
}

// newTask is the Task of the call c that runs the task rec on this
// instance, counted by ticket.
func (m *Machine) newTask(c *call, rec *backend.TaskRecord, ticket *taskrun.Ticket) *Task {
	t := &Task{m: m, c: c}
	t.job = &taskrun.Job{Store: m.opts.Tasks, ID: rec.ID, Runner: rec.Runner, Ticket: ticket,
		Lease: m.opts.TaskLease, Now: m.opts.Now, Restartable: m.restart != nil, Report: taskReport{t}}
	return t
}

// start runs the task's Run on ctx (cancel ends it), from status.
func (t *Task) start(ctx context.Context, cancel context.CancelFunc, status backend.TaskStatus) {
	t.job.Ticket.Start(t.job.Stopper(cancel))
	t.moved(status)
	t.digest = t.c.flowDigest()
	go t.job.Work(ctx, cancel, t.run)
}

// run is the handler's Run of the task.
func (t *Task) run(ctx context.Context) (*mcp.CallToolResult, error) {
	return t.m.run(ctx, t, t.c.toolRequest(), t.c.args, t.c.st.Answers)
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
