package machine

import (
	"context"
	"encoding/json"
	"fmt"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Typed is a tool's typed handler, as generated Register functions hand it
// to the machine: A is the argument struct, T the answers struct, S the
// step type. Flow adapts it, once, to the untyped hooks of Machine.
type Typed[A, T any, S ~int] struct {
	// Answers turns the kept contents into the typed answers.
	Answers func(Answers) T

	Complete func(context.Context, *mcp.CallToolRequest, A, T) (*mcp.CallToolResult, error)
	// Run replaces Complete for a task tool (Tasks is not TaskForbidden).
	Run   func(context.Context, *mcp.CallToolRequest, elicitrt.Task, A, T) (*mcp.CallToolResult, error)
	Tasks TaskSupport
	// Restartable: the task's Run may run again from the start on another
	// instance, with the answers recorded, once its instance died
	// (//elicit:task ... restartable).
	Restartable bool
	// Declined and Cancelled are nil when no step asked before Run or
	// Complete can end the flow (none, or every step is During).
	Declined, Cancelled func(context.Context, *mcp.CallToolRequest, A, T, S) (*mcp.CallToolResult, error)
	// Unavailable is nil unless a step's fallback is FallbackHandler.
	Unavailable func(context.Context, *mcp.CallToolRequest, A, T, S) (*mcp.CallToolResult, error)

	// Per step, for the steps whose message, asking or link the handler
	// decides.
	Messages map[S]func(context.Context, *mcp.CallToolRequest, A, T) string
	Asks     map[S]func(context.Context, *mcp.CallToolRequest, A, T) bool
	Links    map[S]func(context.Context, *mcp.CallToolRequest, A, T, string) string
	// Previews, per FallbackPreview step, write what it confirms.
	Previews map[S]func(context.Context, *mcp.CallToolRequest, A, T) string
}

// Flow returns the machine's hooks for t.
func (t Typed[A, T, S]) Flow() Flow {
	f := Flow{Tasks: t.Tasks}
	// A tool whose steps are all asked while its task runs (or that has
	// none) has no Declined or Cancelled: its steps never end the flow
	// (a during step's decline reaches Run).
	if t.Declined != nil && t.Cancelled != nil {
		f.Ended = func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, a Answers) (*mcp.CallToolResult, error) {
			if action == ActionDecline {
				return t.Declined(ctx, req, args.(A), t.Answers(a), S(step))
			}
			return t.Cancelled(ctx, req, args.(A), t.Answers(a), S(step))
		}
	}
	if t.Complete != nil {
		f.Complete = func(ctx context.Context, req *mcp.CallToolRequest, args any, a Answers) (*mcp.CallToolResult, error) {
			return t.Complete(ctx, req, args.(A), t.Answers(a))
		}
	}
	if t.Run != nil {
		f.Run = func(ctx context.Context, task *Task, req *mcp.CallToolRequest, args any, a Answers) (*mcp.CallToolResult, error) {
			return t.Run(ctx, req, task, args.(A), t.Answers(a))
		}
	}
	if t.Run != nil && t.Restartable {
		f.Restart = func(arguments json.RawMessage) (any, error) {
			var a A
			err := json.Unmarshal(arguments, &a)
			return a, err
		}
	}
	if t.Unavailable != nil {
		f.Unavailable = func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a Answers) (*mcp.CallToolResult, error) {
			return t.Unavailable(ctx, req, args.(A), t.Answers(a), S(step))
		}
	}
	t.stepHooks(&f)
	return f
}

// stepHooks sets f's per-step hooks (Message, Ask, Preview, Link), apart
// from Flow's others: each stays nil (every message static, every step
// asked) unless t decides it for some step.
func (t Typed[A, T, S]) stepHooks(f *Flow) {
	if len(t.Messages) > 0 {
		f.Message = func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a Answers) string {
			if m := t.Messages[S(step)]; m != nil {
				return m(ctx, req, args.(A), t.Answers(a))
			}
			return ""
		}
	}
	if len(t.Asks) > 0 {
		f.Ask = func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a Answers) bool {
			if ask := t.Asks[S(step)]; ask != nil {
				return ask(ctx, req, args.(A), t.Answers(a))
			}
			return true
		}
	}
	if len(t.Previews) > 0 {
		f.Preview = func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a Answers) string {
			if p := t.Previews[S(step)]; p != nil {
				return p(ctx, req, args.(A), t.Answers(a))
			}
			return ""
		}
	}
	if len(t.Links) > 0 {
		f.Link = func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a Answers, token string) string {
			if link := t.Links[S(step)]; link != nil {
				return link(ctx, req, args.(A), t.Answers(a), token)
			}
			return ""
		}
	}
}

// AddTool registers tool on server, its calls driven by m. The tool's
// InputSchema comes from MustInputSchema. It also installs the
// sending middleware that lets the form's decoder, not the
// SDK, judge the answers of 2025-11-25 clients. (A task tool also needs
// the tasks wire on server: internal/tasks.Enable, which
// runtime/elicitimpl.AddTool installs first.)
//
// When A is a flat struct (strings, booleans, numbers, or pointers to
// them) and the InputSchema is JSON text, the tool is registered raw
// (server.AddTool) with its arguments validated against the schema,
// resolved once here, and decoded into A once per call, with the outcome
// mcp.AddTool has (see argsDecoder); otherwise through mcp.AddTool. Either
// way the SDK's middleware, auth and tools/list see the same tool, and
// arguments the input schema refuses are a tool error in the words of the
// form decoders (argwords.go), a prefilled property's its form's.
func AddTool[A any](server *mcp.Server, tool *mcp.Tool, m *Machine) {
	server.AddSendingMiddleware(keepRawAnswers)
	words := newArgWords(tool.InputSchema, m)
	if d := newArgsDecoder[A](tool.InputSchema); d != nil {
		d.words = words
		addRawTool(server, tool, d, func(ctx context.Context, req *mcp.CallToolRequest, args A) (*mcp.CallToolResult, error) {
			return m.Call(ctx, req, args)
		})
		return
	}
	server.AddReceivingMiddleware(nullArgumentsAsNone(tool.Name))
	if words != nil {
		server.AddReceivingMiddleware(sdkArgumentWords(tool.Name, words))
	}
	mcp.AddTool(server, tool, func(ctx context.Context, req *mcp.CallToolRequest, args A) (*mcp.CallToolResult, any, error) {
		res, err := m.Call(ctx, req, args)
		return res, nil, err
	})
}

// MustInputSchema is InputSchema for generated Register functions: base and
// baseErr are what jsonschema.For returned for the argument struct. It
// panics, at registration, when either fails.
func MustInputSchema(tool string, base any, baseErr error, prefill json.RawMessage) json.RawMessage {
	// Registration, not a request: jsonschema.For fails only for argument
	// types it cannot describe, and Check refuses at generate time every
	// clash of an argument with a prefilled property.
	if baseErr != nil {
		panic(fmt.Sprintf("elicitgen: tool %s: %v", tool, baseErr))
	}
	schema, err := InputSchema(base, prefill)
	if err != nil {
		panic(fmt.Sprintf("elicitgen: tool %s: %v", tool, err))
	}
	return schema
}

// Check decodes content with the generated decoder of form type T and
// reports its error: the Check of a form step, as Check[Target].
func Check[T any, P interface {
	*T
	DecodeElicit(map[string]any) error
}](content map[string]any) error {
	var v T
	return P(&v).DecodeElicit(content)
}

// Decoded is the typed answer of a form step from its kept content: nil
// when the step was not answered. The content was validated when it was
// kept, so decoding it again succeeds.
func Decoded[T any, P interface {
	*T
	DecodeElicit(map[string]any) error
}](content map[string]any) *T {
	if content == nil {
		return nil
	}
	v := new(T)
	if P(v).DecodeElicit(content) != nil {
		return nil
	}
	return v
}
