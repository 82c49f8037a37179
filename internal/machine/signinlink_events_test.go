package machine_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// billingServerEvents are hooks that count the events of the billing
// step, by kind and outcome.
type billingServerEvents struct {
	mu     sync.Mutex
	counts map[string]int
}

func (h *billingServerEvents) Begin(ctx context.Context, _ *backend.Served) context.Context {
	return ctx
}
func (h *billingServerEvents) End(context.Context, *backend.Served) {}

func (h *billingServerEvents) Event(_ context.Context, e *backend.Event) {
	if len(e.Steps) == 0 || e.Steps[0] != "billing" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.counts == nil {
		h.counts = map[string]int{}
	}
	h.counts[e.Kind.String()+" "+e.Outcome]++
}

// count is how many events of kind had outcome.
func (h *billingServerEvents) count(kind backend.EventKind, outcome string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.counts[kind.String()+" "+outcome]
}

// TestURLStepStatesReported: the machine reports a sign-in accepted
// before it finished as an unfinished answer, not an accept of the step;
// once finished and accepted again, as an accept; the link sent (with the
// question and with its re-ask), the unfinished and the finished sign-in
// each as a URL step state of its own. (examples/billing's
// TestURLStepStatesCounted reads the same from the Prometheus scrape.)
func TestURLStepStatesReported(t *testing.T) {
	s := billingServerStart(t)
	events := &billingServerEvents{}
	s.hooks = events
	cs := s.manual(t, "alice")
	first, link := s.first(t, cs)
	early, err := billingServerList(cs, first.RequestState, billingServerAccept(t, first))
	if err != nil || !early.NeedsInput() {
		t.Fatalf("accepted before the sign-in: %+v %v", early, err)
	}
	if n := events.count(backend.EventAnswered, backend.OutcomeAccept); n != 0 {
		t.Errorf("an accept before the sign-in finished reported as %d accepts", n)
	}
	for _, c := range []struct {
		kind    backend.EventKind
		outcome string
		want    int
	}{{backend.EventAnswered, backend.OutcomeUnfinished, 1}, {backend.EventURLStep, backend.URLUnfinished, 1}, {backend.EventURLStep, backend.URLSent, 2}} {
		if n := events.count(c.kind, c.outcome); n != c.want {
			t.Errorf("%s %s reported %d times, want %d", c.kind, c.outcome, n, c.want)
		}
	}
	if p, err := billingServerDecide(s.browser(t, "alice"), link, "allow"); err != nil || p.code != http.StatusOK {
		t.Fatalf("sign-in: %+v %v", p, err)
	}
	done, err := billingServerList(cs, early.RequestState, billingServerAccept(t, early))
	if err != nil || done.NeedsInput() || done.IsError {
		t.Fatalf("after the sign-in: %+v %v", done, err)
	}
	if events.count(backend.EventAnswered, backend.OutcomeAccept) != 1 || events.count(backend.EventURLStep, backend.URLFinished) != 1 {
		t.Errorf("the finished sign-in is not one accept and one finished URL step: %v", events.counts)
	}
}
