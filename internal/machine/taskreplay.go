package machine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/contract"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Replay: a task tool declared restartable (//elicit:task optional
// restartable) keeps in its record what it takes to run its Run again
// elsewhere: the creating call's name, arguments and client capabilities,
// the flow's state when the task was created (the answers to the steps
// asked before it), and the reply of every Task.Ask, in order. When the
// instance running it dies and its lease lapses, the next instance
// serving its tasks/get claims it (at most ToolOptions.TaskRestarts times) and runs
// Run again from the start: each Ask already answered returns the recorded
// reply at once, the person is not asked again; an Ask of other steps
// than recorded fails the task (errReplayDiverged); the first Ask past
// the record asks the person, as the first run would have.

// errReplayDiverged fails a restarted task whose Run asked other steps
// than its first run did at the same point.
func errReplayDiverged(asked, recorded []string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
		"this task was restarted after its server stopped, and asked %s where it had asked %s: it cannot go on; call the tool again",
		strings.Join(asked, ", "), strings.Join(recorded, ", "))}
}

// replayRecord is the Replay of the task the call creates; nil unless the
// tool is restartable.
func (c *call) replayRecord() (*backend.TaskReplay, error) {
	if c.m.restart == nil {
		return nil, nil
	}
	req := c.toolRequest()
	p := &mcp.CallToolParamsRaw{Name: req.Params.Name, Arguments: req.Params.Arguments}
	if meta := req.Params.GetMeta(); meta != nil {
		keep := map[string]any{}
		for _, k := range []string{mcp.MetaKeyClientCapabilities, mcp.MetaKeyProtocolVersion} {
			if v, ok := meta[k]; ok {
				keep[k] = v
			}
		}
		p.SetMeta(keep)
	}
	callJSON, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	state, err := json.Marshal(&c.st)
	if err != nil {
		return nil, err
	}
	return &backend.TaskReplay{Call: callJSON, State: state}, nil
}

// replayed answers the task's next Ask from its record, after a restart;
// ok is false once the recorded Asks are used up.
func (t *Task) replayed(steps []int) (r elicitrt.Reply, ok bool, err error) {
	i := t.asks
	t.asks++
	if i >= len(t.replay) {
		return elicitrt.Reply{}, false, nil
	}
	rec := t.replay[i]
	keys := t.m.stepKeys(steps)
	if !slices.Equal(keys, rec.Steps) {
		return elicitrt.Reply{}, true, errReplayDiverged(keys, rec.Steps)
	}
	if elicitrt.Outcome(rec.Outcome) != elicitrt.Accepted {
		return elicitrt.Reply{Outcome: elicitrt.Outcome(rec.Outcome), Step: t.m.stepIndex(rec.Step)}, true, nil
	}
	r = elicitrt.Reply{Outcome: elicitrt.Accepted, Step: -1, Contents: make(map[int]map[string]any, len(steps))}
	for _, j := range steps {
		r.Contents[j] = rec.Contents[t.m.steps[j].Key]
		t.c.st.Answers[j] = r.Contents[j]
	}
	return r, true, nil
}

// stepIndex is the index of the step of key, -1 if none.
func (m *Machine) stepIndex(key string) int {
	for i := range m.steps {
		if m.steps[i].Key == key {
			return i
		}
	}
	return -1
}

// recordAsk appends the reply r to steps to a restartable task's record.
func (t *Task) recordAsk(ctx context.Context, steps []int, r elicitrt.Reply) error {
	if t.m.restart == nil {
		return nil
	}
	entry := backend.RecordedAsk{Steps: t.m.stepKeys(steps), Outcome: string(r.Outcome)}
	if r.Outcome == elicitrt.Accepted {
		entry.Contents = make(map[string]map[string]any, len(steps))
		for _, j := range steps {
			entry.Contents[t.m.steps[j].Key] = r.Contents[j]
		}
	} else {
		entry.Step = t.m.steps[r.Step].Key
	}
	_, err := t.update(ctx, func(rec *backend.TaskRecord) error {
		if rec.Status.Terminal() {
			return errTaskEnded
		}
		switch {
		case rec.Replay == nil:
		case len(rec.Replay.Asked) >= backend.MaxRecordedAsks:
			rec.Replay = nil // no longer restartable: the record stays small
		default:
			rec.Replay.Asked = append(rec.Replay.Asked, entry)
		}
		return nil
	})
	if errors.Is(err, errTaskEnded) {
		return nil // cancelled meanwhile: Run's context ends
	}
	return err
}

// Restart takes over the task rec, whose lease has lapsed: a restartable
// task with restarts left is claimed for this instance and its Run
// started again, replaying its recorded answers; any other task fails
// with ErrServerStopped. It returns the task as stored after; a task this
// process cannot take now (its TaskLimits refuse) is returned as it is,
// for a later request, maybe on another instance, to take.
func (m *Machine) Restart(ctx context.Context, rec *backend.TaskRecord) (*backend.TaskRecord, error) {
	o := &m.opts
	if m.restart == nil || rec.Replay == nil || rec.Replay.Restarts >= o.TaskRestarts {
		return taskrun.FailLapsed(ctx, o.Tasks, rec.ID, o.Now)
	}
	ticket, refused := taskrun.LimiterOf(o.TaskLimits).Admit(rec.Principal, rec.ID)
	if refused != nil {
		return rec, nil
	}
	claimed, err := o.Tasks.Update(ctx, rec.ID, func(r *backend.TaskRecord) error {
		if !taskrun.LeaseLapsed(r, o.Now()) || r.Replay == nil || r.Replay.Restarts >= o.TaskRestarts {
			return taskrun.ErrLeaseHeld
		}
		r.Replay.Restarts++
		r.LeaseUntil, r.Runner = o.Now().Add(o.TaskLease), newTaskID()
		r.StatusMessage = "restarted after its server stopped"
		return nil
	})
	if err != nil || claimed == nil {
		ticket.Release()
		if errors.Is(err, taskrun.ErrLeaseHeld) {
			return o.Tasks.Get(ctx, rec.ID)
		}
		return claimed, err
	}
	if err := m.resume(claimed, ticket); err != nil {
		ticket.Release()
		o.Logger.Error("elicitgen: cannot restart a task", "task", rec.ID, "err", err)
		failure := taskrun.ErrServerStopped
		if errors.Is(err, ErrToolChanged) {
			failure = ErrToolChanged
		}
		return o.Tasks.Update(ctx, rec.ID, func(r *backend.TaskRecord) error {
			if !r.Status.Terminal() {
				taskrun.FailTask(r, failure)
			}
			return nil
		})
	}
	return claimed, nil
}

// resume runs the Run of the task rec, claimed by this instance, again.
// Its context carries the principal, none of the creating request's other
// values; its request, the name, arguments and capabilities, no session.
func (m *Machine) resume(rec *backend.TaskRecord, ticket *taskrun.Ticket) error {
	var p mcp.CallToolParamsRaw
	if err := json.Unmarshal(rec.Replay.Call, &p); err != nil {
		return err
	}
	var st flowState
	if err := json.Unmarshal(rec.Replay.State, &st); err != nil {
		return err
	}
	if st.Questions != m.questions || len(st.Answers) != len(m.steps) || len(st.Steps) != len(m.steps) {
		return ErrToolChanged // the record is of another release's questions
	}
	args, err := m.restart(p.Arguments)
	if err != nil {
		return err
	}
	base := context.WithValue(context.Background(), contract.PrincipalKey{}, rec.Principal)
	ctx, cancel := context.WithTimeout(base, rec.Expires.Sub(m.opts.Now()))
	c := &call{m: m, ctx: ctx, req: toolView(&mcp.CallToolRequest{Params: &p}), args: args,
		bind: seal.Binding{Tool: m.tool, Principal: rec.Principal}, now: m.opts.Now(), st: st, task: true}
	if j, _ := c.unsettled(); j >= 0 {
		cancel()
		return ErrToolChanged // an answer recorded then does not answer its step now
	}
	t := &Task{m: m, c: c, id: rec.ID, ticket: ticket, replay: rec.Replay.Asked, runner: rec.Runner, reopen: m.openAsks(rec)}
	ticket.Start(t.stopper(cancel))
	t.moved(rec.Status)
	t.digest = c.flowDigest()
	go t.work(ctx, cancel)
	return nil
}

// openAsks maps each step of the record rec's current round, asked (its
// input requests) or answered since (its answers), to the number of that
// ask: 1 for the key "milk", 2 for "milk.2".
func (m *Machine) openAsks(rec *backend.TaskRecord) map[string]int {
	open := map[string]int{}
	for _, keys := range []map[string]json.RawMessage{rec.InputRequests, rec.Answers} {
		for key := range keys {
			step, n := parseInputKey(key)
			if m.stepIndex(step) >= 0 && n > open[step] {
				open[step] = n
			}
		}
	}
	return open
}

// reopened continues, for the first Ask past the record, the count of step
// j's asks from the question the record was asking, so that it asks under
// the same key (a re-ask's "milk.2" too) and an answer given while no
// instance ran the task counts.
func (t *Task) reopened(j int) {
	if n := t.reopen[t.m.steps[j].Key]; n-1 > t.c.st.Steps[j].Asks {
		t.c.st.Steps[j].Asks = n - 1
	}
}

// keepAnswers are the answers under the keys asked again: after a restart
// the first Ask past the record asks under the keys the record was asking
// (reopened), and an answer to one that came while no instance ran the
// task counts.
func keepAnswers(answers, asked map[string]json.RawMessage) map[string]json.RawMessage {
	var kept map[string]json.RawMessage
	for k, v := range answers {
		if _, ok := asked[k]; ok {
			if kept == nil {
				kept = map[string]json.RawMessage{}
			}
			kept[k] = v
		}
	}
	return kept
}
