package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/signin"
)

// pageWant is what a sign-in page must show, read from the browser's DOM
// and accessibility tree.
type pageWant struct {
	status int
	title  string
	h1     string
	// texts must each be part of some node's accessible name: the
	// service's and the account's names, for example.
	texts []string
	// link is the accessible name of the page's button link ("" for none),
	// and href the start of its address.
	link, href string
	// standIn: one of the example's stand-in pages, sent with
	// Referrer-Policy: same-origin (its forms' POSTs carry the Origin
	// the origin check reads).
	standIn bool
}

// axNode is a node of the accessibility tree: its role, name and heading
// level.
type axNode struct {
	role, name string
	level      int
}

// axTree reads the tab's accessibility tree, ignored nodes left out.
func axTree(t *testing.T, tab context.Context) []axNode {
	t.Helper()
	res, err := chromedp.Call(tab, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatalf("accessibility tree: %v", err)
	}
	var nodes []axNode
	for _, n := range res.Nodes {
		if n.Ignored {
			continue
		}
		var node axNode
		if n.Role != nil {
			_ = json.Unmarshal(n.Role.Value, &node.role)
		}
		if n.Name != nil {
			_ = json.Unmarshal(n.Name.Value, &node.name)
		}
		for _, p := range n.Properties {
			if p.Name == accessibility.PropertyNameLevel && p.Value != nil {
				_ = json.Unmarshal(p.Value.Value, &node.level)
			}
		}
		nodes = append(nodes, node)
	}
	return nodes
}

// checkPage checks the page the tab shows, reached with resp: the status,
// the security headers, the title, the language, the landmarks, one
// level-1 heading, the names shown and the button link.
func checkPage(t *testing.T, tab context.Context, resp *network.Response, want pageWant) {
	t.Helper()
	if resp.Status != int64(want.status) {
		t.Errorf("%s: status %d, want %d", want.h1, resp.Status, want.status)
	}
	header := func(name string) string {
		for k, v := range resp.Headers {
			if strings.EqualFold(k, name) {
				s, _ := v.(string)
				return s
			}
		}
		return ""
	}
	referrer := "no-referrer"
	if want.standIn {
		referrer = "same-origin"
	}
	if csp := header("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.HasPrefix(csp, "default-src 'none'") ||
		header("Cache-Control") != "no-store" || header("Referrer-Policy") != referrer || header("X-Frame-Options") != "DENY" ||
		header("X-Content-Type-Options") != "nosniff" {
		t.Errorf("%s: headers %v", want.h1, resp.Headers)
	}
	title, err := chromedp.Run(tab, chromedp.Title())
	if err != nil || title != want.title {
		t.Errorf("title %q (%v), want %q", title, err, want.title)
	}
	lang, err := chromedp.Run(tab, chromedp.AttributeValue(chromedp.CSS("html"), "lang"))
	if err != nil || lang.Value != "en" {
		t.Errorf("%s: lang %q %v", want.h1, lang.Value, err)
	}
	nodes := axTree(t, tab)
	var h1s []string
	roles := map[string]bool{}
	for _, n := range nodes {
		roles[n.role] = true
		if n.role == "heading" && n.level == 1 {
			h1s = append(h1s, n.name)
		}
	}
	if len(h1s) != 1 || h1s[0] != want.h1 {
		t.Errorf("level-1 headings %q, want %q", h1s, want.h1)
	}
	for _, landmark := range []string{"banner", "main", "contentinfo"} {
		if !roles[landmark] {
			t.Errorf("%s: no %s landmark", want.h1, landmark)
		}
	}
	for _, text := range want.texts {
		found := false
		for _, n := range nodes {
			found = found || strings.Contains(n.name, text)
		}
		if !found {
			t.Errorf("%s: %q is not shown", want.h1, text)
		}
	}
	var links []string
	for _, n := range nodes {
		if n.role == "link" {
			links = append(links, n.name)
		}
	}
	if want.link == "" {
		if len(links) != 0 {
			t.Errorf("%s: links %q, want none", want.h1, links)
		}
		return
	}
	if len(links) != 1 || links[0] != want.link {
		t.Errorf("%s: links %q, want %q", want.h1, links, want.link)
		return
	}
	href, err := chromedp.Run(tab, chromedp.AttributeValue(chromedp.CSS("a"), "href"))
	if err != nil || !strings.HasPrefix(href.Value, want.href) {
		t.Errorf("%s: link to %q (%v), want %q...", want.h1, href.Value, err, want.href)
	}
}

// The two widths of the screenshots: a desktop window, and a phone
// (mobile emulation, so that the page's viewport applies).
var screens = []struct {
	name          string
	width, height int64
	mobile        bool
}{
	{"desktop", 1280, 800, false},
	{"phone", 390, 844, true},
}

// screenshots saves the tab's page at every width, as
// NAME-desktop.png and NAME-phone.png in the test's artifact directory
// (go test -artifacts keeps them; see docs/reference/signin.md). On the phone, the
// page must not be wider than the screen.
func screenshots(t *testing.T, tab context.Context, name string) {
	t.Helper()
	dir := t.ArtifactDir()
	for _, sc := range screens {
		opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
		if sc.mobile {
			opts = []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile}
		}
		if err := chromedp.Do(tab, chromedp.EmulateViewport(sc.width, sc.height, opts...)); err != nil {
			t.Fatal(err)
		}
		if sc.mobile {
			metrics, err := chromedp.Call(tab, page.GetLayoutMetrics, cdp.Empty{})
			if err != nil {
				t.Fatal(err)
			}
			if w := metrics.CSSContentSize.Width; w > float64(sc.width)+0.5 {
				t.Errorf("%s: %v CSS pixels wide on a %d-pixel phone", name, w, sc.width)
			}
		}
		png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-"+sc.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(tab, chromedp.EmulateViewport(screens[0].width, screens[0].height)); err != nil {
		t.Fatal(err)
	}
}

// failingGrants is a grant store that cannot store grants: the server's
// own failure, after the provider approved.
type failingGrants struct{ *backend.MemoryGrants }

func (failingGrants) PutGrant(context.Context, string, string, []byte, time.Duration) error {
	return errors.New("the grant store is down")
}

// navigate opens link in tab and returns the response of the page it
// ends at.
func navigate(t *testing.T, tab context.Context, link string) *network.Response {
	t.Helper()
	resp, err := chromedp.Run(tab, chromedp.NavigateResponse(link))
	if err != nil {
		t.Fatalf("opening %s: %v", link, err)
	}
	return resp
}

// click clicks the element with id in tab and returns the response of the
// page it leads to.
func click(t *testing.T, tab context.Context, id string) *network.Response {
	t.Helper()
	resp, err := chromedp.RunResponse(tab, chromedp.Click(chromedp.ID(id)))
	if err != nil {
		t.Fatalf("clicking #%s: %v", id, err)
	}
	return resp
}

// TestSignInPagesInBrowser drives headless chromium through every sign-in
// page of the billing example, with the provider on another site, and
// checks each page in the DOM and the accessibility tree (title, language,
// landmarks, the one h1, the service's and the account's names, the
// button link) and its headers; it saves a screenshot of each at desktop
// and phone widths (no page is wider than the phone). Along the way: the
// login round trip (signed out, the link leads to the login form, which
// leads back to the link), the confirm page, reload after success (the
// connected page again, no second exchange), the denial (the denied page,
// then the tool call's retry over MCP answers with the decline text), a
// provider error whose Start again link starts again, the other-account,
// other-browser, invalid-link, finished, signed-out and server-error
// pages, and the refusal to be framed.
func TestSignInPagesInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	browser := startChromium(t, ctx)
	var exchanges atomic.Int64
	s := startSiteWith(t, "localhost", func(c *config) {
		c.signInPages = func(o *signin.ConnectOptions) {
			o.Confirm = true
			exchange := o.Exchange
			o.Exchange = func(r *http.Request, f signin.ConnectFlow) ([]byte, error) {
				exchanges.Add(1)
				return exchange(r, f)
			}
		}
	})
	const service, provider = "Billing assistant", "Acme Billing"

	// The login round trip: alice, signed out, opens her link.
	cs := s.mcpClient(t, "http", "alice", hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})
	first, err := list(cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	key, p := urlRequest(t, first)
	alice := newProfile(t, browser)
	resp := navigate(t, alice, p.URL)
	if resp.Status != http.StatusOK || resp.URL != s.url+"/login?return_to="+url.QueryEscape(strings.TrimPrefix(p.URL, s.url)) {
		t.Fatalf("signed out, the link leads to %d %s", resp.Status, resp.URL)
	}
	if err := chromedp.Do(alice, chromedp.SendKeys(chromedp.ID("user"), "alice")); err != nil {
		t.Fatal(err)
	}
	resp = click(t, alice, "signin")
	if resp.URL != p.URL {
		t.Fatalf("after the login: %d at %s, want the link", resp.Status, resp.URL)
	}
	checkPage(t, alice, resp, pageWant{status: 200, title: "Connect to Acme Billing · Billing assistant", h1: "Connect your account at Acme Billing",
		texts: []string{service, "alice@example.com"}, link: "Continue to Acme Billing", href: strings.TrimPrefix(p.URL, s.url) + "&continue=1"})
	screenshots(t, alice, "confirm")

	resp = click(t, alice, "continue")
	if !strings.HasPrefix(resp.URL, s.cfg.provider+"/provider/authorize?") {
		t.Fatalf("continue: %d at %s", resp.Status, resp.URL)
	}
	resp = click(t, alice, "allow")
	if !strings.HasPrefix(resp.URL, s.url+"/callback?done=") {
		t.Fatalf("after Allow: %d at %s", resp.Status, resp.URL)
	}
	connected := pageWant{status: 200, title: "Connected to Acme Billing · Billing assistant", h1: "You're connected",
		texts: []string{service, provider, "alice@example.com", "You can close this tab and return to your assistant."}}
	checkPage(t, alice, resp, connected)
	screenshots(t, alice, "connected")
	connectedPage := resp.URL
	again, err := chromedp.RunResponse(alice, chromedp.Reload())
	if err != nil || again.URL != resp.URL {
		t.Fatalf("reload: %+v %v", again, err)
	}
	checkPage(t, alice, again, connected)
	if n := exchanges.Load(); n != 1 {
		t.Fatalf("%d exchanges after a reload of the connected page", n)
	}
	done, err := list(cs, first.RequestState, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}})
	if err != nil || hosttest.Text(done) != "2 open invoices." {
		t.Fatalf("the retry after the sign-in: %+v %v", done, err)
	}
	// The link again, once finished.
	checkPage(t, alice, navigate(t, alice, p.URL), pageWant{status: 409, title: "Already connected · Billing assistant",
		h1: "You're already connected", texts: []string{service, provider, "alice@example.com", "return to your assistant"}})
	screenshots(t, alice, "done")

	// Another account opens alice's link: 403, with a sign-out link.
	mallory := newProfile(t, browser)
	s.signInWithForm(t, mallory, "mallory")
	_, p2 := urlRequest(t, mustList(t, s.mcpClient(t, "http", "bob", hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})))
	checkPage(t, mallory, navigate(t, mallory, p2.URL), pageWant{status: 403, title: "This link is for another account · Billing assistant",
		h1: "This link is for another account", texts: []string{service, "mallory@example.com"}, link: "Sign out of Billing assistant", href: "/logout"})
	screenshots(t, mallory, "other-user")
	checkPage(t, mallory, navigate(t, mallory, s.url+"/connect?flow=not-a-token"), pageWant{status: 400,
		title: "Link expired or not valid · Billing assistant", h1: "This link has expired or isn't valid", texts: []string{service}})
	screenshots(t, mallory, "invalid")

	// The denial: bob clicks Deny; the retry over MCP takes the decline path.
	bobMCP := s.mcpClient(t, "http", "bob", hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})
	bobFirst := mustList(t, bobMCP)
	bobKey, bobLink := urlRequest(t, bobFirst)
	bob := newProfile(t, browser)
	s.signInWithForm(t, bob, "bob")
	navigate(t, bob, bobLink.URL)
	click(t, bob, "continue")
	resp = click(t, bob, "deny")
	denied := pageWant{status: 403, title: "Not connected · Billing assistant", h1: "You didn't allow access",
		texts: []string{service, provider, "bob@example.com"}}
	checkPage(t, bob, resp, denied)
	screenshots(t, bob, "denied")
	again, err = chromedp.RunResponse(bob, chromedp.Reload())
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, bob, again, denied)
	res, err := list(bobMCP, bobFirst.RequestState, mcp.InputResponseMap{bobKey: &mcp.ElicitResult{Action: "accept"}})
	if err != nil || res.NeedsInput() || res.IsError || hosttest.Text(res) != notConnected {
		t.Fatalf("the retry after the denial: %+v %v", res, err)
	}

	// Carol, at the provider's consent page: her return from another
	// browser, then a provider error, whose Start again starts again.
	carolMCP := s.mcpClient(t, "http", "carol", hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})
	_, carolLink := urlRequest(t, mustList(t, carolMCP))
	carol := newProfile(t, browser)
	s.signInWithForm(t, carol, "carol")
	navigate(t, carol, carolLink.URL)
	resp = click(t, carol, "continue")
	consent, _ := url.Parse(resp.URL)
	state := consent.Query().Get("state")
	carolElsewhere := newProfile(t, browser)
	s.signInWithForm(t, carolElsewhere, "carol")
	back := strings.TrimPrefix(carolLink.URL, s.url)
	checkPage(t, carolElsewhere, navigate(t, carolElsewhere, s.url+"/callback?"+url.Values{"state": {state}, "code": {standInCode}}.Encode()),
		pageWant{status: 403, title: "Start again in this browser · Billing assistant", h1: "Start again in this browser",
			texts: []string{service, "carol@example.com"}, link: "Start again", href: back})
	screenshots(t, carolElsewhere, "other-browser")
	resp = navigate(t, carol, s.url+"/callback?"+url.Values{"state": {state}, "error": {"temporarily_unavailable"}}.Encode())
	checkPage(t, carol, resp, pageWant{status: 502, title: "Sign-in not finished · Billing assistant", h1: "The sign-in at Acme Billing didn't finish",
		texts: []string{service, "carol@example.com"}, link: "Start again", href: back})
	screenshots(t, carol, "provider-error")
	if resp = click(t, carol, "retry"); resp.URL != carolLink.URL || resp.Status != http.StatusOK {
		t.Fatalf("Start again: %d at %s", resp.Status, resp.URL)
	}

	// Signed out, on a site without a login page to send the person to.
	bare := startSiteWith(t, "", func(c *config) {
		c.signInPages = func(o *signin.ConnectOptions) { o.LoginURL = "" }
	})
	_, bareLink := urlRequest(t, mustList(t, bare.mcpClient(t, "memory", "alice", hosttest.Options{Capabilities: bothModes, Manual: true})))
	anonymous := newProfile(t, browser)
	checkPage(t, anonymous, navigate(t, anonymous, bareLink.URL), pageWant{status: 401,
		title: "Sign in to continue · Billing assistant", h1: "Sign in to continue", texts: []string{service, provider}})
	screenshots(t, anonymous, "signed-out")

	// The server's own failure: the grant cannot be stored.
	broken := startSiteWith(t, "", func(c *config) { c.grants = failingGrants{&backend.MemoryGrants{}} })
	_, brokenLink := urlRequest(t, mustList(t, broken.mcpClient(t, "memory", "dave", hosttest.Options{Capabilities: bothModes, Manual: true})))
	dave := newProfile(t, browser)
	broken.signInWithForm(t, dave, "dave")
	navigate(t, dave, brokenLink.URL)
	checkPage(t, dave, click(t, dave, "allow"), pageWant{status: 500, title: "Something went wrong · Billing assistant",
		h1: "Something went wrong", texts: []string{service, "dave@example.com"}, link: "Try again", href: "/connect?flow="})
	screenshots(t, dave, "error")

	// No page can be framed, by the same site or another: the browser
	// refuses to show the link inside a frame (the frame shows an error
	// page instead), while it shows a page that allows framing.
	other := httptest.NewServer(http.HandlerFunc(serveFrame))
	t.Cleanup(other.Close)
	for _, framer := range []string{s.url, other.URL} {
		for _, framed := range []string{p.URL, s.url + "/connect?flow=x", connectedPage, other.URL + "/?no-protection"} {
			navigate(t, alice, framer+"/test/frame?src="+url.QueryEscape(framed))
			if shown := frameShows(t, alice, framed); shown != strings.Contains(framed, "no-protection") {
				t.Errorf("%s frames %s: shown %v", framer, framed, shown)
			}
		}
	}
}

// frameShows reports whether the one frame of the tab's page shows
// framed, rather than the error page of a refusal. It waits for the
// frame's document (at most 5 s).
func frameShows(t *testing.T, tab context.Context, framed string) bool {
	t.Helper()
	for range 50 {
		tree, err := chromedp.Call(tab, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tree.FrameTree.ChildFrames) != 1 {
			t.Fatalf("%d frames", len(tree.FrameTree.ChildFrames))
		}
		f := tree.FrameTree.ChildFrames[0].Frame
		switch {
		case f.UnreachableURL != "" || strings.HasPrefix(f.URL, "chrome-error:"):
			return false
		case f.URL == framed:
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the frame of %s never loaded", framed)
	return false
}

// mustList starts a list_invoices call on cs.
func mustList(t *testing.T, cs *mcp.ClientSession) *mcp.CallToolResult {
	t.Helper()
	res, err := list(cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
