package elicittest

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Outcome is what the model got from a request (a call, a prompt, a
// resource), and what happened on the way.
type Outcome struct {
	// Result is a call's result; nil when it ended in an error. A
	// request the script broke off ends with the input_required result it
	// was at.
	Result *mcp.CallToolResult
	// Prompt and Resource are the results of GetPrompt and ReadResource.
	Prompt   *mcp.GetPromptResult
	Resource *mcp.ReadResourceResult
	// Err is the request's error: a *jsonrpc.Error for a JSON-RPC error.
	Err error
	// Questions are the questions asked, in order.
	Questions []*Question
	// Events are what the server's machine reported (ToolOptions.Hooks):
	// questions asked, answers, re-asks, fallbacks, single-use claims.
	Events []backend.Event
	// TaskID is the task the call ran as (a task tool called by a client
	// that declares the Tasks extension, Options.Tasks); "" when it ran in
	// the foreground. TaskStatus is the task's last status (completed,
	// failed, cancelled; input_required when the script left the task
	// waiting, and the kit cancelled it).
	TaskID, TaskStatus string
	// Progress are the task's status messages, in order, each once for
	// every change: recorded from the task's own updates as the server
	// writes them to its task store (through the kit's), so a message
	// shown for no time at all is kept too.
	Progress []string
	// pending counts the questions of the input_required result the
	// request ended at (the script broke off, or a replay asked).
	pending int
}

// Text returns the texts of the result, joined by newlines: a call's text
// contents, a prompt's text messages, a resource's text contents; ""
// when there is no result.
func (o *Outcome) Text() string {
	var texts []string
	add := func(c mcp.Content) {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if o.Result != nil {
		for _, c := range o.Result.Content {
			add(c)
		}
	}
	if o.Prompt != nil {
		for _, m := range o.Prompt.Messages {
			add(m.Content)
		}
	}
	if o.Resource != nil {
		for _, c := range o.Resource.Contents {
			texts = append(texts, c.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// ended reports whether the request returned a result.
func (o *Outcome) ended() bool {
	return o.Result != nil || o.Prompt != nil || o.Resource != nil
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
	case o.pending > 0:
		return fmt.Sprintf("input_required (%s)", questions(o.pending))
	case !o.ended():
		return "no result"
	case o.IsError():
		return fmt.Sprintf("tool error %q", o.Text())
	}
	return fmt.Sprintf("result %q", o.Text())
}

// questions is "1 question", "2 questions"...
func questions(n int) string {
	if n == 1 {
		return "1 question"
	}
	return fmt.Sprintf("%d questions", n)
}

// PreviewToken returns the confirmation token of a preview: the result of
// a call whose step has fallback=preview, for a client that cannot show
// the confirmation. Call the tool again with the same arguments plus
// elicitrt.PreviewTokenArgument set to it to confirm; "" when the result
// is no preview.
func (o *Outcome) PreviewToken() string {
	return previewToken(o.Result)
}

// previewToken reads the token out of how a preview says to confirm (its
// last text content): the JSON-quoted value after the quoted argument
// name.
func previewToken(res *mcp.CallToolResult) string {
	if res == nil || res.IsError || len(res.Content) < 2 {
		return ""
	}
	how, ok := res.Content[len(res.Content)-1].(*mcp.TextContent)
	if !ok {
		return ""
	}
	_, after, ok := strings.Cut(how.Text, strconv.Quote(elicitrt.PreviewTokenArgument)+": ")
	if !ok {
		return ""
	}
	quoted, err := strconv.QuotedPrefix(after)
	if err != nil {
		return ""
	}
	token, err := strconv.Unquote(quoted)
	if err != nil {
		return ""
	}
	return token
}

// WantText fails t unless the call returned a result, not a tool error,
// whose text is want.
func (o *Outcome) WantText(t testing.TB, want string) {
	t.Helper()
	if o.Err != nil || o.pending > 0 || !o.ended() || o.IsError() || o.Text() != want {
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
