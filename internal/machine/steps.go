package machine

import (
	"context"
	"encoding/json"

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
	// FallbackPreview, for a Once step, completes the call with the
	// handler's preview and a confirmation token; the same call with the
	// token answers the step with its Accept content (see preview.go).
	FallbackPreview
	// FallbackLink, for a URL step, completes the call with the step's
	// link in the result's text; a later call finds the flow finished
	// (see link.go).
	FallbackLink
)

// LatestProtocolVersion is the first protocol revision with MRTR.
const LatestProtocolVersion = "2026-07-28"

// Actions of an elicitation result that end a flow.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// Step is one row of a tool's step table, built by generated code.
type Step struct {
	// Key names the step; it is the input request key (see inputKey).
	Key string
	// Digest is the digest of what the person is shown at the step and
	// what the answer means, computed by the generator (docs/guide/deploys.md):
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

// yes reports whether content says yes to the step: always, unless the
// step is a confirmation (Confirm) and its boolean is anything but true.
func (s *Step) yes(content map[string]any) bool {
	return s.Confirm == "" || content[s.Confirm] == true
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
