package elicittest

import (
	"context"
	"sync"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// keyHooks are the server's hooks as the kit wraps them: they keep the
// machine's events of the running call and, on 2025-11-25, the step each
// elicitation/create is about to ask (the machine reports a question just
// before it sends it), then call the server's own hooks.
type keyHooks struct {
	next   backend.Hooks
	mu     sync.Mutex
	events []backend.Event
	asked  []string // steps reported asked, not yet matched to a question
}

func (h *keyHooks) Begin(ctx context.Context, r *backend.Served) context.Context {
	if h.next != nil {
		return h.next.Begin(ctx, r)
	}
	return ctx
}

func (h *keyHooks) End(ctx context.Context, r *backend.Served) {
	if h.next != nil {
		h.next.End(ctx, r)
	}
}

func (h *keyHooks) Event(ctx context.Context, e *backend.Event) {
	h.mu.Lock()
	h.events = append(h.events, *e)
	if e.Kind == backend.EventAsked {
		h.asked = append(h.asked, e.Steps...)
	}
	h.mu.Unlock()
	if h.next != nil {
		h.next.Event(ctx, e)
	}
}

// take returns the events since the last take, and forgets the steps
// asked.
func (h *keyHooks) take() []backend.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	events := h.events
	h.events, h.asked = nil, nil
	return events
}

// nextAsked returns the step the oldest unmatched question asks, or "".
func (h *keyHooks) nextAsked() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.asked) == 0 {
		return ""
	}
	step := h.asked[0]
	h.asked = h.asked[1:]
	return step
}
