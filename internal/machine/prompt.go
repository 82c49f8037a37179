package machine

import (
	"context"
	"encoding/json"
	"strings"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompts that ask: a prompts/get answered, under 2026-07-28, with an
// input_required result until its steps are answered, as a tools/call is
// (the spec's MRTR pattern covers tools/call, prompts/get and
// resources/read). The same machine runs the same step table with the
// same rules (sealing, re-asking, capabilities, fallbacks); only the
// request's view and the result type differ (see request.go).

// TypedPrompt is a prompt's typed handler, as generated Register functions
// hand it to NewPromptMachine: A is the argument struct (string fields:
// prompt arguments are strings), T the answers struct, S the step type.
type TypedPrompt[A, T any, S ~int] struct {
	// Answers turns the kept contents into the typed answers.
	Answers func(Answers) T

	Complete            func(context.Context, *mcp.GetPromptRequest, A, T) (*mcp.GetPromptResult, error)
	Declined, Cancelled func(context.Context, *mcp.GetPromptRequest, A, T, S) (*mcp.GetPromptResult, error)
	// Unavailable is nil unless a step's fallback is FallbackHandler.
	Unavailable func(context.Context, *mcp.GetPromptRequest, A, T, S) (*mcp.GetPromptResult, error)

	// Per step, for the steps whose message, asking or link the handler
	// decides.
	Messages map[S]func(context.Context, *mcp.GetPromptRequest, A, T) string
	Asks     map[S]func(context.Context, *mcp.GetPromptRequest, A, T) bool
	Links    map[S]func(context.Context, *mcp.GetPromptRequest, A, T, string) string
}

// hooks adapts t to the machine.
func (t TypedPrompt[A, T, S]) hooks() hooks {
	type Q = *mcp.GetPromptRequest
	var message func(context.Context, Q, any, int, Answers) string
	if len(t.Messages) > 0 {
		message = func(ctx context.Context, req Q, args any, step int, a Answers) string {
			if f := t.Messages[S(step)]; f != nil {
				return f(ctx, req, args.(A), t.Answers(a))
			}
			return ""
		}
	}
	var ask func(context.Context, Q, any, int, Answers) bool
	if len(t.Asks) > 0 {
		ask = func(ctx context.Context, req Q, args any, step int, a Answers) bool {
			if f := t.Asks[S(step)]; f != nil {
				return f(ctx, req, args.(A), t.Answers(a))
			}
			return true
		}
	}
	var link func(context.Context, Q, any, int, Answers, string) string
	if len(t.Links) > 0 {
		link = func(ctx context.Context, req Q, args any, step int, a Answers, token string) string {
			if f := t.Links[S(step)]; f != nil {
				return f(ctx, req, args.(A), t.Answers(a), token)
			}
			return ""
		}
	}
	var unavailable func(context.Context, Q, any, int, Answers) (*mcp.GetPromptResult, error)
	if t.Unavailable != nil {
		unavailable = func(ctx context.Context, req Q, args any, step int, a Answers) (*mcp.GetPromptResult, error) {
			return t.Unavailable(ctx, req, args.(A), t.Answers(a), S(step))
		}
	}
	return flowHooks(message, ask,
		func(ctx context.Context, req Q, args any, a Answers) (*mcp.GetPromptResult, error) {
			return t.Complete(ctx, req, args.(A), t.Answers(a))
		},
		func(ctx context.Context, req Q, args any, step int, action string, a Answers) (*mcp.GetPromptResult, error) {
			if action == ActionDecline {
				return t.Declined(ctx, req, args.(A), t.Answers(a), S(step))
			}
			return t.Cancelled(ctx, req, args.(A), t.Answers(a), S(step))
		},
		link, unavailable, nil)
}

// NewPromptMachine returns the machine of the prompt named prompt, with
// its step table and typed handler. Its states are bound to the prompt
// (no tool's or resource's state opens for it), its arguments, the
// principal and the audience, as a tool's are. A FallbackPreview step
// does not apply to a prompt: the generator refuses it.
func NewPromptMachine[A, T any, S ~int](prompt string, steps []Step, t TypedPrompt[A, T, S], opts *elicitrt.ToolOptions) *Machine {
	return newMachine(kindPrompt, "prompt:"+prompt, steps, t.hooks(), opts)
}

// GetPrompt runs one prompts/get of the flow, as Call runs a tools/call.
// What ends a tools/call with a tool error (invalid arguments, an answer
// invalid too often, too many rounds) ends a prompts/get with a JSON-RPC
// invalid-params error with the same text: a prompt has no error result.
func (m *Machine) GetPrompt(ctx context.Context, req *mcp.GetPromptRequest, args any) (*mcp.GetPromptResult, error) {
	return asKind[*mcp.GetPromptResult](m.serve(ctx, promptView(req), args))
}

// AddPrompt registers prompt on server, its prompts/get requests driven by
// m. The request's arguments are decoded into A (a struct of string
// fields, by their JSON names); a required argument of prompt.Arguments
// that is missing or empty is a JSON-RPC invalid-params error
// ("invalid arguments: project: is required"), as is an
// argument A cannot take. It also installs the sending middleware that
// lets the forms' decoders, not the SDK, judge the answers of 2025-11-25
// clients.
func AddPrompt[A any](server *mcp.Server, prompt *mcp.Prompt, m *Machine) {
	server.AddSendingMiddleware(keepRawAnswers)
	var required []string
	for _, a := range prompt.Arguments {
		if a.Required {
			required = append(required, a.Name)
		}
	}
	server.AddPrompt(prompt, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args, err := promptArguments[A](req.Params.Arguments, required)
		if err != nil {
			return nil, err
		}
		return m.GetPrompt(ctx, req, args)
	})
}

// promptArguments decodes a prompt's string arguments into A.
func promptArguments[A any](raw map[string]string, required []string) (A, error) {
	var args A
	var missing []elicitrt.FieldError
	for _, name := range required {
		if raw[name] == "" {
			missing = append(missing, elicitrt.FieldError{Property: name, Reason: ReasonRequired})
		}
	}
	if missing != nil {
		// In the form decoders' words, as a tool's arguments are.
		text := strings.TrimPrefix((&elicitrt.ContentError{Fields: missing}).Error(), "invalid content: ")
		return args, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid arguments: " + text}
	}
	if len(raw) == 0 {
		return args, nil
	}
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &args)
	}
	if err != nil {
		return args, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid arguments: " + bounded(err.Error())}
	}
	return args, nil
}
