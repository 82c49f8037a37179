package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// startChromium starts a headless chromium, found on PATH as .ci/run
// finds it (Debian's chromium package), with a fresh profile, and returns
// a context for it that ends with ctx. Without chromium the test is
// skipped, or fails under CI=true.
func startChromium(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	chromiumPath, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and no chromium on PATH: %v", err)
		}
		t.Skipf("no chromium on PATH (apt-get install chromium): the browser test is skipped here; under CI=true it fails")
	}
	profile := t.TempDir() // removed after the browser has exited (cleanups run last in, first out)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// No network here: nothing may call home.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// Back fetches the page again, as for a page that may not be
		// kept: a page restored from the back-forward cache sends no
		// response to wait for.
		chromedp.Flag("disable-features", "BackForwardCache"),
	)
	t.Cleanup(cancelAlloc)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(browserCtx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return browserCtx
}

// newProfile opens a tab in a browser context of its own: another person's
// browser, with its own cookies.
func newProfile(t *testing.T, browserCtx context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	return ctx
}

// signInWithForm signs the tab in to the site as user: the login form,
// filled in and posted.
func (s *site) signInWithForm(t *testing.T, tab context.Context, user string) {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.Navigate(s.url+"/login"), chromedp.SendKeys(chromedp.ID("user"), user)); err != nil {
		t.Fatalf("login form: %v", err)
	}
	resp, err := chromedp.RunResponse(tab, chromedp.Click(chromedp.ID("signin")))
	if err != nil || resp.Status != http.StatusOK || resp.URL != s.url+"/login" {
		t.Fatalf("login POST: %+v %v", resp, err)
	}
	if text, err := chromedp.Run(tab, chromedp.Text(chromedp.ID("signed-in"))); err != nil || text != "Signed in as "+user+"@example.com." {
		t.Fatalf("after login: %q %v", text, err)
	}
}

// TestSignInInBrowser drives a real headless chromium through the whole
// billing sign-in, with the stand-in provider on another site
// (localhost:PORT2) than the connect page and the callback
// (127.0.0.1:PORT1), as a real provider is: the link list_invoices sends,
// through a real SDK client over HTTP, gets 403 in mallory's browser; in
// alice's, after she signs in with the login form, it goes to the
// provider's consent page, whose Allow sends her back, where the nonce
// cookie (SameSite=Lax: it is sent with the navigation the provider's site
// starts; a Strict one is not) lets the callback complete, and redirect to
// the Connected page. Reloading it shows it again; the tool call's retry
// then completes.
func TestSignInInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	browser := startChromium(t, ctx)
	s := startSiteWith(t, "localhost")
	if !strings.HasPrefix(s.cfg.provider, "http://localhost:") || !strings.HasPrefix(s.url, "http://127.0.0.1:") {
		t.Fatalf("provider %s, site %s: not two sites", s.cfg.provider, s.url)
	}
	cs := s.mcpClient(t, "http", "alice", hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})
	first, err := list(cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	key, p := urlRequest(t, first)

	mallory := newProfile(t, browser)
	s.signInWithForm(t, mallory, "mallory")
	resp, err := chromedp.Run(mallory, chromedp.NavigateResponse(p.URL))
	if err != nil || resp.Status != http.StatusForbidden {
		t.Fatalf("mallory opens alice's link: %+v %v", resp, err)
	}
	if n := s.providerHits.Load(); n != 0 {
		t.Fatalf("mallory reached the provider (%d requests)", n)
	}

	alice := newProfile(t, browser)
	s.signInWithForm(t, alice, "alice")
	resp, err = chromedp.Run(alice, chromedp.NavigateResponse(p.URL))
	if err != nil || resp.Status != http.StatusOK || !strings.HasPrefix(resp.URL, s.cfg.provider+"/provider/authorize?") {
		t.Fatalf("alice opens her link: %+v %v", resp, err)
	}
	// On the provider's site: Allow. The provider's page starts the
	// navigation back to the callback, on the app's site.
	resp, err = chromedp.RunResponse(alice, chromedp.Click(chromedp.ID("allow")))
	if err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(alice, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != http.StatusOK || !strings.HasPrefix(resp.URL, s.url+"/callback?done=") || !strings.Contains(body, "You're connected") {
		t.Fatalf("after Allow: status %d at %s: %q", resp.Status, resp.URL, body)
	}
	if n := s.providerHits.Load(); n != 2 {
		t.Fatalf("%d requests to the provider's site", n)
	}
	if g, ok, _ := s.grants.Grant(ctx, "alice", "billing"); !ok || string(g) != "provider-token-for-alice" {
		t.Fatalf("grant %q %v", g, ok)
	}
	// The Connected page again: shown again, nothing is exchanged.
	again, err := chromedp.RunResponse(alice, chromedp.Reload())
	if err != nil || again.Status != http.StatusOK || again.URL != resp.URL {
		t.Fatalf("the connected page again: %+v %v", again, err)
	}

	done, err := list(cs, first.RequestState, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}})
	if err != nil || done.NeedsInput() || hosttest.Text(done) != "2 open invoices." {
		t.Fatalf("the retry after the sign-in: %+v %v", done, err)
	}
}

// TestLinkSignInInBrowser: list_invoices called by a client that declares
// form mode only (Claude Code, Cursor, Codex) returns the connect link in
// its result; mallory's chromium opening it gets the other-account page
// and reaches no provider; alice, signed in with the login form in hers,
// goes through the provider's consent to the Connected page, and the
// client's next plain call lists her invoices.
func TestLinkSignInInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	browser := startChromium(t, ctx)
	s := startSiteWith(t, "localhost")
	cs := s.mcpClient(t, "http", "alice", hosttest.Options{User: &hosttest.User{}})
	link := s.linkOf(t, "form only", list)(cs)

	mallory := newProfile(t, browser)
	s.signInWithForm(t, mallory, "mallory")
	resp, err := chromedp.Run(mallory, chromedp.NavigateResponse(link))
	if err != nil || resp.Status != http.StatusForbidden || s.providerHits.Load() != 0 {
		t.Fatalf("mallory opens alice's link: %+v %v (%d provider requests)", resp, err, s.providerHits.Load())
	}

	alice := newProfile(t, browser)
	s.signInWithForm(t, alice, "alice")
	if resp, err := chromedp.Run(alice, chromedp.NavigateResponse(link)); err != nil || !strings.HasPrefix(resp.URL, s.cfg.provider+"/provider/authorize?") {
		t.Fatalf("alice opens her link: %+v %v", resp, err)
	}
	if _, err := chromedp.RunResponse(alice, chromedp.Click(chromedp.ID("allow"))); err != nil {
		t.Fatal(err)
	}
	if body, err := chromedp.Run(alice, chromedp.Text(chromedp.CSS("body"))); err != nil || !strings.Contains(body, "You're connected") {
		t.Fatalf("after Allow: %q %v", body, err)
	}
	res, err := list(cs, "", nil)
	if err != nil || hosttest.Text(res) != "2 open invoices." {
		t.Fatalf("the next call after the sign-in: %+v %v", res, err)
	}
}
