package hosttest

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A DroppedError is what CallTool returns when the host dropped a
// question it declared it could show: the call stays open until the host
// gives up After its timeout; the emulation stops as soon as the question
// is dropped instead of waiting.
type DroppedError struct{ After string }

func (e *DroppedError) Error() string {
	return "no answer: the question is dropped and the call stays open until the host gives up (" + e.After + ")"
}

// CallTool calls the tool p names as the person u of a host: when u drops
// questions, the call is abandoned once one is dropped, and the error is
// a *DroppedError; otherwise it is cs.CallTool.
func CallTool(ctx context.Context, cs *mcp.ClientSession, u *User, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if u == nil || u.Drops == "" {
		return cs.CallTool(ctx, p)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	u.mu.Lock()
	u.dropped, u.abandoned = make(chan struct{}), make(chan struct{})
	dropped, abandoned := u.dropped, u.abandoned
	u.mu.Unlock()
	go func() {
		select {
		case <-dropped:
			cancel()
			close(abandoned)
		case <-ctx.Done():
		}
	}()
	res, err := cs.CallTool(ctx, p)
	select {
	case <-dropped:
		return nil, &DroppedError{After: u.Drops}
	default:
		return res, err
	}
}

// Sees is what a person of one host saw of one call: each question
// (a form's message, or "a URL step", or what u.Shows says), then the
// result's first line or the error.
func Sees(u *User, res *mcp.CallToolResult, err error) string {
	var parts []string
	if u != nil {
		u.mu.Lock()
		for _, p := range u.Asked {
			switch {
			case u.Shows != nil:
				parts = append(parts, u.Shows(p))
			case p.Mode == "url":
				parts = append(parts, "URL step: "+p.Message)
			default:
				parts = append(parts, "form: "+p.Message)
			}
		}
		u.mu.Unlock()
	}
	return strings.Join(append(parts, outcome(res, err)), " → ")
}

// outcome is the result's first line, or the error.
func outcome(res *mcp.CallToolResult, err error) string {
	var dropped *DroppedError
	switch {
	case errors.As(err, &dropped):
		return dropped.Error()
	case err != nil:
		return "error: " + err.Error()
	case res != nil && len(res.Content) == 2 && strings.Contains(Text(&mcp.CallToolResult{Content: res.Content[1:]}), "confirmation_token"):
		return "preview: " + Text(&mcp.CallToolResult{Content: res.Content[:1]}) + " (and a confirmation token)"
	}
	text := Text(res)
	if strings.Contains(text, "?flow=") {
		first, _, _ := strings.Cut(text, "\n")
		text = first + " (the link in the result)"
	}
	if res != nil && res.IsError {
		text = "tool error: " + text
	}
	return text
}
