package signin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/internal/seal"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/templates"
)

// Helpers in this file are prefixed connT so they cannot clash with other
// test files of the package.

// connTSessionCookie is the stand-in site session of these tests: its
// value is the user.
const connTSessionCookie = "connt_session"

// connTSite is the two sign-in pages on 127.0.0.1, over real HTTP, with a
// stand-in provider on another listener that approves at once with a
// fresh code, and an Exchange that counts its calls.
type connTSite struct {
	url      string // the pages' server
	keys     *seal.Keyring
	audience string
	grants   *backend.MemoryGrants
	// exchanges counts Exchange calls; failExchange makes the next ones
	// fail.
	exchanges    atomic.Int64
	failExchange atomic.Bool
	// providerError, when set, is the OAuth error the provider answers
	// with instead of a code (access_denied, server_error...).
	providerError atomic.Pointer[string]
	srv           *httptest.Server
}

// connTStart serves the pages for audience, over TLS when tls is set; edit
// changes the options before the handlers are made.
func connTStart(t *testing.T, keys *seal.Keyring, grants *backend.MemoryGrants, audience string, tls bool, edit ...func(*ConnectOptions)) *connTSite {
	t.Helper()
	s := &connTSite{keys: keys, audience: audience, grants: grants}
	var codes atomic.Int64
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := url.Values{"state": {r.URL.Query().Get("state")}, "code": {"code-" + string(rune('a'+codes.Add(1)%26))}}
		if e := s.providerError.Load(); e != nil {
			q = url.Values{"state": {r.URL.Query().Get("state")}, "error": {*e}}
		}
		http.Redirect(w, r, r.URL.Query().Get("redirect_uri")+"?"+q.Encode(), http.StatusFound)
	}))
	t.Cleanup(provider.Close)
	opts := ConnectOptions{
		Keys: (*elicitrt.Keyring)(keys), Audience: audience, Grants: grants,
		Authenticate: func(r *http.Request) (string, bool) {
			c, err := r.Cookie(connTSessionCookie)
			if err != nil {
				return "", false
			}
			return c.Value, c.Value != ""
		},
		AuthorizeURL: func(r *http.Request, f ConnectFlow, state string) (string, error) {
			return provider.URL + "/authorize?" + url.Values{"state": {state}, "redirect_uri": {s.url + "/callback"}}.Encode(), nil
		},
		Exchange: func(r *http.Request, f ConnectFlow) ([]byte, error) {
			s.exchanges.Add(1)
			if s.failExchange.Load() {
				return nil, errors.New("provider refused")
			}
			return []byte("grant:" + f.Subject + ":" + r.URL.Query().Get("code")), nil
		},
	}
	for _, e := range edit {
		e(&opts)
	}
	pages := NewConnectHandlers(opts)
	mux := http.NewServeMux()
	mux.Handle("/connect", pages.Connect)
	mux.Handle("/callback", pages.Callback)
	if tls {
		s.srv = httptest.NewTLSServer(mux)
	} else {
		s.srv = httptest.NewServer(mux)
	}
	t.Cleanup(s.srv.Close)
	s.url = s.srv.URL
	return s
}

// token seals a new flow of user for this site's audience.
func (s *connTSite) token(t *testing.T, user string) (seal.ConnectFlow, string) {
	t.Helper()
	f := seal.ConnectFlow{ID: seal.NewFlowID(), Subject: user, Tool: "list_invoices", Step: "billing"}
	tok, err := (*seal.Keyring)(s.keys).SealFlow(f, s.audience, time.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return f, tok
}

// browser is a browser signed in to the site as user ("" for nobody). It
// follows redirects, except the provider's to the callback: connect
// returns the callback URL the provider sent the browser to, for the test
// to open. The callback's own redirect to its result page is followed.
func (s *connTSite) browser(t *testing.T, user string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Path == "/callback" && req.URL.Query().Has("state") {
				return http.ErrUseLastResponse
			}
			return nil
		}}
	if s.srv.TLS != nil {
		b.Transport = s.srv.Client().Transport
	}
	if user != "" {
		u, _ := url.Parse(s.url)
		jar.SetCookies(u, []*http.Cookie{{Name: connTSessionCookie, Value: user, Path: "/"}})
	}
	return b
}

// connTGet fetches link with b, without following redirects to the
// callback.
func connTGet(t *testing.T, b *http.Client, link string) *http.Response {
	t.Helper()
	resp, err := b.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// connTNoFollow is b, following no redirect at all.
func connTNoFollow(b *http.Client) *http.Client {
	c := *b
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// connect opens the connect link in b and returns the callback URL the
// provider redirected to.
func (s *connTSite) connect(t *testing.T, b *http.Client, token string) string {
	t.Helper()
	resp := connTGet(t, b, s.url+"/connect?flow="+url.QueryEscape(token))
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, s.url+"/callback?") {
		t.Fatalf("connect: status %d, Location %q", resp.StatusCode, loc)
	}
	return loc
}

// status opens link in b and returns the status.
func (s *connTSite) status(t *testing.T, b *http.Client, link string) int {
	t.Helper()
	return connTGet(t, b, link).StatusCode
}

// assertNotCompleted fails if f has a grant or a completion.
func (s *connTSite) assertNotCompleted(t *testing.T, f seal.ConnectFlow) {
	t.Helper()
	ctx := context.Background()
	if g, ok, _ := s.grants.Grant(ctx, f.Subject, f.Step); ok {
		t.Fatalf("a grant was stored: %q", g)
	}
	if _, done, _ := s.grants.FlowSubject(ctx, f.ID); done {
		t.Fatal("the flow was completed")
	}
}

// TestConnectSignIn: the whole sign-in in one browser stores the grant,
// completes the flow for its subject, exchanges once and clears the nonce
// cookie.
func TestConnectSignIn(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false)
	f, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	callback := s.connect(t, b, tok)
	if strings.Contains(callback, tok) || strings.Contains(callback, f.ID) {
		t.Fatal("the state passed to the provider is the flow token, or shows the flow id")
	}
	u, _ := url.Parse(s.url)
	if len(b.Jar.Cookies(u)) != 2 {
		t.Fatalf("cookies after connect: %v", b.Jar.Cookies(u))
	}
	if code := s.status(t, b, callback); code != http.StatusOK {
		t.Fatalf("callback: %d", code)
	}
	ctx := context.Background()
	if g, ok, _ := s.grants.Grant(ctx, "alice", "billing"); !ok || !strings.HasPrefix(string(g), "grant:alice:code-") {
		t.Fatalf("grant %q %v", g, ok)
	}
	if subject, done, _ := s.grants.FlowSubject(ctx, f.ID); !done || subject != "alice" {
		t.Fatalf("flow: %q %v", subject, done)
	}
	if n := s.exchanges.Load(); n != 1 {
		t.Fatalf("%d exchanges", n)
	}
	for _, c := range b.Jar.Cookies(u) {
		if c.Name == NonceCookie {
			t.Fatal("the nonce cookie was not cleared")
		}
	}
}

// TestConnectCallbackWithoutConnect: a signed-in browser that never
// visited the connect page cannot complete the flow, neither with the flow
// token as state nor with the state another browser of the same user got:
// refused (the flow token is no state: 400; no nonce cookie: 403), no
// exchange, no grant, no completion.
func TestConnectCallbackWithoutConnect(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false)
	f, tok := s.token(t, "alice")
	fresh := s.browser(t, "alice")
	if code := s.status(t, fresh, s.url+"/callback?code=code-x&state="+url.QueryEscape(tok)); code != http.StatusBadRequest {
		t.Errorf("flow token as state: status %d", code)
	}
	callback := s.connect(t, s.browser(t, "alice"), tok)
	if code := s.status(t, fresh, callback); code != http.StatusForbidden {
		t.Errorf("callback of another browser: status %d", code)
	}
	if code := s.status(t, s.browser(t, "mallory"), callback); code != http.StatusForbidden {
		t.Errorf("callback opened by another user: status %d", code)
	}
	s.assertNotCompleted(t, f)
	if n := s.exchanges.Load(); n != 0 {
		t.Fatalf("%d exchanges", n)
	}
}

// TestConnectCallbackReplay: once a flow completed, neither a reload of the
// callback (the cookie is gone), nor a replay carrying the nonce cookie, nor
// a new visit of the connect link completes it again or exchanges again;
// of concurrent callbacks of one sign-in exactly one completes.
func TestConnectCallbackReplay(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false)
	_, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	callback := s.connect(t, b, tok)
	u, _ := url.Parse(s.url)
	kept := b.Jar.Cookies(u)
	if code := s.status(t, b, callback); code != http.StatusOK {
		t.Fatalf("first callback: %d", code)
	}
	grant, _, _ := s.grants.Grant(context.Background(), "alice", "billing")
	if code := s.status(t, b, callback); code != http.StatusConflict {
		t.Errorf("reload: status %d", code)
	}
	b.Jar.SetCookies(u, kept) // the nonce cookie as it was before completion
	if code := s.status(t, b, callback); code != http.StatusConflict {
		t.Errorf("replay with the nonce cookie: status %d", code)
	}
	if code := s.status(t, b, s.url+"/connect?flow="+url.QueryEscape(tok)); code != http.StatusConflict {
		t.Errorf("connect link after completion: status %d", code)
	}
	if n := s.exchanges.Load(); n != 1 {
		t.Errorf("%d exchanges", n)
	}
	if g, _, _ := s.grants.Grant(context.Background(), "alice", "billing"); string(g) != string(grant) {
		t.Errorf("grant changed from %q to %q", grant, g)
	}

	// Concurrent callbacks of one sign-in: one completes, one exchange.
	s = connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false)
	_, tok = s.token(t, "alice")
	b = s.browser(t, "alice")
	callback = s.connect(t, b, tok)
	var wg sync.WaitGroup
	var ok, conflict atomic.Int64
	for range 16 {
		wg.Go(func() {
			resp, err := b.Get(callback)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusOK:
				ok.Add(1)
			case http.StatusConflict:
				conflict.Add(1)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || conflict.Load() != 15 || s.exchanges.Load() != 1 {
		t.Errorf("16 concurrent callbacks: %d completed, %d refused, %d exchanges", ok.Load(), conflict.Load(), s.exchanges.Load())
	}
}

// TestConnectFailedExchangeCanRetry: a failed exchange gives the claim
// back: nothing is stored, and the user can go through the link again.
func TestConnectFailedExchangeCanRetry(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false)
	f, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	s.failExchange.Store(true)
	if code := s.status(t, b, s.connect(t, b, tok)); code != http.StatusBadGateway {
		t.Fatalf("failed exchange: %d", code)
	}
	s.assertNotCompleted(t, f)
	s.failExchange.Store(false)
	if code := s.status(t, b, s.connect(t, b, tok)); code != http.StatusOK {
		t.Fatalf("retry: %d", code)
	}
	if n := s.exchanges.Load(); n != 2 {
		t.Fatalf("%d exchanges", n)
	}
}

// TestConnectCookieOfAnotherFlow: the nonce cookie of one sign-in does not
// complete another: not a cookie of flow A on the callback of flow B, nor
// the cookie of an earlier visit of the same flow's link on the callback
// of a later one.
func TestConnectCookieOfAnotherFlow(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false)
	_, tokA := s.token(t, "alice")
	fB, tokB := s.token(t, "alice")
	withA := s.browser(t, "alice")
	s.connect(t, withA, tokA)
	callbackB := s.connect(t, s.browser(t, "alice"), tokB)
	if code := s.status(t, withA, callbackB); code != http.StatusForbidden {
		t.Errorf("cookie of flow A on the callback of flow B: status %d", code)
	}
	s.assertNotCompleted(t, fB)

	// Same flow, two visits: each state goes with its own nonce only.
	first := s.browser(t, "alice")
	s.connect(t, first, tokB)
	second := s.browser(t, "alice")
	callbackSecond := s.connect(t, second, tokB)
	if code := s.status(t, first, callbackSecond); code != http.StatusForbidden {
		t.Errorf("nonce of another visit: status %d", code)
	}
	s.assertNotCompleted(t, fB)
	if n := s.exchanges.Load(); n != 0 {
		t.Fatalf("%d exchanges", n)
	}
	if code := s.status(t, second, callbackSecond); code != http.StatusOK {
		t.Fatalf("the right browser: status %d", code)
	}
}

// TestConnectOtherAudience: pages of one audience refuse the flow tokens
// and the sign-in states of another audience that shares the keys and the
// store.
func TestConnectOtherAudience(t *testing.T) {
	keys, grants := seal.RandomKeyring(), &backend.MemoryGrants{}
	eu := connTStart(t, keys, grants, "billing-eu", false)
	us := connTStart(t, keys, grants, "billing-us", false)
	none := connTStart(t, keys, grants, "", false)
	for _, other := range []*connTSite{us, none} {
		f, tok := other.token(t, "alice")
		if code := eu.status(t, eu.browser(t, "alice"), eu.url+"/connect?flow="+url.QueryEscape(tok)); code != http.StatusBadRequest {
			t.Errorf("token of audience %q at the connect page of billing-eu: status %d", other.audience, code)
		}
		// A state the other audience's connect page made, brought to this
		// audience's callback with its nonce cookie.
		b := other.browser(t, "alice")
		callback := other.connect(t, b, tok)
		moved := strings.Replace(callback, other.url, eu.url, 1)
		// (The jar sends the nonce cookie to every port of 127.0.0.1.)
		if code := eu.status(t, b, moved); code != http.StatusBadRequest {
			t.Errorf("state of audience %q at the callback of billing-eu: status %d", other.audience, code)
		}
		other.assertNotCompleted(t, f)
	}
	if n := eu.exchanges.Load() + us.exchanges.Load() + none.exchanges.Load(); n != 0 {
		t.Fatalf("%d exchanges", n)
	}
	// Its own audience works.
	_, tok := eu.token(t, "alice")
	b := eu.browser(t, "alice")
	if code := eu.status(t, b, eu.connect(t, b, tok)); code != http.StatusOK {
		t.Fatalf("own audience: %d", code)
	}
}

// TestConnectHeadersAndCookie: every response of the pages, errors
// included, is no-store and not frameable; the nonce cookie is HttpOnly,
// SameSite=Lax, Path=/, short-lived, named elicitgen_flow over HTTP and
// __Host-elicitgen_flow (Secure) over HTTPS or behind a proxy that says
// so; the sign-in completes over HTTPS too.
func TestConnectHeadersAndCookie(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false)
	_, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	check := func(what string, resp *http.Response, status int) {
		t.Helper()
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		if resp.StatusCode != status || h.Get("Cache-Control") != "no-store" || h.Get("X-Frame-Options") != "DENY" ||
			!strings.HasPrefix(csp, "default-src 'none'; ") || !strings.HasSuffix(csp, "; frame-ancestors 'none'") ||
			strings.Contains(csp, "script") || h.Get("Referrer-Policy") != "no-referrer" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: status %d, headers %v", what, resp.StatusCode, h)
		}
	}
	check("connect", connTGet(t, connTNoFollow(b), s.url+"/connect?flow="+url.QueryEscape(tok)), http.StatusFound)
	check("bad token", connTGet(t, b, s.url+"/connect?flow=x"), http.StatusBadRequest)
	check("other user", connTGet(t, s.browser(t, "mallory"), s.url+"/connect?flow="+url.QueryEscape(tok)), http.StatusForbidden)
	post, err := b.Post(s.url+"/connect?flow="+url.QueryEscape(tok), "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	post.Body.Close()
	check("POST", post, http.StatusMethodNotAllowed)
	check("bad state", connTGet(t, b, s.url+"/callback?state=x"), http.StatusBadRequest)
	callback := s.connect(t, b, tok)
	check("no cookie", connTGet(t, s.browser(t, "alice"), callback), http.StatusForbidden)
	check("callback", connTGet(t, connTNoFollow(b), callback), http.StatusSeeOther)
	check("replay", connTGet(t, b, callback), http.StatusConflict)

	cookieOf := func(resp *http.Response) *http.Cookie {
		t.Helper()
		cs := resp.Cookies()
		if len(cs) != 1 {
			t.Fatalf("Set-Cookie: %v", resp.Header.Values("Set-Cookie"))
		}
		return cs[0]
	}
	_, tok = s.token(t, "alice")
	c := cookieOf(connTGet(t, connTNoFollow(s.browser(t, "alice")), s.url+"/connect?flow="+url.QueryEscape(tok)))
	if c.Name != NonceCookie || c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" ||
		c.MaxAge <= 0 || c.MaxAge > int(seal.DefaultStateTTL/time.Second) {
		t.Errorf("nonce cookie over HTTP: %+v", c)
	}
	req, _ := http.NewRequest("GET", s.url+"/connect?flow="+url.QueryEscape(tok), nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	req.AddCookie(&http.Cookie{Name: connTSessionCookie, Value: "alice"})
	resp, err := connTNoFollow(s.browser(t, "")).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if c := cookieOf(resp); c.Name != NonceCookieSecure || !c.Secure {
		t.Errorf("nonce cookie behind an HTTPS proxy: %+v", c)
	}

	// Over TLS: the __Host- cookie, and the whole sign-in.
	tls := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", true)
	_, tok = tls.token(t, "alice")
	b = tls.browser(t, "alice")
	resp = connTGet(t, connTNoFollow(b), tls.url+"/connect?flow="+url.QueryEscape(tok))
	if c := cookieOf(resp); c.Name != NonceCookieSecure || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" {
		t.Errorf("nonce cookie over HTTPS: %+v", c)
	}
	callback = connTGet(t, b, resp.Header.Get("Location")).Header.Get("Location") // the provider's redirect
	if code := tls.status(t, b, callback); code != http.StatusOK {
		t.Fatalf("callback over HTTPS: %d", code)
	}
}

// FuzzCallback: whatever state and nonce cookie reach the callback of
// alice's signed-in browser, the flow completes (303 to its result page, one Exchange, a
// grant) only with the state and the cookie that the connect page gave
// that browser for it, and then once; any other input is refused with
// nothing exchanged or stored. Each run makes a fresh flow and visits the
// connect page; useState and useCookie put its state and cookie in place
// of the fuzzed ones (the fuzzer never sees them, so it cannot carry a
// valid pair from one run to the next).
func FuzzCallback(f *testing.F) {
	keys, _ := seal.NewKeyring([]byte("fuzz-callback-key-0123456789abc!"))
	now := time.Unix(1_800_000_000, 0)
	alice := &http.Cookie{Name: connTSessionCookie, Value: "alice"}
	f.Add("", "", true, true)
	f.Add("s1.AAAA", "", true, false)
	f.Add("", "s1.AAAA", false, true)
	f.Add("x", "y", false, false)
	f.Fuzz(func(t *testing.T, state, cookie string, useState, useCookie bool) {
		grants := &backend.MemoryGrants{}
		exchanges := 0
		pages := NewConnectHandlers(ConnectOptions{Keys: (*elicitrt.Keyring)(keys), Grants: grants, Now: func() time.Time { return now },
			Logger: slog.New(slog.DiscardHandler),
			Authenticate: func(r *http.Request) (string, bool) {
				c, err := r.Cookie(connTSessionCookie)
				if err != nil {
					return "", false
				}
				return c.Value, c.Value != ""
			},
			AuthorizeURL: func(r *http.Request, f ConnectFlow, state string) (string, error) {
				return "https://provider.example/authorize?state=" + url.QueryEscape(state), nil
			},
			Exchange: func(r *http.Request, f ConnectFlow) ([]byte, error) {
				exchanges++
				return []byte("grant"), nil
			},
		})

		// The connect page gives alice's browser its state and cookie.
		token, err := (*seal.Keyring)(keys).SealFlow(seal.ConnectFlow{ID: seal.NewFlowID(), Subject: "alice", Tool: "t", Step: "billing"}, "", now, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/connect?flow="+url.QueryEscape(token), nil)
		req.AddCookie(alice)
		pages.Connect.ServeHTTP(rec, req)
		loc, _ := url.Parse(rec.Header().Get("Location"))
		cookies := rec.Result().Cookies()
		if rec.Code != http.StatusFound || len(cookies) != 1 || loc.Query().Get("state") == "" {
			t.Fatalf("connect: %d %v", rec.Code, rec.Header())
		}
		if useState {
			state = loc.Query().Get("state")
		}
		if useCookie {
			cookie = cookies[0].Value
		}

		serve := func() int {
			req := httptest.NewRequest("GET", "/callback?"+url.Values{"state": {state}, "code": {"c"}}.Encode(), nil)
			req.AddCookie(alice)
			req.AddCookie(&http.Cookie{Name: NonceCookie, Value: cookie})
			rec := httptest.NewRecorder()
			pages.Callback.ServeHTTP(rec, req)
			return rec.Code
		}
		valid := useState && useCookie
		first := serve()
		_, stored, _ := grants.Grant(context.Background(), "alice", "billing")
		if valid != (first == http.StatusSeeOther) || valid != (exchanges == 1) || valid != stored || exchanges > 1 {
			t.Fatalf("valid %v: status %d, %d exchanges, grant stored %v", valid, first, exchanges, stored)
		}
		if second := serve(); second == http.StatusSeeOther || second == http.StatusOK || exchanges > 1 {
			t.Fatalf("second callback: status %d, %d exchanges", second, exchanges)
		}
	})
}

// connTBody fetches link with b and returns the status, the final URL and
// the body.
func connTBody(t *testing.T, b *http.Client, link string) (int, string, string) {
	t.Helper()
	resp, err := b.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Request.URL.String(), string(body)
}

// connTBrand names the service and the provider, and shows accounts as
// e-mail addresses.
func connTBrand(o *ConnectOptions) {
	o.ServiceName, o.ProviderName = "Ledger Assistant", "Acme Billing"
	o.AccountName = func(r *http.Request, subject string) string { return subject + "@example.com" }
}

// TestConnectResultPage: after the callback, the browser is sent (303) to
// a clean result page, without the provider's code, that says it is
// connected, to whom and where; reloading it shows the page again and
// exchanges nothing; another user, a tampered result or one of another
// audience gets no result.
func TestConnectResultPage(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand)
	_, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	callback := s.connect(t, b, tok)
	resp := connTGet(t, connTNoFollow(b), callback)
	result := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(result, "/callback?done=") || strings.Contains(result, "code") {
		t.Fatalf("callback: %d to %q", resp.StatusCode, result)
	}
	for range 2 { // the page, then a reload
		code, _, body := connTBody(t, b, s.url+result)
		if code != http.StatusOK || !strings.Contains(body, "<h1>You're connected</h1>") ||
			!strings.Contains(body, "alice@example.com") || !strings.Contains(body, "Acme Billing") ||
			!strings.Contains(body, "<title>Connected to Acme Billing · Ledger Assistant</title>") {
			t.Fatalf("result page: %d %s", code, body)
		}
	}
	if n := s.exchanges.Load(); n != 1 {
		t.Fatalf("%d exchanges after reloads", n)
	}
	if code, _, body := connTBody(t, s.browser(t, "mallory"), s.url+result); code != http.StatusForbidden || strings.Contains(body, "You're connected") {
		t.Errorf("mallory opens alice's result page: %d %s", code, body)
	}
	if code := s.status(t, b, s.url+result+"x"); code != http.StatusBadRequest {
		t.Errorf("tampered result: %d", code)
	}
	other := connTStart(t, s.keys, s.grants, "other", false)
	if code := other.status(t, other.browser(t, "alice"), other.url+result); code != http.StatusBadRequest {
		t.Errorf("result of another audience: %d", code)
	}
}

// TestConnectProviderDenied: error=access_denied at the callback, in the
// browser that started the sign-in, records the flow as denied (done, with
// no subject), stores no grant and exchanges nothing; the person sees the
// denied page, 403, again on reload; the callback again and the connect
// link again get the done page that says the Deny ended it (409). The same
// answer without the nonce cookie records nothing.
func TestConnectProviderDenied(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand)
	denied := "access_denied"
	s.providerError.Store(&denied)
	f, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	callback := s.connect(t, b, tok)
	if code := s.status(t, s.browser(t, "alice"), callback); code != http.StatusForbidden {
		t.Fatalf("the denial from another browser: %d", code)
	}
	s.assertNotCompleted(t, f)
	code, result, body := connTBody(t, b, callback)
	if !strings.HasPrefix(result, s.url+"/callback?done=") {
		t.Fatalf("the denial was not redirected to its result page: %d at %s", code, result)
	}
	for i, link := range []string{"", result, callback, s.url + "/connect?flow=" + url.QueryEscape(tok)} {
		if i > 0 {
			code, _, body = connTBody(t, b, link)
		}
		want, h1 := http.StatusForbidden, "<h1>You didn't allow access</h1>"
		if i > 1 {
			want, h1 = http.StatusConflict, "<h1>You already chose not to connect</h1>"
		}
		if code != want || !strings.Contains(body, h1) {
			t.Fatalf("%d: %s: %d: %s", i, link, code, body)
		}
	}
	ctx := context.Background()
	if subject, done, _ := s.grants.FlowSubject(ctx, f.ID); !done || subject != "" {
		t.Fatalf("flow after the denial: %q %v", subject, done)
	}
	if _, ok, _ := s.grants.Grant(ctx, "alice", "billing"); ok {
		t.Fatal("a grant was stored")
	}
	if n := s.exchanges.Load(); n != 0 {
		t.Fatalf("%d exchanges", n)
	}
}

// TestConnectProviderError: any other provider error is not the person's
// choice: 502, a page that says so with a link to start again (the same
// connect link), nothing recorded, and starting again works.
func TestConnectProviderError(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand)
	failure := "temporarily_unavailable"
	s.providerError.Store(&failure)
	f, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	code, _, body := connTBody(t, b, s.connect(t, b, tok))
	link := "/connect?flow=" + url.QueryEscape(tok)
	if code != http.StatusBadGateway || !strings.Contains(body, "<h1>The sign-in at Acme Billing didn't finish</h1>") ||
		!strings.Contains(body, `href="`+strings.ReplaceAll(link, "&", "&amp;")+`"`) {
		t.Fatalf("provider error: %d %s", code, body)
	}
	s.assertNotCompleted(t, f)
	s.providerError.Store(nil)
	if code, _, body := connTBody(t, b, s.connect(t, b, tok)); code != http.StatusOK || !strings.Contains(body, "You're connected") {
		t.Fatalf("starting again: %d %s", code, body)
	}
}

// TestConnectNotSignedIn: a browser where nobody is signed in is sent to
// LoginURL (303) with a return address that is this very link, on this
// site; without LoginURL it gets the signed-out page (401). A browser
// signed in as another account gets 403 with a sign-out link.
func TestConnectNotSignedIn(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand, func(o *ConnectOptions) {
		o.LoginURL, o.LoginReturnParam, o.SignOutURL = "/account/login?lang=en", "next", "/account/logout"
	})
	f, tok := s.token(t, "alice")
	link := "/connect?flow=" + url.QueryEscape(tok)
	resp := connTGet(t, connTNoFollow(s.browser(t, "")), s.url+link)
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || loc.Path != "/account/login" || loc.Query().Get("lang") != "en" ||
		loc.Query().Get("next") != link || !SameOriginPath(loc.Query().Get("next")) {
		t.Fatalf("signed out: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	code, _, body := connTBody(t, s.browser(t, "mallory"), s.url+link)
	if code != http.StatusForbidden || !strings.Contains(body, "<h1>This link is for another account</h1>") ||
		!strings.Contains(body, "mallory@example.com") || strings.Contains(body, "alice") || !strings.Contains(body, `href="/account/logout?next=`) {
		t.Fatalf("another user: %d %s", code, body)
	}
	s.assertNotCompleted(t, f)

	bare := connTStart(t, s.keys, &backend.MemoryGrants{}, "", false)
	code, _, body = connTBody(t, bare.browser(t, ""), bare.url+link)
	if code != http.StatusUnauthorized || !strings.Contains(body, "<h1>Sign in to continue</h1>") || strings.Contains(body, "<a ") {
		t.Fatalf("signed out, no LoginURL: %d %s", code, body)
	}
}

// TestConnectConfirm: with Confirm, the connect link first shows who is
// about to continue to which provider, sets no cookie and reaches no
// provider; its Continue link starts the sign-in.
func TestConnectConfirm(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand, func(o *ConnectOptions) { o.Confirm = true })
	_, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	resp, err := b.Get(s.url + "/connect?flow=" + url.QueryEscape(tok))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	next := "/connect?flow=" + url.QueryEscape(tok) + "&continue=1"
	if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 0 || !strings.Contains(string(body), "<h1>Connect your account at Acme Billing</h1>") ||
		!strings.Contains(string(body), "alice@example.com") || !strings.Contains(string(body), `href="`+strings.ReplaceAll(next, "&", "&amp;")+`"`) {
		t.Fatalf("confirm page: %d %v %s", resp.StatusCode, resp.Cookies(), body)
	}
	resp = connTGet(t, b, s.url+next)
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(resp.Header.Get("Location"), s.url+"/callback?") {
		t.Fatalf("continue: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if code, _, body := connTBody(t, b, resp.Header.Get("Location")); code != http.StatusOK || !strings.Contains(body, "You're connected") {
		t.Fatalf("continue: %d %s", code, body)
	}
}

// TestConnectPages: every page of the default set renders with the names
// escaped, a viewport, a language, one h1 and no script; a set that lacks
// a page is refused when the handlers are made; templates.SignIn() with a
// part redefined is used.
func TestConnectPages(t *testing.T) {
	c := &connect{opts: ConnectOptions{Pages: templates.SignIn(), Lang: "en", ServiceName: `<Ledger & "Co">`, ProviderName: "Acme",
		SignOutURL: "javascript:alert(1)", Logger: slog.New(slog.DiscardHandler)}}
	for _, name := range templates.SignInPages {
		rec := httptest.NewRecorder()
		c.render(rec, httptest.NewRequest("GET", "/connect", nil), page{name: name, status: 299, account: "<alice>",
			retry: "/connect?flow=a&b", continueTo: "/connect?continue=1"})
		body := rec.Body.String()
		nonce := strings.TrimSuffix(strings.TrimPrefix(rec.Header().Get("Content-Security-Policy"), "default-src 'none'; style-src 'nonce-"), "'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		if rec.Code != 299 || strings.Contains(body, "<Ledger") || strings.Contains(body, "<alice>") || !strings.Contains(body, "&lt;Ledger &amp; &#34;Co&#34;&gt;") ||
			strings.Count(body, "<h1>") != 1 || !strings.Contains(body, `<html lang="en">`) || !strings.Contains(body, `name="viewport"`) ||
			strings.Contains(body, "<script") || strings.Contains(body, "javascript:") || strings.Contains(body, "http") ||
			len(nonce) < 20 || !strings.Contains(body, `<style nonce="`+nonce+`">`) {
			t.Errorf("page %s: %d %v\n%s", name, rec.Code, rec.Header(), body)
		}
	}

	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `"denied"`) {
				t.Errorf("a set without the denied page: %v", r)
			}
		}()
		partial := template.Must(template.New("x").Parse(`{{define "connected"}}ok{{end}}`))
		for _, name := range templates.SignInPages {
			if name != templates.PageDenied && name != templates.PageConnected {
				template.Must(partial.New(name).Parse("x"))
			}
		}
		NewConnectHandlers(ConnectOptions{Pages: partial})
	}()

	custom := template.Must(templates.SignIn().Parse(`{{define "signin-brand"}}<p class="service">Acme Ledger™</p>{{end}}`))
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, func(o *ConnectOptions) { o.Pages = custom })
	if code, _, body := connTBody(t, s.browser(t, "alice"), s.url+"/connect?flow=bad"); code != http.StatusBadRequest || !strings.Contains(body, "Acme Ledger™") {
		t.Fatalf("custom brand: %d %s", code, body)
	}
}

// TestSameOriginPath: a login page's return address is followed only to a
// path of the same site.
func TestSameOriginPath(t *testing.T) {
	for target, want := range map[string]bool{
		"/connect?flow=abc":             true,
		"/":                             true,
		"/a/b?c=d&e=%2F%2Fx#frag":       true,
		"":                              false,
		"connect":                       false,
		"//evil.example/":               false,
		"///evil.example/":              false,
		"/\\evil.example":               false,
		"\\/evil.example":               false,
		"/\t/evil.example":              false,
		"/\n/evil.example":              false,
		" /connect":                     false,
		"https://evil.example/":         false,
		"javascript:alert(1)":           false,
		"/%2F%2Fevil.example":           false,
		"http:/evil.example":            false,
		"/connect\x00":                  false,
		"/connect\u2028":                false,
		"/" + strings.Repeat("a", 5000): false,
	} {
		if got := SameOriginPath(target); got != want {
			t.Errorf("SameOriginPath(%q) = %v, want %v", target, got, want)
		}
	}
}

// FuzzSameOriginPath: whatever SameOriginPath accepts, resolved against a
// page of the site, stays on the site, and holds no byte a browser would
// drop or read as a separator of hosts.
func FuzzSameOriginPath(f *testing.F) {
	for _, s := range []string{"/connect?flow=x", "//evil", "/\\evil", "/\t/evil", "https://evil", "/%2F/evil", "/.//evil"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://site.example/login?return_to=x")
	f.Fuzz(func(t *testing.T, target string) {
		if !SameOriginPath(target) {
			return
		}
		u, err := url.Parse(target)
		if err != nil {
			t.Fatalf("accepted %q that does not parse: %v", target, err)
		}
		if to := base.ResolveReference(u); to.Host != "site.example" || to.Scheme != "https" || to.User != nil {
			t.Fatalf("accepted %q, which leads to %s", target, to)
		}
		if strings.ContainsAny(target, "\\\t\r\n ") || strings.HasPrefix(target, "//") {
			t.Fatalf("accepted %q", target)
		}
	})
}

// connTSignOutHref is the address of the sign-out button of body, the
// other-account page, unescaped ("" for none).
func connTSignOutHref(t *testing.T, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `id="sign-out" href="`)
	if !ok {
		return ""
	}
	href, _, _ := strings.Cut(rest, `"`)
	return strings.ReplaceAll(href, "&amp;", "&")
}

// TestConnectAllowAfterDeny: after a Deny, the provider's consent page
// reached again with Back answers Allow: the callback applies nothing (no
// exchange, no grant, the flow stays denied) and says so: the done page
// (409) says the Deny ended the sign-in and that the later Allow changed
// nothing, with the next step (ask the assistant again), never "You
// didn't allow access", the opposite of the click just made.
func TestConnectAllowAfterDeny(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand)
	denied := "access_denied"
	s.providerError.Store(&denied)
	f, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	callback := s.connect(t, b, tok)
	if code, _, _ := connTBody(t, b, callback); code != http.StatusForbidden {
		t.Fatalf("the Deny: %d", code)
	}
	u, _ := url.Parse(callback)
	allow := s.url + "/callback?" + url.Values{"state": {u.Query().Get("state")}, "code": {"code-after-back"}}.Encode()
	code, _, body := connTBody(t, b, allow)
	if code != http.StatusConflict || !strings.Contains(body, "<h1>You already chose not to connect</h1>") ||
		!strings.Contains(body, "Allow after going back, doesn't change it") || !strings.Contains(body, "ask your assistant again") ||
		!strings.Contains(body, "Acme Billing") || strings.Contains(body, "You didn't allow access") {
		t.Fatalf("Allow after the Deny: %d %s", code, body)
	}
	if subject, done, _ := s.grants.FlowSubject(context.Background(), f.ID); !done || subject != "" {
		t.Fatalf("flow after Allow: %q %v", subject, done)
	}
	if _, ok, _ := s.grants.Grant(context.Background(), "alice", "billing"); ok || s.exchanges.Load() != 0 {
		t.Fatalf("Allow after the Deny stored a grant (%v) or exchanged (%d)", ok, s.exchanges.Load())
	}
}

// TestConnectDoneSaysConnected: the link or the callback opened again
// once the flow completed gets the done page (409) saying the account is
// connected, for whom and where, with the next step (return to the
// assistant); while another request holds the flow's claim, it says the
// sign-in is finishing (reload), not that it is connected.
func TestConnectDoneSaysConnected(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand)
	_, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	callback := s.connect(t, b, tok)
	if code, _, _ := connTBody(t, b, callback); code != http.StatusOK {
		t.Fatalf("callback: %d", code)
	}
	for _, link := range []string{callback, s.url + "/connect?flow=" + url.QueryEscape(tok)} {
		code, _, body := connTBody(t, b, link)
		if code != http.StatusConflict || !strings.Contains(body, "<h1>You're already connected</h1>") ||
			!strings.Contains(body, "alice@example.com") || !strings.Contains(body, "Acme Billing") ||
			!strings.Contains(body, "return to your assistant") {
			t.Fatalf("%s again: %d %s", link, code, body)
		}
	}

	f, tok := s.token(t, "alice")
	callback = s.connect(t, b, tok)
	if claimed, _ := s.grants.ClaimFlow(context.Background(), f.ID, time.Minute); !claimed {
		t.Fatal("claim")
	}
	code, _, body := connTBody(t, b, callback)
	if code != http.StatusConflict || !strings.Contains(body, "<h1>This sign-in is finishing</h1>") ||
		!strings.Contains(body, "Reload this page") || strings.Contains(body, "connected</h1>") {
		t.Fatalf("while another request holds the claim: %d %s", code, body)
	}
}

// TestConnectSignOutReturnsToTheLink: the other-account page's sign-out
// button carries the way back to the flow in LoginReturnParam: the
// connect link (path and query, without continue=1), also when the other
// account reached the callback, never the provider's code; a result page
// has no link to return to; a request path that SameOriginPath refuses
// gives a sign-out without return.
func TestConnectSignOutReturnsToTheLink(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand, func(o *ConnectOptions) {
		o.LoginURL, o.LoginReturnParam, o.SignOutURL, o.Confirm = "/account/login", "next", "/account/logout?lang=en", true
	})
	_, tok := s.token(t, "alice")
	link := "/connect?flow=" + url.QueryEscape(tok)
	mallory := s.browser(t, "mallory")
	for _, opened := range []string{link, link + "&continue=1"} {
		code, _, body := connTBody(t, mallory, s.url+opened)
		out, err := url.Parse(connTSignOutHref(t, body))
		if code != http.StatusForbidden || err != nil || out.Path != "/account/logout" || out.Query().Get("lang") != "en" ||
			out.Query().Get("next") != link || !SameOriginPath(out.Query().Get("next")) {
			t.Fatalf("mallory opens %s: %d, sign-out %q", opened, code, connTSignOutHref(t, body))
		}
	}
	alice := s.browser(t, "alice")
	callback := connTGet(t, alice, s.url+link+"&continue=1").Header.Get("Location")
	code, _, body := connTBody(t, mallory, callback)
	if out, _ := url.Parse(connTSignOutHref(t, body)); code != http.StatusForbidden || out == nil || out.Query().Get("next") != link {
		t.Fatalf("mallory at alice's callback: %d, sign-out %q", code, connTSignOutHref(t, body))
	}
	if code, _, _ := connTBody(t, alice, callback); code != http.StatusOK {
		t.Fatalf("alice's callback: %d", code)
	}

	pages := NewConnectHandlers(ConnectOptions{Keys: (*elicitrt.Keyring)(s.keys), Grants: &backend.MemoryGrants{}, SignOutURL: "/logout", Logger: slog.New(slog.DiscardHandler),
		Authenticate: func(*http.Request) (string, bool) { return "mallory", true }})
	rec := httptest.NewRecorder()
	pages.Connect.ServeHTTP(rec, httptest.NewRequest("GET", "//evil.example/connect?flow="+url.QueryEscape(tok), nil))
	if href := connTSignOutHref(t, rec.Body.String()); rec.Code != http.StatusForbidden || href != "/logout" {
		t.Fatalf("a path SameOriginPath refuses: %d, sign-out %q", rec.Code, href)
	}
}

// TestConnectTwoTabs: one browser may have several sign-ins under way:
// two links opened in two tabs both finish, in either order; one link
// opened in two tabs finishes in the first (the second then says it is
// already connected); finishing one keeps the nonces of the others, and
// the cookie goes once none is left; of MaxSignInsPerBrowser+1, the
// oldest loses its nonce (other-browser, 403). A cookie of an earlier
// release (one sign-in) still finishes its sign-in.
func TestConnectTwoTabs(t *testing.T) {
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand)
	b := s.browser(t, "alice")
	_, tokA := s.token(t, "alice")
	_, tokB := s.token(t, "alice")
	callbackA, callbackB := s.connect(t, b, tokA), s.connect(t, b, tokB)
	u, _ := url.Parse(s.url)
	nonceCookies := func() int {
		n := 0
		for _, c := range b.Jar.Cookies(u) {
			if c.Name == NonceCookie {
				n++
			}
		}
		return n
	}
	if code, _, body := connTBody(t, b, callbackA); code != http.StatusOK || !strings.Contains(body, "You're connected") {
		t.Fatalf("the first tab: %d %s", code, body)
	}
	if nonceCookies() != 1 {
		t.Fatal("finishing one sign-in dropped the nonce of the other")
	}
	if code, _, body := connTBody(t, b, callbackB); code != http.StatusOK || !strings.Contains(body, "You're connected") {
		t.Fatalf("the second tab: %d %s", code, body)
	}
	if nonceCookies() != 0 {
		t.Fatal("the nonce cookie outlived every sign-in")
	}

	// One link, two tabs: the first tab's visit finishes.
	_, tokC := s.token(t, "alice")
	first, second := s.connect(t, b, tokC), s.connect(t, b, tokC)
	if code, _, _ := connTBody(t, b, first); code != http.StatusOK {
		t.Fatalf("the first visit of one link: %d", code)
	}
	if code, _, body := connTBody(t, b, second); code != http.StatusConflict || !strings.Contains(body, "<h1>You're already connected</h1>") {
		t.Fatalf("the second visit: %d %s", code, body)
	}

	// MaxSignInsPerBrowser+1 under way: the oldest is dropped.
	var callbacks []string
	for range MaxSignInsPerBrowser + 1 {
		_, tok := s.token(t, "alice")
		callbacks = append(callbacks, s.connect(t, b, tok))
	}
	if code, _, body := connTBody(t, b, callbacks[0]); code != http.StatusForbidden || !strings.Contains(body, "<h1>Start again in this browser</h1>") {
		t.Fatalf("the oldest of %d: %d %s", len(callbacks), code, body)
	}
	for _, c := range callbacks[1:] {
		if code, _, _ := connTBody(t, b, c); code != http.StatusOK {
			t.Fatalf("a later one: %d", code)
		}
	}

	// An earlier release's cookie: one flow and nonce in f and n.
	_, tokD := s.token(t, "alice")
	callbackD := s.connect(t, b, tokD)
	var cookie *http.Cookie
	for _, c := range b.Jar.Cookies(u) {
		if c.Name == NonceCookie {
			cookie = c
		}
	}
	_, payload, err := (*seal.Keyring)(s.keys).Open(nonceBinding(s.audience), cookie.Value, time.Now())
	var nv nonceValue
	if err != nil || json.Unmarshal(payload, &nv) != nil || len(nv.Entries) != 1 {
		t.Fatalf("the nonce cookie: %v %+v", err, nv)
	}
	old, _ := json.Marshal(map[string]any{"f": nv.Entries[0].FlowID, "n": nv.Entries[0].Nonce})
	sealed, err := (*seal.Keyring)(s.keys).Seal(nonceBinding(s.audience), 0, old, time.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	b.Jar.SetCookies(u, []*http.Cookie{{Name: NonceCookie, Value: sealed, Path: "/"}})
	if code, _, _ := connTBody(t, b, callbackD); code != http.StatusOK {
		t.Fatalf("the cookie of an earlier release: %d", code)
	}
}

// connTLog is a logger whose output the test reads.
type connTLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *connTLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *connTLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// option makes the pages log to l.
func (l *connTLog) option(o *ConnectOptions) { o.Logger = slog.New(slog.NewTextHandler(l, nil)) }

// TestConnectDeadEndsLogNoIdentity: what the pages log along the dead
// ends (another account, an answer after a Deny, two tabs, a dropped
// nonce, the claim held elsewhere) names no user, no account, no link and
// no token, though it logs each refusal.
func TestConnectDeadEndsLogNoIdentity(t *testing.T) {
	var logs connTLog
	denied := "access_denied"
	s := connTStart(t, seal.RandomKeyring(), &backend.MemoryGrants{}, "", false, connTBrand, logs.option, func(o *ConnectOptions) { o.SignOutURL = "/logout" })
	f, tok := s.token(t, "alice")
	connTBody(t, s.browser(t, "mallory"), s.url+"/connect?flow="+url.QueryEscape(tok))
	b := s.browser(t, "alice")
	s.providerError.Store(&denied)
	callback := s.connect(t, b, tok)
	connTBody(t, b, callback)
	cb, _ := url.Parse(callback)
	connTBody(t, b, s.url+"/callback?"+url.Values{"state": {cb.Query().Get("state")}, "code": {"c"}}.Encode())
	s.providerError.Store(nil)
	var callbacks []string
	for range MaxSignInsPerBrowser + 1 {
		_, tok := s.token(t, "alice")
		callbacks = append(callbacks, s.connect(t, b, tok))
	}
	for _, c := range callbacks {
		connTBody(t, b, c)
	}
	out := logs.String()
	for _, secret := range []string{"alice", "mallory", "@example.com", tok, f.ID, "flow=", "state=", "code="} {
		if strings.Contains(out, secret) {
			t.Errorf("the log shows %q:\n%s", secret, out)
		}
	}
	for _, refusal := range []string{"browser user is not the user who started the flow", "flow already finished", "callback without the nonce of its sign-in"} {
		if !strings.Contains(out, refusal) {
			t.Errorf("the log lacks %q:\n%s", refusal, out)
		}
	}
}
