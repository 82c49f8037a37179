package machine_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// The callback and the provider's answer, on the fixture of
// signinlink_test.go.

// callbackOf is b's person allowing at the provider for link, stopped
// before the callback: the callback URL the provider sent the browser to.
func (s *billingServerSite) callbackOf(t *testing.T, b *http.Client, link string) string {
	t.Helper()
	consent, err := billingServerConsent(b, link)
	if err != nil || consent.code != http.StatusOK {
		t.Fatalf("the consent page: %+v %v", consent, err)
	}
	stop := *b
	stop.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	allowed, err := billingServerAnswer(&stop, consent, "allow")
	if err != nil || allowed.code != http.StatusSeeOther {
		t.Fatalf("Allow: %+v %v", allowed, err)
	}
	return allowed.location
}

// TestCallbackOnlyInTheBrowserThatConnected: over the real SDK and HTTP,
// with the provider on another site (localhost against 127.0.0.1): the
// callback the provider sends alice's browser to completes the sign-in
// only in that browser (another browser of alice's, or mallory's, gets
// 403 and nothing is stored; the flow token as state is no state: 400);
// it completes once (a replay gets 409 and the grant is unchanged); and
// the tool call's retry then completes.
func TestCallbackOnlyInTheBrowserThatConnected(t *testing.T) {
	s := billingServerStart(t)
	cs := s.manual(t, "alice")
	first, link := s.first(t, cs)
	connected := s.browser(t, "alice")
	callback := s.callbackOf(t, connected, link)
	if !strings.HasPrefix(callback, s.url+"/callback?") || s.providerHits.Load() != 2 { // consent page, Allow
		t.Fatalf("callback %q after %d provider requests", callback, s.providerHits.Load())
	}
	for who, b := range map[string]*http.Client{"alice's other browser": s.browser(t, "alice"), "mallory's browser": s.browser(t, "mallory")} {
		if p := billingServerOpen(t, b, callback); p.code != http.StatusForbidden {
			t.Errorf("%s: %d %s", who, p.code, p.body)
		}
	}
	token := strings.TrimPrefix(link, s.url+"/connect?flow=")
	if p := billingServerOpen(t, s.browser(t, "alice"), s.url+"/callback?code="+billingServerCode+"&state="+token); p.code != http.StatusBadRequest {
		t.Errorf("the flow token as state: %d %s", p.code, p.body)
	}
	for _, u := range []string{"alice", "mallory"} {
		if _, ok := s.grant(u); ok {
			t.Fatalf("a grant was stored for %s", u)
		}
	}
	if res, err := billingServerList(cs, first.RequestState, billingServerAccept(t, first)); err != nil || !res.NeedsInput() {
		t.Fatalf("completed before the sign-in: %+v %v", res, err)
	}
	if p := billingServerOpen(t, connected, callback); p.code != http.StatusOK || !strings.Contains(p.body, "Connected") {
		t.Fatalf("the browser that connected: %d %s", p.code, p.body)
	}
	if p := billingServerOpen(t, connected, callback); p.code != http.StatusConflict {
		t.Errorf("replay: %d", p.code)
	}
	if g, ok := s.grant("alice"); !ok || g != "provider-token-for-alice" {
		t.Fatalf("grant %q %v", g, ok)
	}
	again, err := billingServerList(cs, first.RequestState, billingServerAccept(t, first))
	if err != nil || again.NeedsInput() || hosttest.Text(again) != billingServerDone {
		t.Fatalf("retry after the sign-in: %+v %v", again, err)
	}
}

// TestDenialDeclines: over the real SDK and HTTP, alice clicks Deny on the
// provider's consent page: she sees the denied page (403), no grant is
// stored, and the tool call's retry takes the step's decline path (the
// billing account isn't connected) instead of asking again; a new call
// asks again, with a new link.
func TestDenialDeclines(t *testing.T) {
	s := billingServerStart(t)
	cs := s.manual(t, "alice")
	first, link := s.first(t, cs)
	p, err := billingServerDecide(s.browser(t, "alice"), link, "deny")
	if err != nil || p.code != http.StatusForbidden || !strings.Contains(p.body, "<h1>You didn't allow access</h1>") ||
		!strings.Contains(p.body, "Acme Billing") || !strings.HasPrefix(p.at.String(), s.url+"/callback?done=") {
		t.Fatalf("after Deny: %+v %v", p, err)
	}
	if _, ok := s.grant("alice"); ok {
		t.Fatal("a grant was stored")
	}
	res, err := billingServerList(cs, first.RequestState, billingServerAccept(t, first))
	if err != nil || res.NeedsInput() || res.IsError || hosttest.Text(res) != billingServerNone {
		t.Fatalf("the retry after the denial: %+v %v", res, err)
	}
	again, err := billingServerList(cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if billingServerURLStep(t, again) == link {
		t.Fatal("a new call got the denied link again")
	}
}

// TestLegacyDenialDeclines: on 2025-11-25 the call waits for the browser
// after the person accepts the link; a Deny at the provider ends that wait
// at once in the step's decline path, as a retry does on 2026-07-28.
func TestLegacyDenialDeclines(t *testing.T) {
	s := billingServerStart(t)
	// Run out, the wait would end the call "not finished yet": only
	// the denial ends it in the decline.
	s.legacyWait = 20 * time.Second
	b := s.browser(t, "alice")
	denied := make(chan error, 1)
	u := &hosttest.User{OnAsk: func(p *mcp.ElicitParams) {
		// The person opens the link and clicks Deny, while the call waits.
		go func() {
			_, err := billingServerDecide(b, p.URL, "deny")
			denied <- err
		}()
	}, Replies: []*mcp.ElicitResult{{Action: "accept"}}}
	cs := s.client(t, "http", "legacy", "alice", hosttest.Options{User: u, Capabilities: billingServerBoth})
	res, err := billingServerList(cs, "", nil)
	if err != nil || res.IsError || hosttest.Text(res) != billingServerNone {
		t.Fatalf("a legacy call denied at the provider: %+v %v", res, err)
	}
	if err := <-denied; err != nil {
		t.Fatal(err)
	}
}
