package machine

import (
	"context"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources that ask: a resources/read answered, under 2026-07-28, with an
// input_required result until its steps are answered (see prompt.go). A
// resource has no arguments besides its URI: the handler reads it from
// req.Params.URI (for a template, the URI that matched), and the states
// are bound to it.

// TypedResource is a resource's typed handler, as generated Register
// functions hand it to NewResourceMachine: T is the answers struct, S the
// step type.
type TypedResource[T any, S ~int] struct {
	// Answers turns the kept contents into the typed answers.
	Answers func(Answers) T

	Complete            func(context.Context, *mcp.ReadResourceRequest, T) (*mcp.ReadResourceResult, error)
	Declined, Cancelled func(context.Context, *mcp.ReadResourceRequest, T, S) (*mcp.ReadResourceResult, error)
	// Unavailable is nil unless a step's fallback is FallbackHandler.
	Unavailable func(context.Context, *mcp.ReadResourceRequest, T, S) (*mcp.ReadResourceResult, error)

	// Per step, for the steps whose message, asking or link the handler
	// decides.
	Messages map[S]func(context.Context, *mcp.ReadResourceRequest, T) string
	Asks     map[S]func(context.Context, *mcp.ReadResourceRequest, T) bool
	Links    map[S]func(context.Context, *mcp.ReadResourceRequest, T, string) string
}

// hooks adapts t to the machine.
func (t TypedResource[T, S]) hooks() hooks {
	type Q = *mcp.ReadResourceRequest
	type R = *mcp.ReadResourceResult
	var message func(context.Context, Q, any, int, Answers) string
	if len(t.Messages) > 0 {
		message = func(ctx context.Context, req Q, _ any, step int, a Answers) string {
			if f := t.Messages[S(step)]; f != nil {
				return f(ctx, req, t.Answers(a))
			}
			return ""
		}
	}
	var ask func(context.Context, Q, any, int, Answers) bool
	if len(t.Asks) > 0 {
		ask = func(ctx context.Context, req Q, _ any, step int, a Answers) bool {
			if f := t.Asks[S(step)]; f != nil {
				return f(ctx, req, t.Answers(a))
			}
			return true
		}
	}
	var link func(context.Context, Q, any, int, Answers, string) string
	if len(t.Links) > 0 {
		link = func(ctx context.Context, req Q, _ any, step int, a Answers, token string) string {
			if f := t.Links[S(step)]; f != nil {
				return f(ctx, req, t.Answers(a), token)
			}
			return ""
		}
	}
	var unavailable func(context.Context, Q, any, int, Answers) (R, error)
	if t.Unavailable != nil {
		unavailable = func(ctx context.Context, req Q, _ any, step int, a Answers) (R, error) {
			return t.Unavailable(ctx, req, t.Answers(a), S(step))
		}
	}
	return flowHooks(message, ask,
		func(ctx context.Context, req Q, _ any, a Answers) (R, error) {
			return t.Complete(ctx, req, t.Answers(a))
		},
		func(ctx context.Context, req Q, _ any, step int, action string, a Answers) (R, error) {
			if action == ActionDecline {
				return t.Declined(ctx, req, t.Answers(a), S(step))
			}
			return t.Cancelled(ctx, req, t.Answers(a), S(step))
		},
		link, unavailable, nil)
}

// NewResourceMachine returns the machine of the resource (or resource
// template) uri, with its step table and typed handler. Its states are
// bound to the URI read (a state of one URI of a template does not open
// for another), the principal and the audience. Steps cannot prefill (a
// resource has no arguments) or preview: the generator refuses both.
func NewResourceMachine[T any, S ~int](uri string, steps []Step, t TypedResource[T, S], opts *elicitrt.ToolOptions) *Machine {
	return newMachine(kindResource, "resource:"+uri, steps, t.hooks(), opts)
}

// ReadResource runs one resources/read of the flow, as Call runs a
// tools/call; what ends a tools/call with a tool error ends it with a
// JSON-RPC invalid-params error with the same text.
func (m *Machine) ReadResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return asKind[*mcp.ReadResourceResult](m.serve(ctx, resourceView(req), nil))
}

// AddResource registers resource on server, its resources/read requests
// driven by m, with the sending middleware of AddTool.
func AddResource(server *mcp.Server, resource *mcp.Resource, m *Machine) {
	server.AddSendingMiddleware(keepRawAnswers)
	server.AddResource(resource, m.ReadResource)
}

// AddResourceTemplate registers template on server, the resources/read
// requests of every URI it matches driven by m, with the sending
// middleware of AddTool.
func AddResourceTemplate(server *mcp.Server, template *mcp.ResourceTemplate, m *Machine) {
	server.AddSendingMiddleware(keepRawAnswers)
	server.AddResourceTemplate(template, m.ReadResource)
}
