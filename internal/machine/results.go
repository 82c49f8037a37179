package machine

import (
	"encoding/json"
	"errors"
	"runtime/debug"

	"github.com/elicitgen/elicitgen/internal/contract"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
var ErrInternal = taskrun.ErrInternal

// MissingCapability is the -32021 error for a step of mode that the request
// cannot show, with data.requiredCapabilities naming the mode.
func MissingCapability(mode Mode) *jsonrpc.Error {
	name := "form"
	if mode == ModeURL {
		name = "url"
	}
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: contract.MissingModeMessage(name),
		Data:    json.RawMessage(`{"requiredCapabilities":{"elicitation":{"` + name + `":{}}}}`),
	}
}

func toolError(text string) *mcp.CallToolResult { return elicitrt.ToolError(text) }

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
