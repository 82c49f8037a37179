package elicitimpl

import (
	"encoding/json"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/tasks"
)

// The step table of a tool, a prompt or a resource, and its interpreter.
type (
	Machine = machine.Machine
	Step    = machine.Step
	Flow    = machine.Flow
	Answers = machine.Answers
	Mode    = machine.Mode
	// Fallback is what a step does for a client that cannot show it.
	Fallback = machine.Fallback
	// TaskSupport is a tool's //elicit:task.
	TaskSupport = machine.TaskSupport

	// Typed, TypedPrompt and TypedResource adapt a tool's, a prompt's or
	// a resource's typed handler to the machine's untyped flow.
	Typed[A any, T any, S ~int]       = machine.Typed[A, T, S]
	TypedPrompt[A any, T any, S ~int] = machine.TypedPrompt[A, T, S]
	TypedResource[T any, S ~int]      = machine.TypedResource[T, S]
)

// Step options.
const (
	ModeForm          = machine.ModeForm
	ModeURL           = machine.ModeURL
	FallbackError     = machine.FallbackError
	FallbackDefaults  = machine.FallbackDefaults
	FallbackArguments = machine.FallbackArguments
	FallbackHandler   = machine.FallbackHandler
	FallbackPreview   = machine.FallbackPreview
	FallbackLink      = machine.FallbackLink
	TaskForbidden     = machine.TaskForbidden
	TaskOptional      = machine.TaskOptional
	TaskRequired      = machine.TaskRequired
)

// The reasons generated decoders give for an answer they refuse, in words
// fit to show the person.
const (
	ReasonRequired    = machine.ReasonRequired
	ReasonString      = machine.ReasonString
	ReasonBoolean     = machine.ReasonBoolean
	ReasonNumber      = machine.ReasonNumber
	ReasonInteger     = machine.ReasonInteger
	ReasonWhole       = machine.ReasonWhole
	ReasonUnsafe      = machine.ReasonUnsafe
	ReasonArray       = machine.ReasonArray
	ReasonDuplicate   = machine.ReasonDuplicate
	ReasonEmail       = machine.ReasonEmail
	ReasonURI         = machine.ReasonURI
	ReasonDate        = machine.ReasonDate
	ReasonDateTime    = machine.ReasonDateTime
	ReasonFloat32     = machine.ReasonFloat32
	ReasonFormatLabel = machine.ReasonFormatLabel
)

// NewMachine returns the machine of a tool's step table.
func NewMachine(tool string, steps []Step, flow Flow, opts *elicitrt.ToolOptions) *Machine {
	return machine.NewMachine(tool, steps, flow, opts)
}

// NewPromptMachine returns the machine of a prompt's step table.
func NewPromptMachine[A, T any, S ~int](prompt string, steps []Step, t TypedPrompt[A, T, S], opts *elicitrt.ToolOptions) *Machine {
	return machine.NewPromptMachine(prompt, steps, t, opts)
}

// NewResourceMachine returns the machine of a resource's step table.
func NewResourceMachine[T any, S ~int](uri string, steps []Step, t TypedResource[T, S], opts *elicitrt.ToolOptions) *Machine {
	return machine.NewResourceMachine(uri, steps, t, opts)
}

// AddTool registers a tool served by m, its arguments decoded as A; a
// task tool's first registration also installs the tasks wire
// (tasks/get, tasks/update, tasks/cancel) on the server.
func AddTool[A any](server *mcp.Server, tool *mcp.Tool, m *Machine) {
	if m.TaskSupport() != machine.TaskForbidden {
		tasks.Enable(server, m)
	}
	machine.AddTool[A](server, tool, m)
}

// AddPrompt registers a prompt served by m, its arguments decoded as A.
func AddPrompt[A any](server *mcp.Server, prompt *mcp.Prompt, m *Machine) {
	machine.AddPrompt[A](server, prompt, m)
}

// AddResource registers a resource served by m.
func AddResource(server *mcp.Server, resource *mcp.Resource, m *Machine) {
	machine.AddResource(server, resource, m)
}

// AddResourceTemplate registers a resource template served by m.
func AddResourceTemplate(server *mcp.Server, template *mcp.ResourceTemplate, m *Machine) {
	machine.AddResourceTemplate(server, template, m)
}

// MustInputSchema is a tool's input schema: base with the prefillable
// properties added; it panics, naming the tool, when either is invalid.
func MustInputSchema(tool string, base any, baseErr error, prefill json.RawMessage) json.RawMessage {
	return machine.MustInputSchema(tool, base, baseErr, prefill)
}

// Check decodes content as a T and returns the decoder's error.
func Check[T any, P interface {
	DecodeElicit(map[string]any) error
	*T
}](content map[string]any) error {
	return machine.Check[T, P](content)
}

// Decoded decodes content, which Check accepted, as a T (nil when absent).
func Decoded[T any, P interface {
	DecodeElicit(map[string]any) error
	*T
}](content map[string]any) *T {
	return machine.Decoded[T, P](content)
}

// URLAnswer is the answer of a URL step, nil when it was not asked.
func URLAnswer(a map[string]any) *elicitrt.URLStep { return machine.URLAnswer(a) }

// Bool returns a pointer to b, for tool annotations.
func Bool(b bool) *bool { return &b }
