package machine

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/contract"
	"github.com/elicitgen/elicitgen/internal/refuse"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Machine drives the steps of one tool (Call), prompt (GetPrompt, see
// NewPromptMachine) or resource (ReadResource, see NewResourceMachine) over
// MRTR rounds: one interpreter for the three request kinds, which reads a
// request through a small view of it (request.go).
type Machine struct {
	tool  string
	steps []Step
	props []map[string]struct{} // per step: the form's declared properties
	flow  hooks
	opts  elicitrt.ToolOptions
	// keys are opts.Keys, or the process's keyring when it names none.
	keys *seal.Keyring
	// kind is the request kind the machine serves; tool is then the name
	// its states and flows are bound to: the tool's name, "prompt:NAME" or
	// "resource:URI" (so that no tool's state opens for a prompt).
	kind kind
	// tasks and run are a task tool's (Flow.Tasks, Flow.Run; task.go).
	tasks TaskSupport
	run   func(ctx context.Context, t *Task, req *mcp.CallToolRequest, args any, answers Answers) (*mcp.CallToolResult, error)
	// restart is Flow.Restart.
	restart func(arguments json.RawMessage) (any, error)
	// questions is the questions digest of steps (questionsDigest),
	// sealed into every state, token and task record.
	questions string
	// fallbacks are the fallback lines logged (fallbacklog.go).
	fallbacks *fallbackLog
	// refusals are the refusal lines logged (observe.go).
	refusals *refuse.Log
}

// NewMachine returns the machine of tool, with its step table and flow.
func NewMachine(tool string, steps []Step, flow Flow, opts *elicitrt.ToolOptions) *Machine {
	m := newMachine(kindTool, tool, steps, flow.hooks(), opts)
	m.tasks, m.run, m.restart = flow.Tasks, flow.Run, flow.Restart
	return m
}

// newMachine returns the machine of a request kind, bound to name.
func newMachine(k kind, name string, steps []Step, flow hooks, opts *elicitrt.ToolOptions) *Machine {
	m := &Machine{tool: name, kind: k, steps: steps, flow: flow, props: make([]map[string]struct{}, len(steps)), questions: questionsDigest(steps), fallbacks: &fallbackLog{}, refusals: &refuse.Log{}}
	for i := range steps {
		m.props[i] = formProperties(&steps[i])
	}
	if opts != nil {
		m.opts = *opts
	}
	// The process's key ring (ELICITGEN_STATE_KEYS, and its warning when
	// unset) only when the options bring none.
	if m.opts.Keys != nil {
		m.keys = (*seal.Keyring)(m.opts.Keys)
	} else {
		m.keys = seal.DefaultKeyring()
	}
	if m.opts.TTL == 0 {
		m.opts.TTL = seal.DefaultStateTTL
	}
	if m.opts.MaxAttempts == 0 {
		m.opts.MaxAttempts = 3
	}
	if m.opts.MaxRounds == 0 {
		m.opts.MaxRounds = elicitrt.DefaultMaxRounds
	}
	if m.opts.Now == nil {
		m.opts.Now = time.Now
	}
	m.refusals.Clock = refuse.SystemClock(m.opts.Now)
	if m.opts.Logger == nil {
		m.opts.Logger = slog.Default()
	}
	warnSetup(opts, m.keys, m.opts.Logger)
	if m.opts.Grants == nil {
		m.opts.Grants = backend.DefaultGrants()
	}
	if m.opts.Replay == nil {
		m.opts.Replay = backend.DefaultReplayGuard()
	}
	if m.opts.LegacyURLWait == 0 {
		m.opts.LegacyURLWait = elicitrt.DefaultLegacyURLWait
	}
	if m.opts.LegacyAnswerWait <= 0 {
		m.opts.LegacyAnswerWait = elicitrt.DefaultLegacyAnswerWait
	}
	if m.opts.PreviewTTL <= 0 {
		m.opts.PreviewTTL = elicitrt.DefaultPreviewTTL
	}
	taskDefaults(&m.opts)
	return m
}

// taskDefaults sets the task options left zero to their defaults.
func taskDefaults(o *elicitrt.ToolOptions) {
	if o.Tasks == nil {
		o.Tasks = backend.DefaultTaskStore()
	}
	if o.TaskTTL <= 0 {
		o.TaskTTL = elicitrt.DefaultTaskTTL
	}
	if o.TaskPollInterval <= 0 {
		o.TaskPollInterval = elicitrt.DefaultTaskPollInterval
	}
	if o.TaskLease <= 0 {
		o.TaskLease = elicitrt.DefaultTaskLease
	}
	if o.TaskRestarts == 0 {
		o.TaskRestarts = elicitrt.DefaultTaskRestarts
	}
	if o.TaskLimits == nil {
		o.TaskLimits = elicitrt.DefaultTaskLimits()
	}
}

// flowState is the payload sealed into requestState: only what the flow
// needs between rounds (the declared properties of valid answers, bounded
// reasons, the flow's identity and the keys of the round's questions).
type flowState struct {
	// Questions is the questions digest of the release that sealed the
	// state: it opens as answers only under the same (skew.go).
	Questions string      `json:"v,omitempty"`
	ID        string      `json:"i,omitempty"` // the flow's identity, from its first round
	Step      int         `json:"s"`           // the first step not answered yet: the round's first
	Asked     []int       `json:"r,omitempty"` // the steps asked in the round this state answers
	Answers   Answers     `json:"a"`
	Steps     []stepState `json:"q"`           // per step
	Flow      string      `json:"f,omitempty"` // the URL step's flow id
	Token     string      `json:"k,omitempty"` // its flow token (the same link on every retry)
}

// stepState is what the state keeps of one step while it is asked.
type stepState struct {
	Asks   int    `json:"n,omitempty"` // how often it was asked
	Tries  int    `json:"t,omitempty"` // invalid answers to it so far
	Reason string `json:"e,omitempty"` // why the last answer was invalid (at most maxReasonLen bytes)
	// Kept are the valid properties of that answer: the defaults of the
	// step's next asking (at most maxKeptLen bytes of JSON in all steps).
	Kept map[string]any `json:"d,omitempty"`
	// Skipped is true when the handler decided not to ask the step
	// (Flow.Ask): the one way a step other than a task's During step
	// reaches Complete or Run unanswered (settle).
	Skipped bool `json:"x,omitempty"`
}

// Call runs one tools/call of the flow, in the order of the protocol: open
// the state, take the answers to the questions it asked, decide the next
// round, and seal it or complete. A panic in generated code or a handler
// method ends this call with a JSON-RPC internal error, logged with its
// stack, and never the process.
func (m *Machine) Call(ctx context.Context, req *mcp.CallToolRequest, args any) (*mcp.CallToolResult, error) {
	return asKind[*mcp.CallToolResult](m.serve(ctx, toolView(req), args))
}

// serve runs one request of the machine's kind (see Call).
func (m *Machine) serve(ctx context.Context, req *request, args any) (res mcp.Result, err error) {
	if m.opts.Hooks != nil {
		return m.serveObserved(ctx, req, args)
	}
	return m.serveCall(ctx, req, args, nil)
}

// serveObserved is serve reporting to the hooks.
func (m *Machine) serveObserved(ctx context.Context, req *request, args any) (res mcp.Result, err error) {
	ctx, s, start := m.begin(ctx, req)
	var c *call
	defer func() { m.end(ctx, s, start, c, res, err) }()
	return m.serveCall(ctx, req, args, &c)
}

// serveCall runs one request (see Call); into, when not nil, receives the
// call once it is open.
func (m *Machine) serveCall(ctx context.Context, req *request, args any, into **call) (res mcp.Result, err error) {
	defer m.recoverCall(&res, &err)
	c, err := m.open(ctx, req, args)
	if err != nil {
		return nil, err
	}
	if into != nil {
		*into = c
	}
	if c.task = c.tasking(); m.tasks == TaskRequired && !c.task {
		return nil, c.missingTasks()
	}
	if m.opts.Overloaded != nil && m.opts.Overloaded(c.ctx) {
		return c.seal(mcp.InputRequestMap{})
	}
	reask := false
	if len(c.st.Asked) > 0 {
		if done, res, err := c.takeAnswers(); done {
			return res, err
		}
		// Missing or invalid answers are asked again, in a new round,
		// with the round's other unanswered questions.
		reask = !m.advance(&c.st)
	}
	// Each pass settles or asks at least one step (settle.go).
	for range len(m.steps) + 1 {
		if done, res, err := c.askRounds(reask); done {
			return res, err
		}
		j, reason := c.unsettled()
		if j < 0 {
			return c.complete()
		}
		c.reopen(j, reason)
		reask = false
	}
	return nil, ErrInternal
}

// open binds the call and opens its requestState, if any.
func (m *Machine) open(ctx context.Context, req *request, args any) (*call, error) {
	bind := seal.Binding{Tool: m.tool, ArgsDigest: seal.DigestArguments(req.Params.Arguments), Principal: m.principal(req), Audience: m.opts.Audience}
	c := &call{
		m: m, ctx: context.WithValue(ctx, contract.PrincipalKey{}, bind.Principal), req: req, args: args,
		bind: bind, now: m.opts.Now(), legacy: isLegacy(req),
		st: flowState{Questions: m.questions, Answers: make(Answers, len(m.steps)), Steps: make([]stepState, len(m.steps))},
	}
	s := req.Params.RequestState
	if s == "" {
		return c, nil
	}
	round, payload, expires, why := m.keys.OpenReason(bind, s, c.now)
	if why != seal.NotRefused {
		c.refused(refuse.State, why)
		return nil, ErrInvalidState
	}
	c.round = round
	c.st = flowState{} // a state without "v" has no digest
	st := &c.st
	if err := json.Unmarshal(payload, st); err != nil {
		return nil, ErrInvalidState
	}
	if st.Questions != m.questions {
		c.startAgain()
		return c, nil
	}
	if st.Step < 0 || st.Step > len(m.steps) ||
		len(st.Answers) != len(m.steps) || len(st.Steps) != len(m.steps) {
		return nil, ErrInvalidState
	}
	for _, j := range st.Asked {
		if j < st.Step || j >= len(m.steps) || st.Steps[j].Asks < 1 {
			return nil, ErrInvalidState
		}
	}
	if m.opts.Hooks != nil {
		c.asked = expires.Add(-m.opts.TTL)
	}
	return c, nil
}

// answeredOnce reports whether st holds the answer of a Once step.
func (m *Machine) answeredOnce(st *flowState) bool {
	for j := range m.steps {
		if m.steps[j].Once && st.Answers[j] != nil {
			return true
		}
	}
	return false
}

// round lists the steps asked together in a round that begins at st.Step:
// that step, then the Together form steps right after it not answered yet.
// A 2025-11-25 call asks one step at a time, and a URL step is asked alone.
func (m *Machine) round(st *flowState, legacy bool) []int {
	i := st.Step
	steps := []int{i}
	if legacy || m.steps[i].Mode != ModeForm {
		return steps
	}
	for j := i + 1; j < len(m.steps) && m.steps[j].Together && m.steps[j].Mode == ModeForm; j++ {
		if st.Answers[j] == nil {
			steps = append(steps, j)
		}
	}
	return steps
}

// advance moves st.Step past the answered steps at its start (the round's
// first step and the Together steps answered with it) and reports whether
// it moved.
func (m *Machine) advance(st *flowState) bool {
	from := st.Step
	for st.Step < len(m.steps) && st.Answers[st.Step] != nil {
		st.Step++
	}
	return st.Step != from
}
