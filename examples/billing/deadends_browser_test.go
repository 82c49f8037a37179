package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// TestSignInDeadEndsInBrowser drives headless chromium, with the provider
// on another site, through the four places that used to strand a person,
// and checks that each page says what happened and offers the next step
// (screenshots of each, at desktop and phone widths, as
// TestSignInPagesInBrowser takes them; docs/reference/signin.md):
//   - Deny, then Back and Allow: the done page says the Deny ended the
//     sign-in and the Allow changed nothing (not "You didn't allow
//     access"); no grant, and the retry over MCP declines;
//   - another account's browser: Sign out leads to the stand-in sign-out
//     page, which names the account, then (its POST) back to the link,
//     which leads to the login page, which says why; signing in there as
//     the link's user goes on to the consent page, which names the
//     service and the account, and Allow connects; the retry completes;
//   - the link again once connected: "You're already connected", for
//     whom;
//   - two links of one user in two tabs of one browser: both finish.
func TestSignInDeadEndsInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	browser := startChromium(t, ctx)
	s := startSiteWith(t, "localhost")
	const service, provider = "Billing assistant", "Acme Billing"
	user := func(name string) *mcp.ClientSession {
		return s.mcpClient(t, "http", name, hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})
	}

	// Deny, Back, Allow.
	bobMCP := user("bob")
	bobFirst := mustList(t, bobMCP)
	bobKey, bobLink := urlRequest(t, bobFirst)
	bob := newProfile(t, browser)
	s.signInWithForm(t, bob, "bob")
	resp := navigate(t, bob, bobLink.URL)
	consent := pageWant{status: 200, title: "Allow access · Acme Billing", h1: "Allow Billing assistant to read your invoices?",
		texts: []string{provider, service, "bob@example.com"}, standIn: true}
	checkPage(t, bob, resp, consent)
	screenshots(t, bob, "consent")
	checkPage(t, bob, click(t, bob, "deny"), pageWant{status: 403, title: "Not connected · Billing assistant", h1: "You didn't allow access",
		texts: []string{service, provider, "bob@example.com"}})
	// Back: to the consent page, fetched again (it is no-store, and the
	// browser keeps no back-forward cache: see startChromium).
	if resp, err := chromedp.RunResponse(bob, chromedp.NavigateBack()); err != nil || !strings.HasPrefix(resp.URL, s.cfg.provider+"/provider/authorize?") {
		t.Fatalf("Back: %+v %v", resp, err)
	}
	checkPage(t, bob, click(t, bob, "allow"), pageWant{status: 409, title: "Already answered: not connected · Billing assistant",
		h1: "You already chose not to connect", texts: []string{service, provider, "bob@example.com", "ask your assistant again"}})
	screenshots(t, bob, "done-denied")
	if _, ok, _ := s.grants.Grant(ctx, "bob", "billing"); ok {
		t.Fatal("Allow after the Deny stored a grant")
	}
	res, err := list(bobMCP, bobFirst.RequestState, mcp.InputResponseMap{bobKey: &mcp.ElicitResult{Action: "accept"}})
	if err != nil || res.NeedsInput() || hosttest.Text(res) != notConnected {
		t.Fatalf("the retry after Deny, Back and Allow: %+v %v", res, err)
	}

	// Another account: sign out, sign in as the link's user, go on.
	aliceMCP := user("alice")
	aliceFirst := mustList(t, aliceMCP)
	aliceKey, aliceLink := urlRequest(t, aliceFirst)
	back := strings.TrimPrefix(aliceLink.URL, s.url)
	shared := newProfile(t, browser)
	s.signInWithForm(t, shared, "mallory")
	checkPage(t, shared, navigate(t, shared, aliceLink.URL), pageWant{status: 403, title: "This link is for another account · Billing assistant",
		h1: "This link is for another account", texts: []string{service, "mallory@example.com"},
		link: "Sign out of Billing assistant", href: "/logout?return_to=" + url.QueryEscape(back)})
	checkPage(t, shared, click(t, shared, "sign-out"), pageWant{status: 200, title: "Sign out · Billing assistant", h1: "Sign out of Billing assistant",
		texts: []string{service, "mallory@example.com", "made for another account"}, standIn: true})
	screenshots(t, shared, "sign-out")
	resp = click(t, shared, "signout")
	if resp.URL != s.url+"/login?return_to="+url.QueryEscape(back) {
		t.Fatalf("after signing out: %d at %s, want the login page returning to the link", resp.Status, resp.URL)
	}
	checkPage(t, shared, resp, pageWant{status: 200, title: "Sign in · Billing assistant", h1: "Sign in to Billing assistant",
		texts: []string{service, provider, "Your assistant asked to connect your account"}, standIn: true})
	screenshots(t, shared, "login")
	if err := chromedp.Do(shared, chromedp.SendKeys(chromedp.ID("user"), "alice")); err != nil {
		t.Fatal(err)
	}
	resp = click(t, shared, "signin")
	consent.texts = []string{provider, service, "alice@example.com"}
	if !strings.HasPrefix(resp.URL, s.cfg.provider+"/provider/authorize?") {
		t.Fatalf("after signing in as alice: %d at %s", resp.Status, resp.URL)
	}
	checkPage(t, shared, resp, consent)
	checkPage(t, shared, click(t, shared, "allow"), pageWant{status: 200, title: "Connected to Acme Billing · Billing assistant", h1: "You're connected",
		texts: []string{service, provider, "alice@example.com"}})
	done, err := list(aliceMCP, aliceFirst.RequestState, mcp.InputResponseMap{aliceKey: &mcp.ElicitResult{Action: "accept"}})
	if err != nil || hosttest.Text(done) != "2 open invoices." {
		t.Fatalf("the retry after signing out and in: %+v %v", done, err)
	}

	// The link again, once connected.
	checkPage(t, shared, navigate(t, shared, aliceLink.URL), pageWant{status: 409, title: "Already connected · Billing assistant",
		h1: "You're already connected", texts: []string{service, provider, "alice@example.com", "return to your assistant"}})
	screenshots(t, shared, "done-connected")

	// Two links of one user, in two tabs of one browser.
	carolMCP := user("carol")
	_, first := urlRequest(t, mustList(t, carolMCP))
	_, second := urlRequest(t, mustList(t, carolMCP))
	tabA := newProfile(t, browser)
	s.signInWithForm(t, tabA, "carol")
	tabB, cancelB := chromedp.NewContext(tabA) // a second tab of the same browser
	t.Cleanup(cancelB)
	for _, tab := range []struct {
		ctx  context.Context
		link string
	}{{tabA, first.URL}, {tabB, second.URL}} {
		if resp := navigate(t, tab.ctx, tab.link); !strings.HasPrefix(resp.URL, s.cfg.provider+"/provider/authorize?") {
			t.Fatalf("a tab opens its link: %d at %s", resp.Status, resp.URL)
		}
	}
	for _, tab := range []context.Context{tabA, tabB} {
		checkPage(t, tab, click(t, tab, "allow"), pageWant{status: http.StatusOK, title: "Connected to Acme Billing · Billing assistant",
			h1: "You're connected", texts: []string{service, "carol@example.com"}})
	}
}
