package machine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// FlowDigest is the digest by which telemetry names a flow: the same for
// every round of it, on every instance; 16 hex digits of a SHA-256 of the
// target and the flow's random identity. It says nothing of the flow
// itself.
func FlowDigest(target, id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("elicitgen flow v1\x00" + target + "\x00" + id))
	return hex.EncodeToString(sum[:8])
}

// methodOf names the JSON-RPC method of a request kind.
func (k kind) method() string {
	switch k {
	case kindPrompt:
		return "prompts/get"
	case kindResource:
		return "resources/read"
	}
	return "tools/call"
}

// target is the machine's name as telemetry reports it: the tool, the
// prompt, or the resource URI as registered.
func (m *Machine) target() string {
	switch m.kind {
	case kindPrompt:
		return m.tool[len("prompt:"):]
	case kindResource:
		return m.tool[len("resource:"):]
	}
	return m.tool
}

// begin reports a request's start to the hooks (non-nil).
func (m *Machine) begin(ctx context.Context, req *request) (context.Context, *backend.Served, time.Time) {
	s := &backend.Served{Method: m.kind.method(), Target: m.target(), ProtocolVersion: req.ProtocolVersion()}
	if p := req.raw.GetParams(); p != nil {
		s.Meta = p.GetMeta()
	}
	return m.opts.Hooks.Begin(ctx, s), s, time.Now()
}

// end reports a request's end to the hooks (non-nil).
func (m *Machine) end(ctx context.Context, s *backend.Served, start time.Time, c *call, res mcp.Result, err error) {
	s.Duration = time.Since(start)
	s.ErrorType = ErrorType(res, err)
	if c != nil {
		s.Flow = c.flowDigest()
	}
	m.opts.Hooks.End(ctx, s)
}

// ErrorType is the error.type of a request's outcome ("" for success): a
// JSON-RPC error's code, "tool_error" for a tool result with isError, or
// "_OTHER".
func ErrorType(res mcp.Result, err error) string {
	if err != nil {
		if je, ok := err.(*jsonrpc.Error); ok {
			return strconv.Itoa(int(je.Code))
		}
		return "_OTHER"
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
		return "tool_error"
	}
	return ""
}

// flowDigest is the digest of the call's flow, once it has an identity
// (a 2025-11-25 call, whose flow lives in the call, has one of its own
// from its first question).
func (c *call) flowDigest() string {
	if c.digest == "" && c.st.ID != "" {
		c.digest = FlowDigest(c.m.tool, c.st.ID)
	}
	return c.digest
}

// askedNow reports a question of a 2025-11-25 call, asked with a
// server-to-client request: a round of its own.
func (c *call) askedNow(i int) {
	if c.digest == "" && c.st.ID == "" {
		c.digest = FlowDigest(c.m.tool, seal.NewFlowID())
	}
	c.rounds++
	c.asked = c.m.opts.Now()
	if c.st.Steps[i].Tries > 0 {
		c.event(backend.Event{Kind: backend.EventReasked, Steps: []string{c.m.steps[i].Key}, Reason: "invalid"})
	}
	c.event(backend.Event{Kind: backend.EventAsked, Steps: []string{c.m.steps[i].Key}})
}

// reaskReason says why step j is asked again: its last answer was
// invalid, no answer to it came, or its URL flow has not finished.
func (c *call) reaskReason(j int) string {
	switch {
	case c.st.Steps[j].Reason != "":
		return "invalid"
	case c.m.steps[j].Mode == ModeURL && c.st.Flow != "":
		return "unfinished"
	}
	return "missing"
}

// refused reports and logs (refuse.Log) that what the client echoed back
// was refused, and why; the client is told nothing of it.
func (c *call) refused(what string, why seal.Refusal) {
	c.m.refusals.Refused(c.m.opts.Logger, what, c.m.tool, why)
	c.event(backend.Event{Kind: backend.EventRefused, Outcome: what, Reason: why.String()})
}

// onceClaim reports a single-use claim, won or refused (what: the state of
// a Once flow, or a confirmation token).
func (c *call) onceClaim(first bool, what string) {
	if !first {
		c.refused(what, seal.RefusedUsed)
	}
	if c.m.opts.Hooks == nil {
		return
	}
	outcome := "won"
	if !first {
		outcome = "refused"
	}
	c.event(backend.Event{Kind: backend.EventOnce, Outcome: outcome})
}

// event reports e, filled with the call's request and flow, when the
// machine has hooks.
func (c *call) event(e backend.Event) {
	h := c.m.opts.Hooks
	if h == nil {
		return
	}
	e.Method, e.Target = c.m.kind.method(), c.m.target()
	e.Flow, e.Round = c.flowDigest(), int(c.round)+c.rounds
	h.Event(c.ctx, &e)
}

// answered reports the outcome of an answer to step j.
func (c *call) answered(j int, outcome string) {
	if c.m.opts.Hooks == nil {
		return
	}
	wait := time.Duration(-1)
	if !c.asked.IsZero() {
		wait = max(c.m.opts.Now().Sub(c.asked), 0)
	}
	c.event(backend.Event{Kind: backend.EventAnswered, Steps: []string{c.m.steps[j].Key}, Outcome: outcome, Wait: wait})
}

// urlAnswered reports an accept of URL step j: an accept of the step
// once its sign-in finished; before, "unfinished"; a sign-in refused at
// the third party, a decline.
func (c *call) urlAnswered(j int, finished, denied bool) {
	outcome, state := backend.OutcomeUnfinished, backend.URLUnfinished
	switch {
	case denied:
		outcome, state = backend.OutcomeDecline, backend.URLDenied
	case finished:
		outcome, state = backend.OutcomeAccept, backend.URLFinished
	}
	c.answered(j, outcome)
	c.urlStep(j, state)
}

// urlStep reports URL step j's state, when the machine has hooks (the
// event is built only then: a link goes out in every round that asks).
func (c *call) urlStep(j int, state string) {
	if c.m.opts.Hooks != nil {
		c.event(backend.Event{Kind: backend.EventURLStep, Steps: []string{c.m.steps[j].Key}, Outcome: state})
	}
}

// storeError reports a store's failure, when err is one.
func (c *call) storeError(err error, store, op string) {
	if err != nil && c.m.opts.Hooks != nil {
		c.event(backend.Event{Kind: backend.EventStoreError, Store: store, Operation: op})
	}
}

// stepKeys are the keys of steps.
func (m *Machine) stepKeys(steps []int) []string {
	keys := make([]string, len(steps))
	for i, j := range steps {
		keys[i] = m.steps[j].Key
	}
	return keys
}

// fallbackNames names the fallbacks for EventFallback.
var fallbackNames = [...]string{FallbackError: "error", FallbackDefaults: "defaults",
	FallbackArguments: "arguments", FallbackHandler: "handler", FallbackPreview: "preview", FallbackLink: "link"}

// taskStatusReport is the status of a task last reported to the hooks:
// its work and its watcher both see status changes, each reported once,
// and none after the task ended.
type taskStatusReport struct {
	mu     sync.Mutex
	status backend.TaskStatus
}

// moved reports the task's move to status, once, when the machine has
// hooks.
func (t *Task) moved(status backend.TaskStatus) {
	if t.m.opts.Hooks == nil {
		return
	}
	r := &t.status
	r.mu.Lock()
	from := r.status
	if from == status || from.Terminal() {
		r.mu.Unlock()
		return
	}
	r.status = status
	r.mu.Unlock()
	e := backend.Event{Kind: backend.EventTaskStatus, Method: "tools/call", Target: t.m.target(), Outcome: string(status), Reason: string(from)}
	t.m.opts.Hooks.Event(t.c.ctx, &e)
}

// log is the logger of records about the call's flow: they name the tool
// and, once the flow has an identity, its digest as "flow" (the same as
// Served.Flow and elicitgen.flow.id; never its state).
func (c *call) log() *slog.Logger {
	l := c.m.opts.Logger.With("tool", c.m.tool)
	if d := c.flowDigest(); d != "" {
		l = l.With("flow", d)
	}
	return l
}

// taskReport is a task's taskrun.Reporter: its records, store errors and
// status moves, as the call's.
type taskReport struct{ t *Task }

func (r taskReport) Log() *slog.Logger               { return r.t.c.log() }
func (r taskReport) StoreError(err error)            { r.t.c.storeError(err, "tasks", "Update") }
func (r taskReport) Moved(status backend.TaskStatus) { r.t.moved(status) }

// LeaseError reports and logs a store error of the task's watcher, which
// runs beside Run: it reads nothing of the call that Run changes (the
// flow's digest was taken before both started).
func (r taskReport) LeaseError(err error) {
	t := r.t
	if h := t.m.opts.Hooks; h != nil {
		h.Event(t.c.ctx, &backend.Event{Kind: backend.EventStoreError, Method: "tools/call", Target: t.m.target(), Flow: t.digest, Store: "tasks", Operation: "Update"})
	}
	l := t.m.opts.Logger.With("tool", t.m.tool)
	if t.digest != "" {
		l = l.With("flow", t.digest)
	}
	l.Warn("elicitgen: cannot renew a task's lease", "task", t.job.ID, "err", err)
}
