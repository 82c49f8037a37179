package main

import (
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

var keys = func() *elicitrt.Keyring {
	k, err := elicitrt.NewKeyring([]byte("billing-test-key-0123456789abcde"))
	if err != nil {
		panic(err)
	}
	return k
}()

var bothModes = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
	Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}

// site is one running example: the app on 127.0.0.1 and its grant store.
type site struct {
	url    string
	grants *backend.MemoryGrants
	cfg    config
	// providerHits counts the requests of /provider/authorize, when the
	// stand-in provider has its own server.
	providerHits atomic.Int64
}

// startSite runs the example as its single-process default: the stand-in
// provider on the app's own server.
func startSite(t *testing.T) *site {
	t.Helper()
	return startSiteWith(t, "")
}

// startSiteWith runs the example; with providerHost (e.g. "localhost"),
// the stand-in provider runs on a server of its own, reached at
// http://providerHost:PORT: another site than the app's 127.0.0.1, as a
// real provider is. edit changes the config before the app is made. Besides
// the app, the site serves /test/frame?src=URL, a page of the same origin
// that frames URL.
func startSiteWith(t *testing.T, providerHost string, edit ...func(*config)) *site {
	t.Helper()
	s := &site{grants: &backend.MemoryGrants{}}
	var app http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/test/frame" {
			serveFrame(w, r)
			return
		}
		app.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	s.cfg = config{base: srv.URL, keys: keys, grants: s.grants}
	if providerHost != "" {
		provider := newProvider(s.url + "/callback")
		psrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/provider/authorize" { // not a browser's /favicon.ico
				s.providerHits.Add(1)
			}
			provider.ServeHTTP(w, r)
		}))
		t.Cleanup(psrv.Close)
		s.cfg.provider = "http://" + net.JoinHostPort(providerHost, strconv.Itoa(psrv.Listener.Addr().(*net.TCPAddr).Port))
	}
	for _, e := range edit {
		e(&s.cfg)
	}
	app = newApp(s.cfg)
	return s
}

// serveFrame serves a page that frames the URL in its src parameter.
func serveFrame(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><title>framing</title><iframe id="framed" src="%s" width="600" height="400"></iframe>`, html.EscapeString(r.URL.Query().Get("src")))
}

// mcpClient connects as user over transport, in memory or over HTTP, to
// a server bound to user that shares the site's keys and grants.
func (s *site) mcpClient(t *testing.T, transport, user string, o hosttest.Options) *mcp.ClientSession {
	t.Helper()
	return s.mcpClientEra(t, transport, "modern", user, o)
}

// serverBin is this example built as a binary, for the stdio transport.
var serverBin string

func TestMain(m *testing.M) { os.Exit(hosttest.RunWithBinary(m, ".", &serverBin)) }

func (s *site) mcpClientEra(t *testing.T, transport, era, user string, o hosttest.Options) *mcp.ClientSession {
	t.Helper()
	if transport == "stdio" {
		o.Command = func() *exec.Cmd {
			cmd := exec.Command(serverBin, "-stdio")
			cmd.Env = append(os.Environ(), "BILLING_USER="+user, "BILLING_BASE_URL="+s.url, "BILLING_LEGACY_URL_WAIT=200ms")
			return cmd
		}
		return hosttest.Connect(t, nil, "stdio", era, o)
	}
	// In memory and over HTTP (hosttest's server on 127.0.0.1, as
	// runtime/serve serves it), the server is bound to user, as the
	// site's /mcp binds it to the bearer token's user.
	cfg := s.cfg
	cfg.principal = func(*mcp.CallToolRequest) string { return user }
	return hosttest.Connect(t, func() *mcp.Server { return newServer(cfg) }, transport, era, o)
}

// browser is a user's browser, signed in to the site as user with the
// login form's POST.
func (s *site) browser(t *testing.T, user string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &http.Client{Jar: jar}
	resp, err := b.PostForm(s.url+"/login", url.Values{"user": {user}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	return b
}

// signIn is the user of browser b going through the sign-in link: the
// connect page, the provider's consent page, its Allow button (the form's
// POST) and the redirect to the callback. It returns the last page's
// status and body: the callback's, or a refusal before it.
func signIn(b *http.Client, link string) (int, string, error) {
	resp, err := b.Get(link)
	if err != nil {
		return 0, "", err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/provider/authorize" {
		return resp.StatusCode, string(body), nil
	}
	consent := *resp.Request.URL
	consent.RawQuery = ""
	resp, err = b.PostForm(consent.String(), resp.Request.URL.Query()) // Allow
	if err != nil {
		return 0, "", err
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(body), nil
}

func get(t *testing.T, c *http.Client, link string) (int, string) {
	t.Helper()
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func list(cs *mcp.ClientSession, state string, responses mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_invoices", Arguments: map[string]any{},
		RequestState: state, InputResponses: responses})
}

func urlRequest(t *testing.T, res *mcp.CallToolResult) (string, *mcp.ElicitParams) {
	t.Helper()
	key := hosttest.OnlyKey(t, res)
	p, ok := res.InputRequests[key].(*mcp.ElicitParams)
	if !ok || p.Mode != "url" || p.RequestedSchema != nil || p.ElicitationID != "" {
		t.Fatalf("want a URL-mode elicitation without elicitationId, got %+v", res.InputRequests[key])
	}
	return key, p
}

func TestSignInFlow(t *testing.T) {
	for _, transport := range hosttest.Transports {
		t.Run(transport, func(t *testing.T) {
			s := startSite(t)
			cs := s.mcpClient(t, transport, "alice", hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})

			first, err := list(cs, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			key, p := urlRequest(t, first)
			if p.Message != "Open this link to connect your billing account." || !strings.HasPrefix(p.URL, s.url+"/connect?flow=") {
				t.Fatalf("elicitation %+v", p)
			}
			if strings.Contains(p.URL, "alice") {
				t.Fatalf("the link carries the user: %s", p.URL)
			}
			// Accepted, but not signed in yet: the same link again.
			again, err := list(cs, first.RequestState, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}})
			if err != nil {
				t.Fatal(err)
			}
			key2, p2 := urlRequest(t, again)
			if p2.URL != p.URL || key2 == key {
				t.Fatalf("retry before sign-in: link %q (was %q), key %q (was %q)", p2.URL, p.URL, key2, key)
			}

			// Another signed-in user opening alice's link: 403, nothing stored.
			if code, _ := get(t, s.browser(t, "mallory"), p.URL); code != http.StatusForbidden {
				t.Fatalf("other user: status %d", code)
			}
			// Nobody signed in: to the login page, to come back to the link.
			noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := noFollow.Get(p.URL)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if want := "/login?return_to=" + url.QueryEscape(strings.TrimPrefix(p.URL, s.url)); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
				t.Fatalf("signed out: status %d to %q, want %q", resp.StatusCode, resp.Header.Get("Location"), want)
			}
			for _, u := range []string{"alice", "mallory"} {
				if _, ok, _ := s.grants.Grant(context.Background(), u, "billing"); ok {
					t.Fatalf("a grant was stored for %s", u)
				}
			}
			still, err := list(cs, again.RequestState, mcp.InputResponseMap{key2: &mcp.ElicitResult{Action: "accept"}})
			if err != nil || !still.NeedsInput() {
				t.Fatalf("retry before sign-in: %+v %v", still, err)
			}

			// Alice completes it: connect page → provider → callback.
			code, body, err := signIn(s.browser(t, "alice"), p.URL)
			if err != nil {
				t.Fatal(err)
			}
			if code != http.StatusOK || !strings.Contains(body, "Connected") {
				t.Fatalf("alice: %d %s", code, body)
			}
			if g, ok, _ := s.grants.Grant(context.Background(), "alice", "billing"); !ok || string(g) != "provider-token-for-alice" {
				t.Fatalf("grant %q %v", g, ok)
			}
			key3 := hosttest.OnlyKey(t, still)
			done, err := list(cs, still.RequestState, mcp.InputResponseMap{key3: &mcp.ElicitResult{Action: "accept"}})
			if err != nil || done.NeedsInput() || hosttest.Text(done) != "2 open invoices." {
				t.Fatalf("after sign-in: %+v %v", done, err)
			}
			// With the grant stored, a new call does not ask.
			next, err := list(cs, "", nil)
			if err != nil || hosttest.Text(next) != "2 open invoices." {
				t.Fatalf("next call: %+v %v", next, err)
			}
		})
	}
}

func TestDeclineAndCancel(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, action := range []string{"decline", "cancel"} {
			s := startSite(t)
			u := &hosttest.User{Replies: []*mcp.ElicitResult{{Action: action}}}
			cs := s.mcpClient(t, transport, "alice", hosttest.Options{User: u, Capabilities: bothModes})
			res, err := list(cs, "", nil)
			if err != nil || res.IsError || hosttest.Text(res) != notConnected {
				t.Errorf("%s/%s: %+v %v", transport, action, res, err)
			}
		}
	}
}

// linkOf returns a function that calls the tool on cs, as call does, and
// returns the connect link its result carries on a line of its own,
// failing unless the result is a normal one saying what to do.
func (s *site) linkOf(t *testing.T, name string, call func(*mcp.ClientSession, string, mcp.InputResponseMap) (*mcp.CallToolResult, error)) func(*mcp.ClientSession) string {
	return func(cs *mcp.ClientSession) string {
		t.Helper()
		res, err := call(cs, "", nil)
		if err != nil || res.IsError || res.NeedsInput() {
			t.Fatalf("%s: want a result with the link, got %+v %v", name, res, err)
		}
		text := hosttest.Text(res)
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, s.url+"/connect?flow=") {
				if !strings.HasPrefix(text, "Open this link to connect your billing account.") || !strings.HasSuffix(text, "Once you have finished in the browser, ask again and I will go on.") {
					t.Fatalf("%s: the result does not say what to do: %q", name, text)
				}
				return line
			}
		}
		t.Fatalf("%s: no link on a line of its own in %q", name, text)
		return ""
	}
}

// TestEveryTransportAndEra: decline, cancel and the link of a client
// without URL mode over stdio (the binary), in memory and over HTTP, on both protocol eras;
// and, on 2025-11-25, a URL step accepted before the sign-in finished: the
// call waits for it, or ends when the wait runs out.
func TestEveryTransportAndEra(t *testing.T) {
	s := startSite(t)
	for _, transport := range []string{"stdio", "memory", "http"} {
		for _, era := range hosttest.Eras {
			name := transport + "/" + era
			for _, action := range []string{"decline", "cancel"} {
				u := &hosttest.User{Replies: []*mcp.ElicitResult{{Action: action}}}
				cs := s.mcpClientEra(t, transport, era, "bob", hosttest.Options{User: u, Capabilities: bothModes})
				res, err := list(cs, "", nil)
				if err != nil || hosttest.Text(res) != notConnected || len(u.Asked) != 1 || u.Asked[0].Mode != "url" {
					t.Errorf("%s %s: %+v %v", name, action, res, err)
				}
				if era == "modern" && len(u.Asked) == 1 && u.Asked[0].ElicitationID != "" {
					t.Errorf("%s: elicitationId sent on 2026-07-28", name)
				}
			}
			cs := s.mcpClientEra(t, transport, era, "bob", hosttest.Options{User: &hosttest.User{}})
			s.linkOf(t, name, list)(cs) // form mode only: the link in the result
			if era == "legacy" && transport == "stdio" {
				// The binary's grant store is its own: the sign-in cannot
				// finish, and the call ends when its wait (200ms) runs out.
				u := &hosttest.User{Replies: []*mcp.ElicitResult{{Action: "accept"}}}
				cs := s.mcpClientEra(t, transport, era, "bob", hosttest.Options{User: u, Capabilities: bothModes})
				res, err := list(cs, "", nil)
				if err != nil || hosttest.Text(res) != "The step in the browser has not finished yet: finish it, then ask again." || u.Asked[0].ElicitationID == "" || len(u.CompletedIDs()) != 0 {
					t.Errorf("%s accept: %+v %v", name, res, err)
				}
			}
			if era == "legacy" && transport != "stdio" {
				// The user accepts, then signs in while the call waits: the
				// call goes on to the invoices, after telling the client the
				// elicitation completed.
				user := "carol-" + transport
				b := s.browser(t, user)
				signedIn := make(chan int, 1)
				u := &hosttest.User{Replies: []*mcp.ElicitResult{{Action: "accept"}}, OnAsk: func(p *mcp.ElicitParams) {
					go func() {
						time.Sleep(150 * time.Millisecond) // the user reads, then clicks
						code, _, err := signIn(b, p.URL)
						if err != nil {
							signedIn <- 0
							return
						}
						signedIn <- code
					}()
				}}
				cs := s.mcpClientEra(t, transport, era, user, hosttest.Options{User: u, Capabilities: bothModes})
				res, err := list(cs, "", nil)
				if code := <-signedIn; code != http.StatusOK {
					t.Errorf("%s: sign-in status %d", name, code)
				}
				if err != nil || hosttest.Text(res) != "2 open invoices." || len(u.Asked) != 1 {
					t.Errorf("%s accept, then sign-in: %+v %v", name, res, err)
				}
				// The client handles notifications apart from the result.
				for i := 0; i < 100 && len(u.CompletedIDs()) == 0; i++ {
					time.Sleep(10 * time.Millisecond)
				}
				if id := u.Asked[0].ElicitationID; id == "" || !slices.Equal(u.CompletedIDs(), []string{id}) {
					t.Errorf("%s: asked with elicitationId %q, completions %q", name, id, u.CompletedIDs())
				}
			}
		}
	}
}
