package machine

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// One interpreter serves the three request kinds that may answer with an
// input_required result (the spec: tools/call, prompts/get and
// resources/read). The machine reads a request through a small view of
// what it needs (arguments, requestState, inputResponses, session,
// capabilities, protocol version, principal), and a per-kind adapter
// turns its outcome into the kind's result type.

// kind is a request kind the machine serves.
type kind uint8

const (
	kindTool kind = iota
	kindPrompt
	kindResource
)

// request is the machine's view of one request, of whichever kind. Its
// Params and Session fields are named as the SDK's requests name them.
type request struct {
	raw     sdkRequest // *mcp.CallToolRequest, *mcp.GetPromptRequest or *mcp.ReadResourceRequest
	Params  requestParams
	Session *mcp.ServerSession
	Extra   *mcp.RequestExtra
	version string
	// caps are read on first use (the SDK decodes them anew on every
	// read, and a call that asks nothing never needs them).
	caps     *mcp.ClientCapabilities
	capsRead bool
}

// sdkRequest is what the three SDK request types share that the view reads.
type sdkRequest interface {
	mcp.Request
	ProtocolVersion() string
	ClientCapabilities() *mcp.ClientCapabilities
	ClientInfo() *mcp.Implementation
}

// newView is the view of req, with the params the machine reads.
func newView(req sdkRequest, session *mcp.ServerSession, extra *mcp.RequestExtra, params requestParams) *request {
	return &request{raw: req, Session: session, Extra: extra, version: req.ProtocolVersion(), Params: params}
}

// requestParams are the params the machine reads.
type requestParams struct {
	// Arguments are what the state binds and prefill reads: a tool's
	// arguments, a prompt's arguments as a JSON object of strings, a
	// resource's {"uri": URI}.
	Arguments      json.RawMessage
	InputResponses mcp.InputResponseMap
	RequestState   string
}

// ProtocolVersion is the request's protocol version (see
// mcp.ServerRequest.ProtocolVersion).
func (r *request) ProtocolVersion() string { return r.version }

// ClientCapabilities are the capabilities the request declared.
func (r *request) ClientCapabilities() *mcp.ClientCapabilities {
	if !r.capsRead {
		r.caps, r.capsRead = r.raw.ClientCapabilities(), true
	}
	return r.caps
}

func toolView(req *mcp.CallToolRequest) *request {
	return newView(req, req.Session, req.Extra,
		requestParams{Arguments: req.Params.Arguments, InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState})
}

func promptView(req *mcp.GetPromptRequest) *request {
	args := []byte("{}")
	if len(req.Params.Arguments) > 0 {
		args, _ = json.Marshal(req.Params.Arguments) // a map of strings
	}
	return newView(req, req.Session, req.Extra,
		requestParams{Arguments: args, InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState})
}

func resourceView(req *mcp.ReadResourceRequest) *request {
	args, _ := json.Marshal(map[string]string{"uri": req.Params.URI})
	return newView(req, req.Session, req.Extra,
		requestParams{Arguments: args, InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState})
}

// hooks are the flow's hooks as the machine calls them, on any kind: Flow
// (tools), PromptFlow and ResourceFlow adapt to them.
type hooks struct {
	Message     func(ctx context.Context, req *request, args any, step int, answers Answers) string
	Ask         func(ctx context.Context, req *request, args any, step int, answers Answers) bool
	Complete    func(ctx context.Context, req *request, args any, answers Answers) (mcp.Result, error)
	Ended       func(ctx context.Context, req *request, args any, step int, action string, answers Answers) (mcp.Result, error)
	Link        func(ctx context.Context, req *request, args any, step int, answers Answers, token string) string
	Unavailable func(ctx context.Context, req *request, args any, step int, answers Answers) (mcp.Result, error)
	Preview     func(ctx context.Context, req *request, args any, step int, answers Answers) string
}

// result is res as an mcp.Result: nil, not a typed nil, when res is nil.
func result[R interface {
	*T
	mcp.Result
}, T any](res R, err error) (mcp.Result, error) {
	if res == nil {
		return nil, err
	}
	return res, err
}

// flowHooks adapts the hooks of Q requests, answered with R results, to
// the machine's; nil hooks stay nil.
func flowHooks[Q mcp.Request, T any, R interface {
	*T
	mcp.Result
}](
	message func(context.Context, Q, any, int, Answers) string,
	ask func(context.Context, Q, any, int, Answers) bool,
	complete func(context.Context, Q, any, Answers) (R, error),
	ended func(context.Context, Q, any, int, string, Answers) (R, error),
	link func(context.Context, Q, any, int, Answers, string) string,
	unavailable func(context.Context, Q, any, int, Answers) (R, error),
	preview func(context.Context, Q, any, int, Answers) string,
) hooks {
	var h hooks
	if message != nil {
		h.Message = func(ctx context.Context, req *request, args any, step int, a Answers) string {
			return message(ctx, req.raw.(Q), args, step, a)
		}
	}
	if ask != nil {
		h.Ask = func(ctx context.Context, req *request, args any, step int, a Answers) bool {
			return ask(ctx, req.raw.(Q), args, step, a)
		}
	}
	if complete != nil {
		h.Complete = func(ctx context.Context, req *request, args any, a Answers) (mcp.Result, error) {
			return result(complete(ctx, req.raw.(Q), args, a))
		}
	}
	if ended != nil {
		h.Ended = func(ctx context.Context, req *request, args any, step int, action string, a Answers) (mcp.Result, error) {
			return result(ended(ctx, req.raw.(Q), args, step, action, a))
		}
	}
	if link != nil {
		h.Link = func(ctx context.Context, req *request, args any, step int, a Answers, token string) string {
			return link(ctx, req.raw.(Q), args, step, a, token)
		}
	}
	if unavailable != nil {
		h.Unavailable = func(ctx context.Context, req *request, args any, step int, a Answers) (mcp.Result, error) {
			return result(unavailable(ctx, req.raw.(Q), args, step, a))
		}
	}
	if preview != nil {
		h.Preview = func(ctx context.Context, req *request, args any, step int, a Answers) string {
			return preview(ctx, req.raw.(Q), args, step, a)
		}
	}
	return h
}

// hooks adapts a tool's Flow to the machine.
func (f Flow) hooks() hooks {
	return flowHooks(f.Message, f.Ask, f.Complete, f.Ended, f.Link, f.Unavailable, f.Preview)
}

// inputRequired is the kind's input_required result.
func (m *Machine) inputRequired(requests mcp.InputRequestMap, state string) mcp.Result {
	switch m.kind {
	case kindPrompt:
		return &mcp.GetPromptResult{InputRequests: requests, RequestState: state}
	case kindResource:
		return &mcp.ReadResourceResult{InputRequests: requests, RequestState: state}
	}
	return &mcp.CallToolResult{InputRequests: requests, RequestState: state}
}

// asKind returns the machine's outcome as an R result. The machine ends a
// prompts/get or resources/read that it cannot complete (invalid
// arguments, an answer invalid too often, no answer in time...) with the
// tool error it would give a tools/call; these kinds have no error result,
// so the text goes out as a JSON-RPC invalid-params error instead.
func asKind[R interface {
	*T
	mcp.Result
}, T any](res mcp.Result, err error) (R, error) {
	if err != nil || res == nil {
		return nil, err
	}
	if r, ok := res.(R); ok {
		return r, nil
	}
	if tr, ok := res.(*mcp.CallToolResult); ok {
		text := "the request failed"
		if len(tr.Content) > 0 {
			if t, ok := tr.Content[0].(*mcp.TextContent); ok {
				text = t.Text
			}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: text}
	}
	return nil, ErrInternal
}

// missingCapability is MissingCapability, worded for the machine's kind.
func (m *Machine) missingCapability(mode Mode) error {
	err := MissingCapability(mode)
	if m.kind != kindTool {
		noun := "prompt"
		if m.kind == kindResource {
			noun = "resource"
		}
		err.Message = strings.Replace(err.Message, "this tool", "this "+noun, 1)
	}
	return err
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

// isLegacy reports whether the request comes from a client of a protocol
// revision before MRTR (2025-11-25 and earlier), which the machine asks
// with server-to-client elicitation requests instead.
func isLegacy(req *request) bool {
	v := req.ProtocolVersion()
	return v != "" && v < LatestProtocolVersion && req.Session != nil
}

// elicitation is the elicitation capability the request declared, nil
// when none: read from _meta when that is certain to give the SDK's
// answer (metaElicitation), else from ClientCapabilities.
func (r *request) elicitation() *mcp.ElicitationCapabilities {
	if !r.capsRead {
		if e, ok := metaElicitation(r.raw.GetParams().GetMeta()); ok {
			return e
		}
	}
	caps := r.ClientCapabilities()
	if caps == nil {
		return nil
	}
	return caps.Elicitation
}

// canShow reports whether the request declared the elicitation mode. An
// empty elicitation capability means form mode only.
func canShow(req *request, mode Mode) bool {
	e := req.elicitation()
	if e == nil {
		return false
	}
	if mode == ModeURL {
		return e.URL != nil
	}
	return e.Form != nil || e.URL == nil
}
