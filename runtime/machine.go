package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// Once makes the flow single use: the call that completes it may do so
	// only once per requestState (a replayed retry of a destructive
	// confirmation gets ErrReplayed). Set on the final step.
	Once bool
	// Together asks the step in the same round as the step before it, a
	// form step. It must be a form step with a static Message (generated
	// code guarantees both); the machine never calls Flow.Ask for it. A
	// 2025-11-25 call asks it after that step, as any other.
	Together bool
	// Missing is the tool error text of FallbackArguments.
	Missing string
	// Params builds the input request of a form step.
	Params func(message string) *mcp.ElicitParams
	// Check decodes accepted content with the form's decoder; a
	// *ContentError says why it is invalid.
	Check func(content map[string]any) error
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
}

// ToolOptions configure a tool's machine. The zero value is usable.
type ToolOptions struct {
	// Keys seal requestState. Nil: the process-wide keyring from
	// ELICITGEN_STATE_KEYS (see DefaultKeyring).
	Keys *Keyring
	// TTL is how long a sealed state stays valid; 0 means DefaultStateTTL.
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
	// the request's verified bearer token, if any.
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
	Grants GrantStore
	// Replay enforces single use for flows whose final step is Once; nil
	// means DefaultReplayGuard(). Instances serving one tool share one.
	Replay ReplayGuard
	// LegacyURLWait is how long a call of a 2025-11-25 client, which has
	// no retry to come back with, waits after the user accepts a URL step
	// for its flow to finish; then the machine sends
	// notifications/elicitation/complete and goes on to the next step.
	// When the wait runs out the call ends with LegacyURLUnfinished, and a
	// later call finds the grant. 0 means DefaultLegacyURLWait; negative,
	// no wait.
	LegacyURLWait time.Duration
}

// Machine drives one tool's steps over MRTR rounds.
type Machine struct {
	tool  string
	steps []Step
	flow  Flow
	opts  ToolOptions
}

// NewMachine returns the machine of tool, with its step table and flow.
func NewMachine(tool string, steps []Step, flow Flow, opts *ToolOptions) *Machine {
	m := &Machine{tool: tool, steps: steps, flow: flow}
	if opts != nil {
		m.opts = *opts
	}
	if m.opts.Keys == nil {
		m.opts.Keys = DefaultKeyring()
	}
	if m.opts.TTL == 0 {
		m.opts.TTL = DefaultStateTTL
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
		m.opts.Grants = DefaultGrants()
	}
	if m.opts.Replay == nil {
		m.opts.Replay = DefaultReplayGuard()
	}
	if m.opts.LegacyURLWait == 0 {
		m.opts.LegacyURLWait = DefaultLegacyURLWait
	}
	return m
}

// flowState is the payload sealed into requestState.
type flowState struct {
	Step    int         `json:"s"` // the first step not answered yet: the round's first
	Answers Answers     `json:"a"`
	Steps   []stepState `json:"q"`           // per step
	Flow    string      `json:"f,omitempty"` // the URL step's flow id
	Token   string      `json:"k,omitempty"` // its flow token (the same link on every retry)
}

// stepState is what the state keeps of one step while it is asked.
type stepState struct {
	Asks   int    `json:"n,omitempty"` // how often it was asked
	Tries  int    `json:"t,omitempty"` // invalid answers to it so far
	Reason string `json:"e,omitempty"` // why the last answer was invalid
}

type principalKey struct{}

// PrincipalFrom returns the principal the machine bound the call to (see
// ToolOptions.Principal), inside handler methods.
func PrincipalFrom(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// Call runs one tools/call of the flow: it opens the state, takes the
// answer of the round, and returns the next input_required result, the
// handler's result, or an error.
func (m *Machine) Call(ctx context.Context, req *mcp.CallToolRequest, args any) (*mcp.CallToolResult, error) {
	bind := Binding{Tool: m.tool, ArgsDigest: DigestArguments(req.Params.Arguments), Principal: m.principal(req), Audience: m.opts.Audience}
	ctx = context.WithValue(ctx, principalKey{}, bind.Principal)
	now := m.opts.Now()
	st := flowState{Answers: make(Answers, len(m.steps)), Steps: make([]stepState, len(m.steps))}
	round := uint32(0)
	asked := false
	if s := req.Params.RequestState; s != "" {
		r, payload, err := m.opts.Keys.Open(bind, s, now)
		if err != nil {
			m.opts.Logger.Debug("elicitgen: requestState rejected", "tool", m.tool)
			return nil, err
		}
		if err := json.Unmarshal(payload, &st); err != nil || st.Step < 0 || st.Step > len(m.steps) ||
			len(st.Answers) != len(m.steps) || len(st.Steps) != len(m.steps) {
			return nil, ErrInvalidState
		}
		round, asked = r, r > 0
	}
	if m.opts.Overloaded != nil && m.opts.Overloaded(ctx) {
		return m.seal(bind, round, st, now, mcp.InputRequestMap{}), nil
	}
	legacy := isLegacy(req)
	for st.Step < len(m.steps) {
		i := st.Step
		if asked {
			// The retry of the round that began at step i: each of its
			// questions is answered under its own key, or not at all.
			asked = false
			for _, j := range m.round(&st, legacy) {
				resp, _ := req.Params.InputResponses[inputKey(m.steps[j].Key, st.Steps[j].Asks)].(*mcp.ElicitResult)
				if resp == nil {
					continue
				}
				if done, res, err := m.take(ctx, req, args, &st, j, resp, bind.Principal); done {
					return res, err
				}
			}
			if m.advance(&st) {
				continue
			}
			// Missing or invalid: ask again, in a new round, with the
			// round's other unanswered questions.
		} else {
			handled, res, err := m.skip(ctx, req, args, &st, i)
			if handled {
				if res != nil || err != nil {
					return res, err
				}
				continue
			}
			for _, j := range m.round(&st, legacy)[1:] {
				if handled, res, err := m.skip(ctx, req, args, &st, j); handled && (res != nil || err != nil) {
					return res, err
				}
			}
			// A call without state may already carry the answers to the
			// first questions it is to ask, under those questions' keys (a
			// client that knows the forms). They are taken like any answer:
			// decoded and validated, and only for those questions.
			if round == 0 && !legacy {
				for _, j := range m.round(&st, legacy) {
					resp, _ := req.Params.InputResponses[inputKey(m.steps[j].Key, 1)].(*mcp.ElicitResult)
					if resp == nil || st.Steps[j].Asks != 0 || m.steps[j].Mode != ModeForm {
						continue
					}
					st.Steps[j].Asks = 1
					if done, res, err := m.take(ctx, req, args, &st, j, resp, bind.Principal); done {
						return res, err
					}
				}
				if m.advance(&st) {
					continue
				}
			}
		}
		asking := m.round(&st, legacy)
		for _, j := range asking {
			if t := st.Steps[j]; t.Tries >= m.opts.MaxAttempts {
				return toolError(fmt.Sprintf("%s: gave up after %d invalid answers: %s", m.steps[j].Key, t.Tries, t.Reason)), nil
			}
		}
		step := &m.steps[i]
		if legacy {
			params := m.params(ctx, req, args, &st, i, bind.Principal, now)
			if step.Mode == ModeURL {
				params.ElicitationID = st.Flow // 2025-11-25 URL mode needs one
			}
			res, err := req.Session.Elicit(ctx, params)
			if err != nil {
				return nil, err
			}
			done, out, err := m.take(ctx, req, args, &st, i, res, bind.Principal)
			if done {
				return out, err
			}
			if step.Mode == ModeURL && st.Answers[i] == nil && res.Action == ActionAccept {
				// Accepted, not finished yet, and no retry will come on this
				// era: the call waits for the browser, then goes on.
				flow := st.Flow
				finished, err := m.awaitFlow(ctx, flow, bind.Principal)
				if err != nil {
					return nil, err
				}
				if !finished {
					// A later call finds the user's grant.
					return Text(LegacyURLUnfinished), nil
				}
				st.finishURLStep(i)
				if err := req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: flow}); err != nil {
					m.opts.Logger.Debug("elicitgen: notifying the completion of a URL step", "tool", m.tool, "err", err)
				}
			}
			m.advance(&st)
			continue
		}
		if int(round) >= m.opts.MaxRounds {
			// The client would give up before the answer came.
			return toolError(fmt.Sprintf("%s: no answer after %d rounds of questions; call the tool again to start over", step.Key, round)), nil
		}
		round++
		requests := make(mcp.InputRequestMap, len(asking))
		for _, j := range asking {
			st.Steps[j].Asks++
			requests[inputKey(m.steps[j].Key, st.Steps[j].Asks)] = m.params(ctx, req, args, &st, j, bind.Principal, now)
		}
		return m.seal(bind, round, st, now, requests), nil
	}
	if s := req.Params.RequestState; s != "" && len(m.steps) > 0 && m.steps[len(m.steps)-1].Once {
		first, err := m.opts.Replay.Claim(ctx, stateID(m.tool, s), now.Add(m.opts.TTL))
		if err != nil {
			return nil, err
		}
		if !first {
			return nil, ErrReplayed
		}
	}
	return m.flow.Complete(ctx, req, args, st.Answers)
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

// params builds the input request of step j, with the reason its last
// answer was invalid; a URL step's flow starts at its first asking.
func (m *Machine) params(ctx context.Context, req *mcp.CallToolRequest, args any, st *flowState, j int, principal string, now time.Time) *mcp.ElicitParams {
	step := &m.steps[j]
	if step.Mode != ModeURL {
		return step.Params(m.message(ctx, req, args, j, st))
	}
	if st.Flow == "" {
		st.Flow = newFlowID()
		st.Token, _ = m.opts.Keys.SealFlow(ConnectFlow{ID: st.Flow, Subject: principal, Tool: m.tool, Step: step.Key}, m.opts.Audience, now, m.opts.TTL)
	}
	return &mcp.ElicitParams{Mode: "url", Message: m.message(ctx, req, args, j, st),
		URL: m.flow.Link(ctx, req, args, j, st.Answers, st.Token)}
}

// skip decides, for step j about to be asked, whether it is asked at all:
// the handler may skip it (the round's first step only), the arguments may
// answer it, or the client may be unable to show it. handled is false when
// the step is to be asked.
func (m *Machine) skip(ctx context.Context, req *mcp.CallToolRequest, args any, st *flowState, j int) (handled bool, res *mcp.CallToolResult, err error) {
	step := &m.steps[j]
	if !step.Together && m.flow.Ask != nil && !m.flow.Ask(ctx, req, args, j, st.Answers) {
		st.Step++ // only a round's first step has a handler to skip it
		return true, nil, nil
	}
	if step.Prefill != nil {
		if content, all := prefill(req.Params.Arguments, step.Prefill, step.PrefillNeeds); all {
			if err := step.Check(content); err != nil {
				return true, toolError("invalid arguments: " + strings.TrimPrefix(err.Error(), "invalid content: ")), nil
			}
			st.Answers[j] = content
			m.advance(st)
			return true, nil, nil
		}
	}
	if canShow(req, step.Mode) {
		return false, nil, nil
	}
	switch step.Fallback {
	case FallbackDefaults:
		content := map[string]any{}
		if err := step.Check(content); err == nil {
			st.Answers[j] = content
			m.advance(st)
			return true, nil, nil
		}
		if step.Missing != "" {
			return true, toolError(step.Missing), nil
		}
	case FallbackArguments:
		return true, toolError(step.Missing), nil
	case FallbackHandler:
		res, err := m.flow.Unavailable(ctx, req, args, j, st.Answers)
		return true, res, err
	}
	return true, nil, MissingCapability(step.Mode)
}

// take applies an elicitation result to step j. done is true when the call
// ends with (res, err); otherwise the step is answered (st.Answers[j] set),
// or the answer was invalid and st records why, or a URL step's flow has
// not finished yet.
func (m *Machine) take(ctx context.Context, req *mcp.CallToolRequest, args any, st *flowState, j int, resp *mcp.ElicitResult, principal string) (done bool, res *mcp.CallToolResult, err error) {
	step := &m.steps[j]
	t := &st.Steps[j]
	switch resp.Action {
	case ActionDecline, ActionCancel:
		res, err := m.flow.Ended(ctx, req, args, j, resp.Action, st.Answers)
		return true, res, err
	case ActionAccept:
	default:
		t.Tries++
		t.Reason = "unknown action " + strconv.Quote(resp.Action)
		return false, nil, nil
	}
	if step.Mode == ModeURL {
		// Accept is consent, not completion: the grant store says whether
		// the flow finished, for this principal.
		finished, err := m.flowFinished(ctx, st.Flow, principal)
		if err != nil {
			return true, nil, err
		}
		if finished {
			st.finishURLStep(j)
		}
		return false, nil, nil
	}
	content := resp.Content
	if content == nil {
		content = map[string]any{}
	}
	if err := step.Check(content); err != nil {
		t.Tries++
		t.Reason = strings.TrimPrefix(err.Error(), "invalid content: ")
		return false, nil, nil
	}
	st.Answers[j] = content
	t.Tries, t.Reason = 0, ""
	return false, nil, nil
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
const DefaultMaxRounds = 9

// LegacyURLUnfinished is the result of a 2025-11-25 call whose URL step the
// user accepted but did not finish within ToolOptions.LegacyURLWait.
const LegacyURLUnfinished = "The step in the browser has not finished yet: finish it, then ask again."

// DefaultLegacyURLWait is how long a 2025-11-25 call waits for the flow of
// an accepted URL step to finish (see ToolOptions.LegacyURLWait).
const DefaultLegacyURLWait = 10 * time.Minute

// flowFinished reports whether the grant store recorded flow as finished
// by principal (a completion for anyone else does not count).
func (m *Machine) flowFinished(ctx context.Context, flow, principal string) (bool, error) {
	subject, done, err := m.opts.Grants.FlowSubject(ctx, flow)
	return err == nil && done && subject == principal, err
}

// awaitFlow waits until flow finishes for principal, asking the grant
// store at growing intervals (from 100 ms to 2 s), for at most
// LegacyURLWait. finished is false when the wait ran out; err is the
// store's error, or the context's when the call ends first.
func (m *Machine) awaitFlow(ctx context.Context, flow, principal string) (finished bool, err error) {
	if m.opts.LegacyURLWait < 0 {
		return false, nil
	}
	deadline := time.NewTimer(m.opts.LegacyURLWait)
	defer deadline.Stop()
	interval := 100 * time.Millisecond
	tick := time.NewTimer(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-deadline.C:
			return false, nil
		case <-tick.C:
		}
		if finished, err := m.flowFinished(ctx, flow, principal); finished || err != nil {
			return finished, err
		}
		interval = min(2*interval, 2*time.Second)
		tick.Reset(interval)
	}
}

// message is the step's message, with the reason the last answer was
// refused when it is asked again.
func (m *Machine) message(ctx context.Context, req *mcp.CallToolRequest, args any, i int, st *flowState) string {
	msg := m.steps[i].Message
	if msg == "" && m.flow.Message != nil {
		msg = m.flow.Message(ctx, req, args, i, st.Answers)
	}
	if r := st.Steps[i].Reason; r != "" {
		msg += "\n\nPlease correct: " + r + "."
	}
	return msg
}

func (m *Machine) seal(bind Binding, round uint32, st flowState, now time.Time, requests mcp.InputRequestMap) *mcp.CallToolResult {
	payload, err := json.Marshal(st)
	if err != nil {
		// Answers hold only JSON values decoded from the wire.
		panic(fmt.Sprintf("elicitgen: sealing state: %v", err))
	}
	state, err := m.opts.Keys.Seal(bind, round, payload, now, m.opts.TTL)
	if err != nil {
		return toolError("elicitgen: " + err.Error())
	}
	return &mcp.CallToolResult{InputRequests: requests, RequestState: state}
}

func (m *Machine) principal(req *mcp.CallToolRequest) string {
	if m.opts.Principal != nil {
		return m.opts.Principal(req)
	}
	return Principal(req)
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

// prefill returns the form's properties found in the tool's arguments, and
// whether they answer the step: every needed property present, and at
// least one property.
func prefill(raw json.RawMessage, props, needs []string) (map[string]any, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, false
	}
	for _, p := range needs {
		if v, ok := args[p]; !ok || v == nil {
			return nil, false
		}
	}
	content := make(map[string]any, len(props))
	for _, p := range props {
		if v, ok := args[p]; ok && v != nil {
			content[p] = v
		}
	}
	return content, len(content) > 0
}

// isLegacy reports whether the request comes from a client of a protocol
// revision before MRTR (2025-11-25 and earlier), which the machine asks
// with server-to-client elicitation requests instead.
func isLegacy(req *mcp.CallToolRequest) bool {
	v := req.ProtocolVersion()
	return v != "" && v < LatestProtocolVersion && req.Session != nil
}

// canShow reports whether the request declared the elicitation mode. An
// empty elicitation capability means form mode only.
func canShow(req *mcp.CallToolRequest, mode Mode) bool {
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
