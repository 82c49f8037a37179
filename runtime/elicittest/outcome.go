package elicittest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Outcome is what the model got from a call, and what happened on the
// way.
type Outcome struct {
	// Result is the call's result; nil when it ended in an error. A call
	// the script broke off ends with the input_required result it was at.
	Result *mcp.CallToolResult
	// Err is the call's error: a *jsonrpc.Error for a JSON-RPC error.
	Err error
	// Questions are the questions asked, in order.
	Questions []*Question
	// Events are what the server's machine reported (ToolOptions.Hooks):
	// questions asked, answers, re-asks, fallbacks, single-use claims.
	Events []backend.Event
}

// Text returns the text contents of the result, joined by newlines; ""
// when there is no result.
func (o *Outcome) Text() string {
	if o.Result == nil {
		return ""
	}
	var texts []string
	for _, c := range o.Result.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// IsError reports whether the result is a tool error (isError).
func (o *Outcome) IsError() bool { return o.Result != nil && o.Result.IsError }

// Code returns the JSON-RPC error code of Err (-32021, -32602...); 0 when
// the call returned a result or failed otherwise.
func (o *Outcome) Code() int64 {
	var werr *jsonrpc.Error
	if errors.As(o.Err, &werr) {
		return werr.Code
	}
	return 0
}

// ErrorMessage returns the message of the JSON-RPC error in Err ("" when
// there is none), without the SDK's "calling ..." prefix.
func (o *Outcome) ErrorMessage() string {
	var werr *jsonrpc.Error
	if errors.As(o.Err, &werr) {
		return werr.Message
	}
	return ""
}

// Fallbacks returns the steps that could not be shown, each with the
// fallback taken ("target: arguments").
func (o *Outcome) Fallbacks() []string {
	var out []string
	for _, e := range o.Events {
		if e.Kind == backend.EventFallback && len(e.Steps) > 0 {
			out = append(out, e.Steps[0]+": "+e.Reason)
		}
	}
	return out
}

// String describes the outcome for a failure message.
func (o *Outcome) String() string {
	switch {
	case o.Err != nil:
		return "error: " + o.Err.Error()
	case o.Result == nil:
		return "no result"
	case o.Result.NeedsInput():
		return fmt.Sprintf("input_required (%d questions)", len(o.Result.InputRequests))
	case o.Result.IsError:
		return fmt.Sprintf("tool error %q", o.Text())
	}
	return fmt.Sprintf("result %q", o.Text())
}

// WantText fails t unless the call returned a result, not a tool error,
// whose text is want.
func (o *Outcome) WantText(t testing.TB, want string) {
	t.Helper()
	if o.Err != nil || o.Result == nil || o.IsError() || o.Result.NeedsInput() || o.Text() != want {
		t.Errorf("elicittest: the call ended with %s; want result %q", o, want)
	}
}

// WantToolError fails t unless the call returned a tool error whose text
// contains part.
func (o *Outcome) WantToolError(t testing.TB, part string) {
	t.Helper()
	if !o.IsError() || !strings.Contains(o.Text(), part) {
		t.Errorf("elicittest: the call ended with %s; want a tool error containing %q", o, part)
	}
}

// WantCode fails t unless the call ended in a JSON-RPC error of code.
func (o *Outcome) WantCode(t testing.TB, code int64) {
	t.Helper()
	if o.Code() != code {
		t.Errorf("elicittest: the call ended with %s; want JSON-RPC error %d", o, code)
	}
}
