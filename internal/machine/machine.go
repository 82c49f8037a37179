package machine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/contract"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Mode is how a step asks: a form or a URL.
type Mode uint8

const (
	ModeForm Mode = iota
	ModeURL
)

// Fallback is what a step does when the request cannot show it (the client
// did not declare the elicitation mode it needs). Asking anyway is never an
// option.
type Fallback uint8

const (
	// FallbackError returns -32021 with data.requiredCapabilities.
	FallbackError Fallback = iota
	// FallbackDefaults answers the form with its defaults (when it has no
	// required property without one).
	FallbackDefaults
	// FallbackArguments ends the call with a tool error naming the missing
	// arguments and their allowed values.
	FallbackArguments
	// FallbackHandler calls the handler's Unavailable branch.
	FallbackHandler
	// FallbackPreview, for a Once step, completes the call with the
	// handler's preview and a confirmation token; the same call with the
	// token answers the step with its Accept content (see preview.go).
	FallbackPreview
	// FallbackLink, for a URL step, completes the call with the step's
	// link in the result's text; a later call finds the flow finished
	// (see link.go).
	FallbackLink
)

// Actions of an elicitation result that end a flow.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// LatestProtocolVersion is the first protocol revision with MRTR.
const LatestProtocolVersion = "2026-07-28"

// Step is one row of a tool's step table, built by generated code.
type Step struct {
	// Key names the step; it is the input request key (see inputKey).
	Key string
	// Digest is the digest of what the person is shown at the step and
	// what the answer means, computed by the generator (docs/deploys.md):
	// the machine opens no state, token or task record sealed for other
	// questions (skew.go).
	Digest string
	// Mode is form or URL.
	Mode Mode
	// Fallback applies when the request cannot show the step.
	Fallback Fallback
	// Message is the static message; empty when the handler computes it.
	Message string
	// Prefill lists the form's property names when the step takes them
	// from the tool's arguments; nil otherwise.
	Prefill []string
	// PrefillNeeds lists the properties the arguments must all supply for
	// the step to be answered from them (the form's required properties, or
	// else those without a default); the rest come from the arguments when
	// present, else from the form's defaults.
	PrefillNeeds []string
	// Once makes the step a confirmation that is asked, once: it is never
	// answered from the arguments, from answers the server did not ask for,
	// or by its defaults when the client cannot show it; and a flow that
	// answered it completes once (a flow has one identity from its first
	// round; any later completion, from whichever of its states, gets
	// ErrReplayed). Set on the final step.
	Once bool
	// Together asks the step in the same round as the step before it, a
	// form step. It must be a form step with a static Message (generated
	// code guarantees both); the machine never calls Flow.Ask for it. A
	// 2025-11-25 call asks it after that step, as any other.
	Together bool
	// Confirm, on a confirmation form step, names its boolean property
	// that only true answers: an answer accepted with anything else, and
	// valid for the form, is the step's decline (Flow.Ended with
	// ActionDecline, its answer nil), never an answer; a Confirm step is
	// never answered from the arguments or by its defaults, and Accept
	// must set it to true. Not for During steps (a task's Task.Ask does
	// not read it; generated code never sets both).
	Confirm string
	// Missing is the tool error text of FallbackArguments.
	Missing string
	// Accept is the content of a FallbackPreview step confirmed with a
	// token (for a confirmation form, its one boolean set to true).
	Accept map[string]any
	// Params builds the input request of a form step.
	Params func(message string) *mcp.ElicitParams
	// Check decodes accepted content with the form's decoder; a
	// *ContentError says why it is invalid.
	Check func(content map[string]any) error
	// During marks a step of a task tool (Flow.Tasks) that the handler's
	// Run asks while the task runs, through Task.Ask, instead of a round
	// before it starts. During steps come after every other step. A call
	// that runs in the foreground (a client without the tasks extension)
	// asks them as ordinary steps before Run, which gets their answers from
	// Task.Ask at once; a decline or cancel of one goes to Run too (Task.Ask's
	// Outcome), never to Flow.Ended.
	During bool
}

// Answers are the accepted contents of a flow's steps, by step index; nil
// for a step that was not asked.
type Answers []map[string]any

// Flow is what a tool's handler offers the machine; generated code adapts a
// typed handler to it.
type Flow struct {
	// Message computes the message of step i; nil when every step's is static.
	Message func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, answers Answers) string
	// Ask decides whether step i is asked; nil means always.
	Ask func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, answers Answers) bool
	// Complete ends the flow with every answer in.
	Complete func(ctx context.Context, req *mcp.CallToolRequest, args any, answers Answers) (*mcp.CallToolResult, error)
	// Ended ends the flow on decline or cancel at step i.
	Ended func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, answers Answers) (*mcp.CallToolResult, error)
	// Link builds the URL of URL step i from the flow token: a link to the
	// server's own connect page (see NewConnectHandlers) carrying it.
	Link func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, answers Answers, token string) string
	// Unavailable ends the flow when step i cannot be shown and its fallback
	// is FallbackHandler.
	Unavailable func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, answers Answers) (*mcp.CallToolResult, error)
	// Preview writes what a FallbackPreview step i confirms (what will
	// happen), from the arguments and the answers so far.
	Preview func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, answers Answers) string

	// Tasks says whether the tool runs as a task of the
	// io.modelcontextprotocol/tasks extension (see task.go); a task tool
	// has Run instead of Complete.
	Tasks TaskSupport
	// Run is a task tool's work, once the steps before its During steps
	// are answered: in a task for a client that declared the extension
	// (asking its During steps through t), in the foreground otherwise.
	Run func(ctx context.Context, t *Task, req *mcp.CallToolRequest, args any, answers Answers) (*mcp.CallToolResult, error)
	// Restart, for a task tool declared restartable, decodes the
	// arguments of a task's creating call, kept in its record, to run Run
	// again on another instance once its own died (taskreplay.go); nil:
	// the task is failed instead.
	Restart func(arguments json.RawMessage) (any, error)
}

// ToolOptions configure a tool's machine. The zero value is usable.
type ToolOptions struct {
	// Keys seal requestState. Nil: the process-wide keyring from
	// ELICITGEN_STATE_KEYS (see seal.DefaultKeyring).
	Keys *seal.Keyring
	// TTL is how long a sealed state stays valid; 0 means seal.DefaultStateTTL.
	TTL time.Duration
	// MaxAttempts bounds how often one step is asked again after invalid
	// content; 0 means 3.
	MaxAttempts int
	// MaxRounds bounds the input_required results of one call, its retries
	// included, whatever the reason of each (steps, invalid or missing
	// answers, a URL step not finished yet); the call that would return
	// one more ends in a tool error instead. 0 means DefaultMaxRounds.
	MaxRounds int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Overloaded, when it returns true, makes the machine shed load: an
	// input_required result with no input requests and the sealed state,
	// which the client retries as is.
	Overloaded func(ctx context.Context) bool
	// Principal names the user a request acts for; nil means the user id of
	// the request's verified bearer token, if any. For a prompts/get or
	// resources/read it gets a CallToolRequest holding that request's
	// Session and Extra (no Params).
	Principal func(req *mcp.CallToolRequest) string
	// Audience names this server in every state it seals (for example
	// its public URL): a state sealed under another audience does not
	// open. Set it when servers that share a key ring must not take each
	// other's states (instances of one server share one audience). Empty:
	// no audience.
	Audience string
	// Logger receives the reasons states are rejected (never sent to the
	// client); nil means slog.Default().
	Logger *slog.Logger
	// Grants tells URL steps whether their flow finished; nil means
	// DefaultGrants(). Share it with the connect handlers.
	Grants backend.GrantStore
	// Replay enforces single use for flows that answered a Once step; nil
	// means DefaultReplayGuard(). Instances serving one tool share one.
	Replay backend.ReplayGuard
	// LegacyURLWait is how long a call of a 2025-11-25 client, which has
	// no retry to come back with, waits after the user accepts a URL step
	// for its flow to finish; then the machine sends
	// notifications/elicitation/complete and goes on to the next step.
	// When the wait runs out the call ends with LegacyURLUnfinished, and a
	// later call finds the grant. 0 means DefaultLegacyURLWait; negative,
	// no wait.
	LegacyURLWait time.Duration
	// LegacyAnswerWait is how long a call of a 2025-11-25 client waits for
	// the answer to one question (a server-to-client elicitation/create);
	// then the call ends with an error. The question also ends when its
	// session is deleted, or left idle for HTTPOptions.SessionTimeout (see
	// HTTPHandler). 0 or negative means DefaultLegacyAnswerWait.
	LegacyAnswerWait time.Duration
	// PreviewTTL is how long a confirmation token of a FallbackPreview
	// step stays valid; 0 or negative means DefaultPreviewTTL.
	PreviewTTL time.Duration
	// Tasks keeps the tasks of task tools (//elicit:task); nil means
	// DefaultTaskStore(), in this process's memory. Instances serving one
	// server share one (runtime/redisstore.Tasks), and every task tool of
	// a server uses the same.
	Tasks backend.TaskStore
	// TaskTTL is how long a task lives (its ttlMs): its work is cancelled
	// and the task forgotten after it. 0 or negative means DefaultTaskTTL.
	TaskTTL time.Duration
	// TaskPollInterval is the pollIntervalMs a task suggests to clients; 0
	// or negative means DefaultTaskPollInterval.
	TaskPollInterval time.Duration
	// TaskLease is how long a running task stays claimed by the instance
	// running it without a renewal: that instance renews it every quarter
	// of it, and once it lapses (the instance died) any instance serving
	// the task's tasks/get fails the task, saying the server stopped while
	// running it. 0 or negative means DefaultTaskLease.
	TaskLease time.Duration
	// TaskRestarts bounds how often a restartable task (//elicit:task ...
	// restartable) is run again after the instance running it stopped:
	// past it, or when negative, the task fails like any other. 0 means
	// DefaultTaskRestarts. The instance taking a task over applies its own.
	TaskRestarts int
	// TaskLimits bounds the tasks running in this process, in all and per
	// principal, and the status streams of each principal; nil means
	// DefaultTaskLimits(), shared by the whole process. Every task tool of
	// a server uses the same.
	TaskLimits *TaskLimits
	// Hooks receive what the machine does: the requests it serves, the
	// questions, answers and their outcomes, re-asks, fallbacks,
	// single-use claims, store errors and task status changes (names
	// only: docs/observability.md). Nil reports nothing;
	// runtime/otelelicit adapts them to OpenTelemetry.
	Hooks backend.Hooks
}

// DefaultLegacyAnswerWait is how long a 2025-11-25 call waits for the
// answer to one question by default: as long as a state lives.
const DefaultLegacyAnswerWait = seal.DefaultStateTTL

// Machine drives the steps of one tool (Call), prompt (GetPrompt, see
// NewPromptMachine) or resource (ReadResource, see NewResourceMachine) over
// MRTR rounds: one interpreter for the three request kinds, which reads a
// request through a small view of it (request.go).
type Machine struct {
	tool  string
	steps []Step
	props []map[string]struct{} // per step: the form's declared properties
	flow  hooks
	opts  ToolOptions
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
}

// NewMachine returns the machine of tool, with its step table and flow.
func NewMachine(tool string, steps []Step, flow Flow, opts *ToolOptions) *Machine {
	m := newMachine(kindTool, tool, steps, flow.hooks(), opts)
	m.tasks, m.run, m.restart = flow.Tasks, flow.Run, flow.Restart
	return m
}

// newMachine returns the machine of a request kind, bound to name.
func newMachine(k kind, name string, steps []Step, flow hooks, opts *ToolOptions) *Machine {
	m := &Machine{tool: name, kind: k, steps: steps, flow: flow, props: make([]map[string]struct{}, len(steps)), questions: questionsDigest(steps), fallbacks: &fallbackLog{}}
	for i := range steps {
		m.props[i] = formProperties(&steps[i])
	}
	if opts != nil {
		m.opts = *opts
	}
	if m.opts.Keys == nil {
		m.opts.Keys = seal.DefaultKeyring()
	}
	if m.opts.TTL == 0 {
		m.opts.TTL = seal.DefaultStateTTL
	}
	if m.opts.MaxAttempts == 0 {
		m.opts.MaxAttempts = 3
	}
	if m.opts.MaxRounds == 0 {
		m.opts.MaxRounds = DefaultMaxRounds
	}
	if m.opts.Now == nil {
		m.opts.Now = time.Now
	}
	if m.opts.Logger == nil {
		m.opts.Logger = slog.Default()
	}
	if m.opts.Grants == nil {
		m.opts.Grants = backend.DefaultGrants()
	}
	if m.opts.Replay == nil {
		m.opts.Replay = backend.DefaultReplayGuard()
	}
	if m.opts.LegacyURLWait == 0 {
		m.opts.LegacyURLWait = DefaultLegacyURLWait
	}
	if m.opts.LegacyAnswerWait <= 0 {
		m.opts.LegacyAnswerWait = DefaultLegacyAnswerWait
	}
	if m.opts.PreviewTTL <= 0 {
		m.opts.PreviewTTL = DefaultPreviewTTL
	}
	m.opts.taskDefaults()
	return m
}

// taskDefaults sets the task options left zero to their defaults.
func (o *ToolOptions) taskDefaults() {
	if o.Tasks == nil {
		o.Tasks = backend.DefaultTaskStore()
	}
	if o.TaskTTL <= 0 {
		o.TaskTTL = DefaultTaskTTL
	}
	if o.TaskPollInterval <= 0 {
		o.TaskPollInterval = DefaultTaskPollInterval
	}
	if o.TaskLease <= 0 {
		o.TaskLease = DefaultTaskLease
	}
	if o.TaskRestarts == 0 {
		o.TaskRestarts = DefaultTaskRestarts
	}
	if o.TaskLimits == nil {
		o.TaskLimits = DefaultTaskLimits()
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

type principalKey struct{}

// PrincipalFrom returns the principal the machine bound the call to (see
// ToolOptions.Principal), inside handler methods.
func PrincipalFrom(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

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
	admitted *taskTicket
	// asked is when the questions this call answers were asked (the
	// state's sealing), for Hooks; digest is the flow's FlowDigest.
	asked  time.Time
	digest string
	rounds int // questions of a 2025-11-25 call so far
	// restarted is true when the call's state was sealed for other
	// questions, until its first question carries ToolChangedNote.
	restarted bool
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

// open binds the call and opens its requestState, if any.
func (m *Machine) open(ctx context.Context, req *request, args any) (*call, error) {
	bind := seal.Binding{Tool: m.tool, ArgsDigest: seal.DigestArguments(req.Params.Arguments), Principal: m.principal(req), Audience: m.opts.Audience}
	c := &call{
		m: m, ctx: context.WithValue(ctx, principalKey{}, bind.Principal), req: req, args: args,
		bind: bind, now: m.opts.Now(), legacy: isLegacy(req),
		st: flowState{Questions: m.questions, Answers: make(Answers, len(m.steps)), Steps: make([]stepState, len(m.steps))},
	}
	s := req.Params.RequestState
	if s == "" {
		return c, nil
	}
	round, payload, expires, err := m.opts.Keys.OpenExpiry(bind, s, c.now)
	if err != nil {
		m.opts.Logger.Debug("elicitgen: requestState rejected", "tool", m.tool)
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
		if denied {
			// The person declined at the provider: the step's decline path.
			res, err := m.flow.Ended(c.ctx, c.req, c.args, i, ActionDecline, c.st.Answers)
			return true, res, err
		}
		if !finished {
			// A later call finds the user's grant.
			return true, Text(LegacyURLUnfinished), nil
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
			// there is room (docs/tasks.md#bounds). Claiming first made
			// every refused retry of a once flow "requestState already
			// used" for good. runTask takes the ticket; any other end of
			// the call gives it back.
			ticket, refused := c.admitTask(newTaskID())
			if refused != nil {
				return nil, refused
			}
			c.admitted = ticket
			defer func() {
				if c.admitted != nil {
					c.admitted.release()
				}
			}()
		}
		first, err := m.opts.Replay.Claim(c.ctx, flowClaimID(m.tool, c.bind, c.st.ID), m.claimTTL())
		if err != nil {
			c.storeError(err, "replay", "Claim")
			return nil, err
		}
		c.onceClaim(first)
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

// answeredOnce reports whether st holds the answer of a Once step.
func (m *Machine) answeredOnce(st *flowState) bool {
	for j := range m.steps {
		if m.steps[j].Once && st.Answers[j] != nil {
			return true
		}
	}
	return false
}

// recoverCall is Call's last line of defence.
func (m *Machine) recoverCall(res *mcp.Result, err *error) {
	if r := recover(); r != nil {
		m.opts.Logger.Error("elicitgen: panic in a tool call", "tool", m.tool, "panic", r, "stack", string(debug.Stack()))
		*res, *err = nil, ErrInternal
	}
}

// ErrInternal is the error of a call that failed inside the server (a
// panic in a handler method, a state that could not be sealed): the
// details go to the server log, never to the client.
var ErrInternal = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}

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
		token, err := m.opts.Keys.SealFlow(seal.ConnectFlow{ID: flow, Subject: c.bind.Principal, Tool: m.tool, Step: step.Key}, m.opts.Audience, c.now, m.opts.TTL)
		if err != nil {
			c.log().Warn("elicitgen: cannot seal a flow token", "err", err)
			return nil, ErrInternal
		}
		c.st.Flow, c.st.Token = flow, token
	}
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
		c.event(backend.Event{Kind: backend.EventFallback, Steps: []string{step.Key}, Reason: fallbackNames[step.Fallback]})
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
		c.answered(j, backend.OutcomeAccept)
		// Accept is consent, not completion: the grant store says whether
		// the flow finished, for this principal.
		finished, denied, err := m.flowFinished(c.ctx, c.st.Flow, c.bind.Principal)
		if err != nil {
			c.storeError(err, "grants", "FlowSubject")
			return true, nil, err
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

// yes reports whether content says yes to the step: always, unless the
// step is a confirmation (Confirm) and its boolean is anything but true.
func (s *Step) yes(content map[string]any) bool {
	return s.Confirm == "" || content[s.Confirm] == true
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

// shownReason is why content was refused, in the words the form showed
// the person (an enum's titles, not its values).
func shownReason(err error) string {
	var ce *ContentError
	if errors.As(err, &ce) {
		return ce.Shown()
	}
	return strings.TrimPrefix(err.Error(), "invalid content: ")
}

// invalid counts an invalid answer to step j and keeps why (bounded).
func (c *call) invalid(j int, reason string) {
	t := &c.st.Steps[j]
	t.Tries++
	t.Reason = bounded(reason)
}

// MaxAnswersLen bounds the JSON of the answers a flow keeps between
// rounds, so that its state always fits in seal.MaxStateLen: an answer that
// would pass it is asked again with the reason.
const MaxAnswersLen = 32 << 10

// maxReasonLen bounds the reasons and the echoed values a state keeps.
const maxReasonLen = 256

// bounded cuts s to at most maxReasonLen bytes, on a rune boundary.
func bounded(s string) string { return cut(s, maxReasonLen) }

// Bounded is s cut to the length of a reason or a logged value from a
// client, on a rune boundary, marked where it was cut.
func Bounded(s string) string { return bounded(s) }

// cut cuts s to at most n bytes, on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	at := n - len("…")
	for at > 0 && !utf8.RuneStart(s[at]) {
		at--
	}
	return s[:at] + "…"
}

// declared returns the properties of content that form step j declares:
// what a client adds besides them is never kept.
func (m *Machine) declared(j int, content map[string]any) map[string]any {
	props := m.props[j]
	if props == nil {
		return content
	}
	kept := make(map[string]any, len(content))
	for k, v := range content {
		if _, ok := props[k]; ok {
			kept[k] = v
		}
	}
	return kept
}

// formProperties returns the property names of the requestedSchema of a
// form step (nil when it has none to read).
func formProperties(step *Step) map[string]struct{} {
	if step.Mode != ModeForm || step.Params == nil {
		return nil
	}
	raw, err := json.Marshal(step.Params("").RequestedSchema)
	if err != nil {
		return nil
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &schema) != nil {
		return nil
	}
	props := make(map[string]struct{}, len(schema.Properties))
	for p := range schema.Properties {
		props[p] = struct{}{}
	}
	return props
}

func answersSize(a Answers) int {
	n := 0
	for _, c := range a {
		if c != nil {
			n += jsonSize(c)
		}
	}
	return n
}

func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return math.MaxInt32
	}
	return len(b)
}

// finishURLStep records URL step j's flow as its answer.
func (st *flowState) finishURLStep(j int) {
	st.Answers[j] = map[string]any{"flow": st.Flow}
	st.Flow, st.Token = "", ""
}

// DefaultMaxRounds is the most input_required results one call returns
// by default: MRTR clients stop after ten attempts, the first call
// included (the Go SDK's and the TypeScript SDK's clients), so a tenth
// round of questions would never be answered.
const DefaultMaxRounds = contract.DefaultMaxRounds

// LegacyURLUnfinished is the result of a 2025-11-25 call whose URL step the
// user accepted but did not finish within ToolOptions.LegacyURLWait.
const LegacyURLUnfinished = "The step in the browser has not finished yet: finish it, then ask again."

// DefaultLegacyURLWait is how long a 2025-11-25 call waits for the flow of
// an accepted URL step to finish (see ToolOptions.LegacyURLWait).
const DefaultLegacyURLWait = 10 * time.Minute

// flowFinished reports whether the grant store recorded flow as completed
// by principal (a completion for anyone else does not count), or as
// denied: the person refused at the third party (GrantStore.DenyFlow; only
// the flow's subject, in the browser that started it, can record that).
func (m *Machine) flowFinished(ctx context.Context, flow, principal string) (finished, denied bool, err error) {
	subject, done, err := m.opts.Grants.FlowSubject(ctx, flow)
	if err != nil || !done {
		return false, false, err
	}
	return subject != "" && subject == principal, subject == "", nil
}

// awaitFlow waits until flow finishes for principal, asking the grant
// store at growing intervals (from 100 ms to 2 s), for at most
// LegacyURLWait. finished is false when the wait ran out; denied is true,
// at once, when the flow was denied (nothing more will come); err is the store's error,
// or the context's when the call ends first.
func (m *Machine) awaitFlow(ctx context.Context, flow, principal string) (finished, denied bool, err error) {
	if m.opts.LegacyURLWait < 0 {
		return false, false, nil
	}
	deadline := time.NewTimer(m.opts.LegacyURLWait)
	defer deadline.Stop()
	interval := 100 * time.Millisecond
	tick := time.NewTimer(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, false, ctx.Err()
		case <-deadline.C:
			return false, false, nil
		case <-tick.C:
		}
		if finished, denied, err := m.flowFinished(ctx, flow, principal); finished || denied || err != nil {
			return finished, denied, err
		}
		interval = min(2*interval, 2*time.Second)
		tick.Reset(interval)
	}
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
		if state, err = m.opts.Keys.Seal(c.bind, c.round, payload, c.now, m.opts.TTL); err == nil {
			return m.inputRequired(requests, state), nil
		}
	}
	c.log().Warn("elicitgen: cannot seal the state of a round", "err", err, "bytes", len(payload))
	return nil, ErrInternal
}

// principal names the user of req (see PrincipalOf).
func (m *Machine) principal(req *request) string {
	call, _ := req.raw.(*mcp.CallToolRequest)
	return PrincipalOf(m.opts.Principal, call, req.Session, req.Extra)
}

// PrincipalOf names the user a request acts for, the one rule for every
// request kind: ToolOptions.Principal's answer (given the tools/call, or
// for any other request a tools/call request holding only its session and
// extra), or else the user id of its verified bearer token.
func PrincipalOf(p func(*mcp.CallToolRequest) string, call *mcp.CallToolRequest, session *mcp.ServerSession, extra *mcp.RequestExtra) string {
	if p != nil {
		if call == nil {
			call = &mcp.CallToolRequest{Session: session, Extra: extra}
		}
		return p(call)
	}
	if extra != nil && extra.TokenInfo != nil {
		return extra.TokenInfo.UserID
	}
	return ""
}

// Principal is the user id of the request's verified bearer token, or "".
func Principal(req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		return req.Extra.TokenInfo.UserID
	}
	return ""
}

// inputKey is the input request key of the n-th asking of a step: the
// step's key the first time ("user_name"), then "user_name.2", ... Step keys
// contain no dot, so keys are unique within a request and never reused
// across rounds.
func inputKey(step string, n int) string {
	if n <= 1 {
		return step
	}
	return step + "." + strconv.Itoa(n)
}

// parseInputKey is inputKey's inverse: the step key and the asking a key
// names ("user_name.2": "user_name", 2).
func parseInputKey(key string) (step string, n int) {
	if i := strings.LastIndexByte(key, '.'); i > 0 {
		if k, err := strconv.Atoi(key[i+1:]); err == nil && k > 1 {
			return key[:i], k
		}
	}
	return key, 1
}

// prefill returns the form's properties found in the tool's arguments (nil
// when there is none), and whether they answer the step: every needed
// property present, and at least one property.
func prefill(raw json.RawMessage, props, needs []string) (map[string]any, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, false
	}
	var content map[string]any
	for _, p := range props {
		if v, ok := args[p]; ok && v != nil {
			if content == nil {
				content = make(map[string]any, len(props))
			}
			content[p] = v
		}
	}
	for _, p := range needs {
		if v, ok := args[p]; !ok || v == nil {
			return content, false
		}
	}
	return content, len(content) > 0
}

// isLegacy reports whether the request comes from a client of a protocol
// revision before MRTR (2025-11-25 and earlier), which the machine asks
// with server-to-client elicitation requests instead.
func isLegacy(req *request) bool {
	v := req.ProtocolVersion()
	return v != "" && v < LatestProtocolVersion && req.Session != nil
}

// canShow reports whether the request declared the elicitation mode. An
// empty elicitation capability means form mode only.
func canShow(req *request, mode Mode) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	if mode == ModeURL {
		return e.URL != nil
	}
	return e.Form != nil || e.URL == nil
}

// MissingCapability is the -32021 error for a step of mode that the request
// cannot show, with data.requiredCapabilities naming the mode.
func MissingCapability(mode Mode) *jsonrpc.Error {
	name := "form"
	if mode == ModeURL {
		name = "url"
	}
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "this tool needs the client to support " + name + "-mode elicitation",
		Data:    json.RawMessage(`{"requiredCapabilities":{"elicitation":{"` + name + `":{}}}}`),
	}
}

func toolError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// ToolError is a tool execution error result (isError) with text.
func ToolError(text string) *mcp.CallToolResult { return toolError(text) }

// Text is a complete result with one text content.
func Text(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// ErrInvalidState is the error [seal.Keyring.Open] returns for every state it
// rejects, whatever the reason (malformed, tampered, bound to another tool
// call or principal, sealed by an unknown key, or expired), so that no detail
// leaks to the client. It is a JSON-RPC "invalid params" error that the MCP
// SDK sends to the client as is.
//
// It is shared: do not modify it. Use [IsInvalidState] to test for it, not
// errors.Is (jsonrpc errors compare equal by code alone).
var ErrInvalidState = &jsonrpc.Error{
	Code:    jsonrpc.CodeInvalidParams,
	Message: "invalid or expired requestState",
}

// IsInvalidState reports whether err is, or wraps, [ErrInvalidState].
func IsInvalidState(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == ErrInvalidState.Code && je.Message == ErrInvalidState.Message
}
