package machine

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2025-11-25 client has no retry to come back with: the machine asks it
// with a server-to-client elicitation/create and waits for the answer
// inside the tools/call. This file bounds that wait and makes it behave as
// a 2026-07-28 round does:
//
//   - the wait ends after ToolOptions.LegacyAnswerWait;
//   - on an HTTPHandler, it also ends when the session's own principal
//     deletes it (another's DELETE, which the SDK refuses, changes
//     nothing), or when no request arrives on the session for
//     HTTPOptions.SessionTimeout (the SDK pauses its own idle timer while
//     a call runs, and its session Close waits for running calls: without
//     this a DELETE would wait for an answer that never comes);
//   - the SDK's own check of the answer against the requested schema is
//     left to the form's decoder, so that an invalid answer is asked
//     again with the reason, as in a 2026-07-28 round, instead of ending
//     the call with the SDK's error.

// errNoAnswer is the error of a question that got no answer in time, or
// whose session ended first.
var errNoAnswer = errors.New("no answer")

// elicitLegacy asks params on the 2025-11-25 session ss and waits for the
// answer, at most wait and no longer than the session lives.
func elicitLegacy(ctx context.Context, ss *mcp.ServerSession, params *mcp.ElicitParams, wait time.Duration) (*mcp.ElicitResult, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if s, ok := ctx.Value(legacyAsksKey{}).(LegacyAsks); ok {
		defer s.Pending(cancel)()
	}
	raw := new(rawAnswer)
	res, err := ss.Elicit(context.WithValue(ctx, rawAnswerKey{}, raw), params)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errNoAnswer
		}
		return nil, err
	}
	if raw.content != nil {
		res.Content = raw.content
	}
	return res, nil
}

// rawAnswer carries the content of an elicitation result past the SDK's
// schema check (see keepRawAnswers).
type rawAnswer struct{ content map[string]any }

type rawAnswerKey struct{}

// keepRawAnswers is a sending middleware: for an elicitation/create that
// elicitLegacy sends, it moves the answer's content into the call's
// rawAnswer, so that the SDK skips its own schema check (it checks only
// non-nil content) and the form's decoder judges the answer. AddTool
// installs it with each tool: the innermost layer takes the content, and
// the others find none to take.
func keepRawAnswers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		raw, ok := ctx.Value(rawAnswerKey{}).(*rawAnswer)
		if !ok || err != nil {
			return res, err
		}
		if er, ok := res.(*mcp.ElicitResult); ok && er != nil && er.Content != nil {
			raw.content, er.Content = er.Content, nil
		}
		return res, err
	}
}

// LegacyAsks is the hook through which a transport ends the waits of the
// questions asked on one 2025-11-25 session (internal/transport's legacy
// sessions implement it): Pending registers the wait of one question,
// whose cancel the session calls when it is deleted or idle; done
// unregisters it.
type LegacyAsks interface {
	Pending(cancel context.CancelFunc) (done func())
}

type legacyAsksKey struct{}

// WithLegacyAsks returns ctx carrying s: the questions elicitLegacy asks
// under it wait no longer than s lets them.
func WithLegacyAsks(ctx context.Context, s LegacyAsks) context.Context {
	return context.WithValue(ctx, legacyAsksKey{}, s)
}
