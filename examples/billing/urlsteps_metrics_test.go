package main

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup/promtest"
)

// TestURLStepStatesCounted: a sign-in accepted before it finished counts
// as unfinished, not as an accept of the step; once finished and accepted
// again, as an accept; the link sent, the unfinished and the finished
// sign-in each in a series of their own, read from the Prometheus scrape.
func TestURLStepStatesCounted(t *testing.T) {
	tel, err := otelsetup.Start(context.Background(), &otelsetup.Config{MetricsAddr: "127.0.0.1:0", Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	s := startSiteWith(t, "", func(c *config) { c.hooks = tel.Hooks })
	cs := s.mcpClient(t, "http", "alice", hosttest.Options{Capabilities: bothModes, Manual: true})
	first, err := list(cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	key, p := urlRequest(t, first)
	early, err := list(cs, first.RequestState, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}})
	if err != nil || !early.NeedsInput() {
		t.Fatalf("accepted before the sign-in: %+v %v", early, err)
	}
	count := func(family string, labels ...string) float64 {
		want := map[string]string{"gen_ai_tool_name": "list_invoices", "elicitgen_step": "billing"}
		for i := 0; i < len(labels); i += 2 {
			want[labels[i]] = labels[i+1]
		}
		f := promtest.Scrape(t, tel.MetricsURL)[family]
		if f == nil {
			return 0
		}
		return promtest.Sample(f, want)
	}
	if n := count("elicitgen_elicitation_responses_total", "elicitgen_outcome", "accept"); n != 0 {
		t.Errorf("an accept before the sign-in finished counted as %v accepts", n)
	}
	// The link went out with the question, and again with its re-ask.
	for _, c := range []struct {
		family, outcome string
		want            float64
	}{{"elicitgen_elicitation_responses_total", "unfinished", 1}, {"elicitgen_url_steps_total", "unfinished", 1}, {"elicitgen_url_steps_total", "sent", 2}} {
		if n := count(c.family, "elicitgen_outcome", c.outcome); n != c.want {
			t.Errorf("%s{outcome=%s} is %v, want %v", c.family, c.outcome, n, c.want)
		}
	}
	if code, body, err := signIn(s.browser(t, "alice"), p.URL); err != nil || code != http.StatusOK {
		t.Fatalf("sign-in: %d %v\n%s", code, err, body)
	}
	key2, _ := urlRequest(t, early)
	done, err := list(cs, early.RequestState, mcp.InputResponseMap{key2: &mcp.ElicitResult{Action: "accept"}})
	if err != nil || done.NeedsInput() || done.IsError {
		t.Fatalf("after the sign-in: %+v %v", done, err)
	}
	if count("elicitgen_elicitation_responses_total", "elicitgen_outcome", "accept") != 1 || count("elicitgen_url_steps_total", "elicitgen_outcome", "finished") != 1 {
		t.Errorf("the finished sign-in is not one accept and one finished URL step")
	}
}
