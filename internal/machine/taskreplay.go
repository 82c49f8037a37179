package machine

import (
	"context"
	"encoding/json"
	"errors"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/elicitgen/elicitgen/internal/contract"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Replay (taskrun/replay.go): a restartable task's record keeps the
// creating call and the reply of every Ask; a restarted Run replays them.
// The interpreter's side is here: the call it records, the replies as the
// step indexes Run knows, and the run it resumes.

// replayRecord is the Replay of the task the call creates, whose kept
// call is kept (keptCall); nil unless the tool is restartable.
func (c *call) replayRecord(kept json.RawMessage) (*backend.TaskReplay, error) {
	if c.m.restart == nil {
		return nil, nil
	}
	state, err := json.Marshal(&c.st)
	if err != nil {
		return nil, err
	}
	return &backend.TaskReplay{Call: kept, State: state}, nil
}

// replayed answers the task's next Ask from its record, after a restart;
// ok is false once the recorded Asks are used up.
func (t *Task) replayed(steps []int) (r elicitrt.Reply, ok bool, err error) {
	rec, err := t.replay.Next(t.m.stepKeys(steps))
	if rec == nil {
		return elicitrt.Reply{}, err != nil, err
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
	return t.job.AppendAsk(ctx, entry)
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
		next, failed, err := taskrun.FailLapsed(ctx, o.Tasks, rec.ID, o.Now)
		if failed {
			m.takeover(ctx, "failed")
		}
		return next, err
	}
	ticket, refused := taskrun.LimiterOf(o.TaskLimits).Admit(rec.Principal, rec.ID)
	if refused != nil {
		return rec, nil
	}
	claimed, err := taskrun.Claim(ctx, o.Tasks, rec.ID, o.TaskRestarts, o.TaskLease, o.Now)
	if err != nil || claimed == nil {
		ticket.Release()
		if errors.Is(err, taskrun.ErrLeaseHeld) {
			return claimed, nil
		}
		return claimed, err
	}
	if err := m.resume(claimed, ticket); err != nil {
		m.takeover(ctx, "failed")
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
	m.takeover(ctx, "restarted")
	return claimed, nil
}

// takeover reports a takeover of a task whose lease lapsed: restarted
// here, or failed.
func (m *Machine) takeover(ctx context.Context, outcome string) {
	if m.opts.Hooks != nil {
		m.opts.Hooks.Event(ctx, &backend.Event{Kind: backend.EventTakeover, Method: "tools/call", Target: m.target(), Outcome: outcome})
	}
}

// resume runs the Run of the task rec, claimed by this instance, again.
// Its context carries the principal, none of the creating request's other
// values; its request, the name, arguments and capabilities, no session.
func (m *Machine) resume(rec *backend.TaskRecord, ticket *taskrun.Ticket) error {
	req, err := taskView(rec.Replay.Call, nil)
	if err != nil {
		return err
	}
	var st flowState
	if err := json.Unmarshal(rec.Replay.State, &st); err != nil {
		return err
	}
	if st.Questions != m.questions || len(st.Answers) != len(m.steps) || len(st.Steps) != len(m.steps) {
		return ErrToolChanged // the record is of another release's questions
	}
	args, err := m.restart(req.Params.Arguments)
	if err != nil {
		return err
	}
	base := context.WithValue(context.Background(), contract.PrincipalKey{}, rec.Principal)
	ctx, cancel := context.WithTimeout(base, rec.Expires.Sub(m.opts.Now()))
	c := &call{m: m, ctx: ctx, req: req, args: args,
		bind: seal.Binding{Tool: m.tool, Principal: rec.Principal}, now: m.opts.Now(), st: st, task: true}
	if j, _ := c.unsettled(); j >= 0 {
		cancel()
		return ErrToolChanged // an answer recorded then does not answer its step now
	}
	t := m.newTask(c, rec, ticket)
	t.replay, t.reopen = taskrun.Replay{Asked: rec.Replay.Asked}, m.openAsks(rec)
	t.start(ctx, cancel, rec.Status)
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
