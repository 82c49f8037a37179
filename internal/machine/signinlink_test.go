package machine_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/signin"
)

// A URL step's sign-in end to end, as a server wires it: list_invoices,
// written by hand as elicitgen generates it (one URL step, fallback=link,
// asked while the user has no grant), the sign-in pages of runtime/signin
// on 127.0.0.1, a stand-in site session (a cookie naming the user) and a
// stand-in provider on another site (localhost), whose consent page
// answers Allow with its one code or Deny with OAuth's access_denied, and
// redirects to the registered callback only. Helpers are prefixed
// billingServer so that they cannot clash with other test files.

const (
	billingServerMessage = "Open this link to connect your billing account."
	billingServerDone    = "2 open invoices."
	billingServerNone    = "The billing account isn't connected, so no invoices were read."
	billingServerCookie  = "billing_user"
	billingServerCode    = "stand-in-code"
)

// billingServerQuiet is the pages' and the tool's logger: the refusals
// they log are other tests' business.
var billingServerQuiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// billingServerSite is the pages' server, the provider and the store and
// keys they share with the tool.
type billingServerSite struct {
	url    string
	keys   *elicitrt.Keyring
	grants *backend.MemoryGrants
	// providerHits counts the requests of the provider's /authorize.
	providerHits atomic.Int64
	// legacyWait is the tool's LegacyURLWait (0: the default); hooks its
	// telemetry (nil: none).
	legacyWait time.Duration
	hooks      backend.Hooks
}

// billingServerStart serves the sign-in pages and the provider.
func billingServerStart(t *testing.T) *billingServerSite {
	t.Helper()
	s := &billingServerSite{keys: elicitrt.RandomKeyring(), grants: &backend.MemoryGrants{}}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.url = srv.URL
	callback := s.url + "/callback"
	psrv := httptest.NewServer(billingServerProvider(callback, &s.providerHits))
	t.Cleanup(psrv.Close)
	provider := "http://" + net.JoinHostPort("localhost", strconv.Itoa(psrv.Listener.Addr().(*net.TCPAddr).Port))
	pages := signin.NewConnectHandlers(signin.ConnectOptions{
		Keys: s.keys, Grants: s.grants, ProviderName: "Acme Billing", Logger: billingServerQuiet,
		Authenticate: func(r *http.Request) (string, bool) {
			c, err := r.Cookie(billingServerCookie)
			return billingServerUnquote(c, err)
		},
		AuthorizeURL: func(r *http.Request, f signin.ConnectFlow, state string) (string, error) {
			return provider + "/authorize?" + url.Values{"state": {state}, "redirect_uri": {callback}}.Encode(), nil
		},
		Exchange: func(r *http.Request, f signin.ConnectFlow) ([]byte, error) {
			if r.URL.Query().Get("code") != billingServerCode {
				return nil, errors.New("unknown code")
			}
			return []byte("provider-token-for-" + f.Subject), nil
		},
		ProviderAnswer: signin.OAuthAnswer,
	})
	mux.Handle("/connect", pages.Connect)
	mux.Handle("/callback", pages.Callback)
	return s
}

// billingServerUnquote is the user a session cookie names.
func billingServerUnquote(c *http.Cookie, err error) (string, bool) {
	if err != nil {
		return "", false
	}
	user, err := url.QueryUnescape(c.Value)
	return user, err == nil && user != ""
}

// billingServerProvider is the stand-in provider: GET /authorize shows
// its consent page, whose POST (decision=deny for Deny) sends the browser
// to callback (303) with state and the code, or access_denied; any other
// redirect_uri, or no state, is 400.
func billingServerProvider(callback string, hits *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/authorize" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		state := r.FormValue("state")
		if r.FormValue("redirect_uri") != callback || state == "" {
			http.Error(w, "redirect_uri is not registered", http.StatusBadRequest)
			return
		}
		if r.Method == http.MethodGet {
			_, _ = io.WriteString(w, "<h1>Allow access?</h1>")
			return
		}
		back := url.Values{"state": {state}, "code": {billingServerCode}}
		if r.PostFormValue("decision") == "deny" {
			back = url.Values{"state": {state}, "error": {"access_denied"}}
		}
		http.Redirect(w, r, callback+"?"+back.Encode(), http.StatusSeeOther)
	})
}

// tool is list_invoices for user, as generated code registers it.
func (s *billingServerSite) tool(user string) func() *mcp.Server {
	return func() *mcp.Server {
		opts := &elicitrt.ToolOptions{Keys: s.keys, Grants: s.grants, LegacyURLWait: s.legacyWait, Logger: billingServerQuiet, Hooks: s.hooks,
			Principal: func(*mcp.CallToolRequest) string { return user }}
		granted := func(ctx context.Context) (bool, error) {
			g, ok, err := s.grants.Grant(ctx, elicitrt.PrincipalFrom(ctx), "billing")
			return ok && len(g) > 0, err
		}
		m := elicitimpl.NewMachine("list_invoices", []elicitimpl.Step{{
			Key: "billing", Mode: elicitimpl.ModeURL, Message: billingServerMessage, Fallback: elicitimpl.FallbackLink,
		}}, elicitimpl.Flow{
			Ask: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a elicitimpl.Answers) bool {
				ok, err := granted(ctx)
				return err != nil || !ok
			},
			Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
				if ok, err := granted(ctx); err != nil || !ok {
					return elicitrt.Text(billingServerNone), err
				}
				return elicitrt.Text(billingServerDone), nil
			},
			Ended: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
				return elicitrt.Text(billingServerNone), nil
			},
			Link: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a elicitimpl.Answers, token string) string {
				return s.url + "/connect?flow=" + url.QueryEscape(token)
			},
		}, opts)
		server := mcp.NewServer(&mcp.Implementation{Name: "billing", Version: "v0"}, nil)
		elicitimpl.AddTool[noArgs](server, &mcp.Tool{Name: "list_invoices", InputSchema: json.RawMessage(`{"type":"object"}`)}, m)
		return server
	}
}

// billingServerBoth declares form and URL mode.
var billingServerBoth = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
	Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}

// client connects user's client to list_invoices over transport on era.
func (s *billingServerSite) client(t *testing.T, transport, era, user string, o hosttest.Options) *mcp.ClientSession {
	t.Helper()
	return hosttest.Connect(t, s.tool(user), transport, era, o)
}

// manual is user's 2026-07-28 client over HTTP that sees each round.
func (s *billingServerSite) manual(t *testing.T, user string) *mcp.ClientSession {
	t.Helper()
	return s.client(t, "http", "modern", user, hosttest.Options{User: &hosttest.User{}, Capabilities: billingServerBoth, Manual: true})
}

// billingServerList calls list_invoices, with the state and answers of a
// retry when set.
func billingServerList(cs *mcp.ClientSession, state string, responses mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_invoices", Arguments: map[string]any{},
		RequestState: state, InputResponses: responses})
}

// billingServerAccept is the answer that accepts the round's one URL step.
func billingServerAccept(t *testing.T, res *mcp.CallToolResult) mcp.InputResponseMap {
	t.Helper()
	return mcp.InputResponseMap{hosttest.OnlyKey(t, res): &mcp.ElicitResult{Action: "accept"}}
}

// billingServerURLStep is the link of the one URL step res asks for,
// failing unless it is a URL-mode question without elicitationId.
func billingServerURLStep(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	p, ok := res.InputRequests[hosttest.OnlyKey(t, res)].(*mcp.ElicitParams)
	if !ok || p.Mode != "url" || p.RequestedSchema != nil || p.ElicitationID != "" {
		t.Fatalf("want a URL-mode elicitation without elicitationId, got %+v", res.InputRequests)
	}
	return p.URL
}

// browser is a browser signed in to the site as user ("" for nobody).
func (s *billingServerSite) browser(t *testing.T, user string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	if user != "" {
		u, _ := url.Parse(s.url)
		jar.SetCookies(u, []*http.Cookie{{Name: billingServerCookie, Value: url.QueryEscape(user), Path: "/"}})
	}
	return &http.Client{Jar: jar, Timeout: 10 * time.Second}
}

// billingServerPage is what a request of b ends on: status, final URL,
// Location and body.
type billingServerPage struct {
	code int
	at   *url.URL
	// location is a redirect's target, when the client did not follow it.
	location string
	body     string
}

func billingServerDo(b *http.Client, req func() (*http.Response, error)) (billingServerPage, error) {
	resp, err := req()
	if err != nil {
		return billingServerPage{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return billingServerPage{resp.StatusCode, resp.Request.URL, resp.Header.Get("Location"), string(body)}, err
}

// open is b opening link, following redirects.
func billingServerOpen(t *testing.T, b *http.Client, link string) billingServerPage {
	t.Helper()
	p, err := billingServerDo(b, func() (*http.Response, error) { return b.Get(link) })
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// billingServerConsent is b's person opening link, on to the provider's
// consent page: the page it ends on (the consent page, or a refusal
// before the provider).
func billingServerConsent(b *http.Client, link string) (billingServerPage, error) {
	return billingServerDo(b, func() (*http.Response, error) { return b.Get(link) })
}

// billingServerAnswer is b's person clicking decision ("allow" or "deny")
// on the consent page.
func billingServerAnswer(b *http.Client, consent billingServerPage, decision string) (billingServerPage, error) {
	form := consent.at.Query()
	form.Set("decision", decision)
	post := *consent.at
	post.RawQuery = ""
	return billingServerDo(b, func() (*http.Response, error) { return b.PostForm(post.String(), form) })
}

// billingServerDecide is the consent page of link answered with decision:
// the page it ends on (the callback's, or a refusal before the provider).
func billingServerDecide(b *http.Client, link, decision string) (billingServerPage, error) {
	consent, err := billingServerConsent(b, link)
	if err != nil || consent.code != http.StatusOK || consent.at.Path != "/authorize" {
		return consent, err
	}
	return billingServerAnswer(b, consent, decision)
}

// first is user's first call on cs: its result and the link of its URL
// step.
func (s *billingServerSite) first(t *testing.T, cs *mcp.ClientSession) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := billingServerList(cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, billingServerURLStep(t, res)
}

// grant is the grant stored for user, if any.
func (s *billingServerSite) grant(user string) (string, bool) {
	g, ok, _ := s.grants.Grant(context.Background(), user, "billing")
	return string(g), ok
}
