package machine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/refuse"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// call is one tools/call as the machine runs it: the request, the binding
// its state is sealed under, and the flow's state so far.
type call struct {
	m      *Machine
	ctx    context.Context
	req    *request
	args   any
	bind   seal.Binding
	now    time.Time
	legacy bool
	round  uint32 // input_required results of this flow so far
	st     flowState
	// previewed is true when a confirmation token answered a step: its
	// flow's identity is the token's.
	previewed bool
	// task is true when the call creates a task once the steps before
	// the During ones are answered (see tasking).
	task bool
	// admitted is the task's place under TaskLimits, taken by complete
	// before it claims a once flow, until runTask takes it.
	admitted *taskrun.Ticket
	// asked is when the questions this call answers were asked (the
	// state's sealing), for Hooks; digest is the flow's FlowDigest.
	asked  time.Time
	digest string
	rounds int // questions of a 2025-11-25 call so far
	// restarted is true when the call's state was sealed for other
	// questions, until its first question carries ToolChangedNote.
	restarted bool
}

// askRounds runs the call's rounds from st.Step: each is decided, then asked
// (done, with the questions) or answered without asking; done is false
// once no step before Run or Complete is left.
func (c *call) askRounds(reask bool) (done bool, res mcp.Result, err error) {
	m := c.m
	for c.st.Step < len(m.steps) && !(c.task && m.steps[c.st.Step].During) {
		if !reask {
			done, moved, res, err := c.decide()
			if done {
				return true, res, err
			}
			if moved {
				continue
			}
		}
		reask = false
		asking := m.round(&c.st, c.legacy)
		for _, j := range asking {
			if t := c.st.Steps[j]; t.Tries >= m.opts.MaxAttempts {
				c.event(backend.Event{Kind: backend.EventGaveUp, Steps: []string{m.steps[j].Key}})
				return true, toolError(fmt.Sprintf("%s: gave up after %d invalid answers: %s", m.steps[j].Key, t.Tries, t.Reason)), nil
			}
		}
		if c.legacy {
			if done, res, err := c.askNow(c.st.Step); done {
				return true, res, err
			}
			m.advance(&c.st)
			continue
		}
		res, err := c.ask(asking)
		return true, res, err
	}
	return false, nil, nil
}

// missingTasks is the error of a call of a task-only tool that cannot run
// as a task: MissingTasksExtension, whose message, on a revision before
// 2026-07-28 (where the extension does not exist, declared or not), says
// that tasks need protocol 2026-07-28.
func (c *call) missingTasks() *jsonrpc.Error {
	err := MissingTasksExtension()
	if v := c.req.ProtocolVersion(); v != "" && v < LatestProtocolVersion {
		err.Message = "this tool runs as a task (the " + TasksExtension + " extension), and tasks need protocol " +
			LatestProtocolVersion + "; this connection uses " + bounded(v) + ": reconnect with " + LatestProtocolVersion
	}
	return err
}

// takeAnswers applies the retry's answers to the questions the state says
// were asked, each under its own key; answers under any other key are
// ignored (the spec: a server ignores what it did not ask).
func (c *call) takeAnswers() (done bool, res mcp.Result, err error) {
	asked := c.st.Asked
	c.st.Asked = nil
	for _, j := range asked {
		resp, _ := c.req.Params.InputResponses[inputKey(c.m.steps[j].Key, c.st.Steps[j].Asks)].(*mcp.ElicitResult)
		if resp == nil {
			continue
		}
		if done, res, err := c.take(j, resp); done {
			return true, res, err
		}
	}
	return false, nil, nil
}

// decide settles the round that begins at st.Step before it is asked: the
// handler may skip its first step, the arguments may answer its steps, or
// the client may be unable to show them. moved is true when st.Step moved
// (decide again); done when the call ends with (res, err).
func (c *call) decide() (done, moved bool, res mcp.Result, err error) {
	from := c.st.Step
	if handled, res, err := c.skip(from); handled {
		return res != nil || err != nil, true, res, err
	}
	for _, j := range c.m.round(&c.st, c.legacy)[1:] {
		if handled, res, err := c.skip(j); handled && (res != nil || err != nil) {
			return true, false, res, err
		}
	}
	return false, c.st.Step != from, nil, nil
}

// ask ends the call with the round's questions and the sealed state.
func (c *call) ask(asking []int) (mcp.Result, error) {
	m := c.m
	if int(c.round) >= m.opts.MaxRounds {
		// The client would give up before the answer came.
		return toolError(fmt.Sprintf("%s: no answer after %d rounds of questions; call the tool again to start over", m.steps[c.st.Step].Key, c.round)), nil
	}
	if c.st.ID == "" {
		c.st.ID = seal.NewFlowID()
	}
	c.round++
	requests := make(mcp.InputRequestMap, len(asking))
	for _, j := range asking {
		if c.st.Steps[j].Asks > 0 && m.opts.Hooks != nil {
			c.event(backend.Event{Kind: backend.EventReasked, Steps: []string{m.steps[j].Key}, Reason: c.reaskReason(j)})
		}
		c.st.Steps[j].Asks++
		params, err := c.params(j)
		if err != nil {
			return nil, err
		}
		requests[inputKey(m.steps[j].Key, c.st.Steps[j].Asks)] = params
	}
	c.st.Asked = asking
	if m.opts.Hooks != nil {
		c.event(backend.Event{Kind: backend.EventAsked, Steps: m.stepKeys(asking)})
	}
	return c.seal(requests)
}

// askNow asks step i of a 2025-11-25 call with a server-to-client request
// and waits for the answer, at most ToolOptions.LegacyAnswerWait, and no
// longer than the session lives (see HTTPHandler). An accepted URL step
// then waits for its flow to finish.
func (c *call) askNow(i int) (done bool, res mcp.Result, err error) {
	m := c.m
	step := &m.steps[i]
	params, err := c.params(i)
	if err != nil {
		return true, nil, err
	}
	if step.Mode == ModeURL {
		params.ElicitationID = c.st.Flow // 2025-11-25 URL mode needs one
	}
	if m.opts.Hooks != nil {
		c.askedNow(i)
	}
	resp, err := elicitLegacy(c.ctx, c.req.Session, params, m.opts.LegacyAnswerWait)
	if errors.Is(err, errNoAnswer) {
		return true, toolError(step.Key + ": no answer came; call the tool again to be asked again"), nil
	}
	if err != nil {
		return true, nil, err
	}
	if done, res, err := c.take(i, resp); done {
		return true, res, err
	}
	if step.Mode == ModeURL && c.st.Answers[i] == nil && resp.Action == ActionAccept {
		// Accepted, not finished yet, and no retry will come on this
		// era: the call waits for the browser, then goes on.
		flow := c.st.Flow
		finished, denied, err := m.awaitFlow(c.ctx, flow, c.bind.Principal)
		if err != nil {
			return true, nil, err
		}
		c.urlAnswered(i, finished, denied)
		if denied {
			// The person declined at the provider: the step's decline path.
			res, err := m.flow.Ended(c.ctx, c.req, c.args, i, ActionDecline, c.st.Answers)
			return true, res, err
		}
		if !finished {
			// A later call finds the user's grant.
			return true, elicitrt.Text(LegacyURLUnfinished), nil
		}
		c.st.finishURLStep(i)
		if err := c.req.Session.NotifyElicitationComplete(c.ctx, &mcp.ElicitationCompleteParams{ElicitationID: flow}); err != nil {
			c.log().Debug("elicitgen: notifying the completion of a URL step", "err", err)
		}
	}
	return false, nil, nil
}

// complete ends the flow with every answer in. A flow that answered a Once
// step completes once: the first completion claims the flow's identity,
// and any other, from whichever of its states, gets ErrReplayed.
func (c *call) complete() (mcp.Result, error) {
	m := c.m
	if c.st.ID != "" && m.answeredOnce(&c.st) {
		if m.run != nil && c.task {
			// The bounds admit the task before the flow is claimed: a
			// refusal spends no claim, so that the same retry works once
			// there is room (docs/guide/tasks.md#bounds). Claiming first made
			// every refused retry of a once flow "requestState already
			// used" for good. runTask takes the ticket; any other end of
			// the call gives it back.
			ticket, refused := c.admitTask(taskrun.NewID())
			if refused != nil {
				return nil, refused
			}
			c.admitted = ticket
			defer func() {
				if c.admitted != nil {
					c.admitted.Release()
				}
			}()
		}
		first, err := m.opts.Replay.Claim(c.ctx, flowClaimID(m.tool, c.bind, c.st.ID), m.claimTTL())
		if err != nil {
			c.storeError(err, "replay", "Claim")
			return nil, err
		}
		what := refuse.State
		if c.previewed {
			what = refuse.Token
		}
		c.onceClaim(first, what)
		if !first {
			if c.previewed {
				return c.errPreviewToken(), nil
			}
			return nil, ErrReplayed
		}
	}
	if m.run != nil {
		return c.runTask()
	}
	return m.flow.Complete(c.ctx, c.req, c.args, c.st.Answers)
}

// params builds the input request of step j, with the reason its last
// answer was invalid; a URL step's flow starts at its first asking.
func (c *call) params(j int) (*mcp.ElicitParams, error) {
	p, err := c.paramsOf(j)
	if err == nil && c.restarted {
		p.Message = ToolChangedNote + p.Message // the first question of the flow started again
		c.restarted = false
	}
	return p, err
}

// paramsOf is params without the note of a flow started again.
func (c *call) paramsOf(j int) (*mcp.ElicitParams, error) {
	m := c.m
	step := &m.steps[j]
	if step.Mode != ModeURL {
		p := step.Params(c.message(j))
		if d := c.callDefaults(j); len(d) > 0 {
			p.RequestedSchema = withDefaults(p.RequestedSchema, d)
		}
		return p, nil
	}
	if c.st.Flow == "" {
		flow := seal.NewFlowID()
		token, err := m.keys.SealFlow(seal.ConnectFlow{ID: flow, Subject: c.bind.Principal, Tool: m.tool, Step: step.Key}, m.opts.Audience, c.now, m.opts.TTL)
		if err != nil {
			c.log().Warn("elicitgen: cannot seal a flow token", "err", err)
			return nil, ErrInternal
		}
		c.st.Flow, c.st.Token = flow, token
	}
	c.urlStep(j, backend.URLSent)
	return &mcp.ElicitParams{Mode: "url", Message: c.message(j),
		URL: m.flow.Link(c.ctx, c.req, c.args, j, c.st.Answers, c.st.Token)}, nil
}

// skip decides, for step j about to be asked, whether it is asked at all:
// the handler may skip it (the round's first step only), the arguments may
// answer it (never a Once step), or the client may be unable to show it
// (a Once step then never falls back to its defaults). handled is false
// when the step is to be asked.
func (c *call) skip(j int) (handled bool, res mcp.Result, err error) {
	m, st := c.m, &c.st
	step := &m.steps[j]
	if !step.Together && m.flow.Ask != nil && !m.flow.Ask(c.ctx, c.req, c.args, j, st.Answers) {
		st.Steps[j].Skipped = true
		st.Step++     // only a round's first step has a handler to skip it
		m.advance(st) // past the steps answered after it: a step asked again (settle.go)
		return true, nil, nil
	}
	if prefills(step) {
		content, all := prefill(c.req.Params.Arguments, step.Prefill, step.PrefillNeeds)
		if reason := badPrefill(step, content, all); reason != "" {
			return true, toolError("invalid arguments: " + bounded(reason)), nil
		}
		if all {
			st.Answers[j] = m.declared(j, content)
			m.advance(st)
			return true, nil, nil
		}
	}
	if canShow(c.req, step.Mode) {
		return c.spendPreview(j) // one confirmation, one effect
	}
	c.logFallback(j)
	if m.opts.Hooks != nil {
		c.event(backend.Event{Kind: backend.EventFallback, Steps: []string{step.Key}, Reason: fallbackNames[step.Fallback],
			ProtocolVersion: c.req.ProtocolVersion(), Modes: declaredModes(c.req)})
	}
	switch step.Fallback {
	case FallbackDefaults:
		if step.Once || step.Confirm != "" {
			break // a confirmation is never answered for the user
		}
		// The form's defaults, and the call's: the model's prefilled
		// values, which a form would have shown as defaults.
		content := c.withCallDefaults(j, map[string]any{})
		if err := step.Check(content); err == nil {
			st.Answers[j] = m.declared(j, content)
			m.advance(st)
			return true, nil, nil
		}
		if step.Missing != "" {
			return true, toolError(step.Missing), nil
		}
	case FallbackArguments:
		return true, toolError(step.Missing), nil
	case FallbackHandler:
		res, err := m.flow.Unavailable(c.ctx, c.req, c.args, j, st.Answers)
		return true, res, err
	case FallbackPreview:
		if m.hasPreview(j) {
			return c.preview(j)
		}
	case FallbackLink:
		if step.Mode == ModeURL && m.flow.Link != nil {
			return c.link(j)
		}
	}
	return true, nil, m.missingCapability(step.Mode)
}

// take applies an elicitation result to step j. done is true when the call
// ends with (res, err); otherwise the step is answered (st.Answers[j] set,
// with the form's declared properties only), or the answer was invalid and
// st records why, or a URL step's flow has not finished yet.
func (c *call) take(j int, resp *mcp.ElicitResult) (done bool, res mcp.Result, err error) {
	m := c.m
	step := &m.steps[j]
	t := &c.st.Steps[j]
	if resp.Action == ActionAccept && step.Mode == ModeForm && !step.yes(resp.Content) && step.Check(resp.Content) == nil {
		resp = &mcp.ElicitResult{Action: ActionDecline} // a no to a confirmation: its decline
	}
	switch resp.Action {
	case ActionDecline, ActionCancel:
		c.answered(j, resp.Action)
		if step.During {
			// A task tool in the foreground: Run gets the outcome from
			// Task.Ask, as it would in a task.
			c.st.Answers[j] = map[string]any{duringOutcomeKey: resp.Action}
			t.Tries, t.Reason = 0, ""
			return false, nil, nil
		}
		res, err := m.flow.Ended(c.ctx, c.req, c.args, j, resp.Action, c.st.Answers)
		return true, res, err
	case ActionAccept:
	default:
		c.answered(j, backend.OutcomeInvalid)
		c.invalid(j, "unknown action "+strconv.Quote(bounded(resp.Action)))
		return false, nil, nil
	}
	if step.Mode == ModeURL {
		// Accept is consent, not completion: the grant store says whether
		// the flow finished, for this principal.
		finished, denied, err := m.flowFinished(c.ctx, c.st.Flow, c.bind.Principal)
		if err != nil {
			c.storeError(err, "grants", "FlowSubject")
			return true, nil, err
		}
		if finished || denied || !c.legacy {
			c.urlAnswered(j, finished, denied) // on 2025-11-25, askNow waits first
		}
		if denied {
			// The person refused at the third party: the step's decline
			// path, as if they had declined the link itself.
			res, err := m.flow.Ended(c.ctx, c.req, c.args, j, ActionDecline, c.st.Answers)
			return true, res, err
		}
		if finished {
			c.st.finishURLStep(j)
		}
		return false, nil, nil
	}
	if c.keepForm(j, resp.Content) {
		c.answered(j, backend.OutcomeAccept)
	} else {
		c.answered(j, backend.OutcomeInvalid)
	}
	return false, nil, nil
}

// keepForm keeps the accepted content of form step j as its answer
// (st.Answers[j], the form's declared properties only) and reports true,
// when the form's decoder takes it and it fits in MaxAnswersLen; otherwise
// the answer is an invalid try, st records why, and it reports false.
// Rounds and a task's asks judge answers with it alike.
func (c *call) keepForm(j int, content map[string]any) bool {
	if content == nil {
		content = map[string]any{}
	}
	content = c.withCallDefaults(j, content)
	if err := c.m.steps[j].Check(content); err != nil {
		c.invalid(j, bounded(shownReason(err)))
		c.keepValid(j, content, err)
		return false
	}
	kept := c.m.declared(j, content)
	if size := answersSize(c.st.Answers) + jsonSize(kept); size > MaxAnswersLen {
		c.invalid(j, fmt.Sprintf("the answers are too long (%d bytes of JSON; at most %d in all): please shorten them", size, MaxAnswersLen))
		c.keepValid(j, kept, nil) // none: the answer is too long to keep
		return false
	}
	c.st.Answers[j] = kept
	c.st.Steps[j].Tries, c.st.Steps[j].Reason, c.st.Steps[j].Kept = 0, "", nil
	return true
}

// invalid counts an invalid answer to step j and keeps why (bounded).
func (c *call) invalid(j int, reason string) {
	t := &c.st.Steps[j]
	t.Tries++
	t.Reason = bounded(reason)
}

// message is the step's message, with the reason the last answer was
// refused when it is asked again.
func (c *call) message(i int) string {
	m := c.m
	msg := m.steps[i].Message
	if msg == "" && m.flow.Message != nil {
		msg = m.flow.Message(c.ctx, c.req, c.args, i, c.st.Answers)
	}
	if r := c.st.Steps[i].Reason; r != "" {
		msg += "\n\nPlease correct: " + r + "."
	}
	return msg
}

// seal ends the call with requests and the flow's state sealed for the
// next round. A state that does not fit is an internal error, logged: the
// answers it keeps are bounded (MaxAnswersLen), so only a very long
// principal or audience can cause it.
func (c *call) seal(requests mcp.InputRequestMap) (mcp.Result, error) {
	m := c.m
	payload, err := json.Marshal(c.st)
	if err == nil {
		var state string
		if state, err = m.keys.Seal(c.bind, c.round, payload, c.now, m.opts.TTL); err == nil {
			return m.inputRequired(requests, state), nil
		}
	}
	c.log().Warn("elicitgen: cannot seal the state of a round", "err", err, "bytes", len(payload))
	return nil, ErrInternal
}
