package runtime

import (
	"context"
	"errors"
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
	keys     *Keyring
	audience string
	grants   *MemoryGrants
	// exchanges counts Exchange calls; failExchange makes the next ones
	// fail.
	exchanges    atomic.Int64
	failExchange atomic.Bool
	srv          *httptest.Server
}

// connTStart serves the pages for audience, over TLS when tls is set.
func connTStart(t *testing.T, keys *Keyring, grants *MemoryGrants, audience string, tls bool) *connTSite {
	t.Helper()
	s := &connTSite{keys: keys, audience: audience, grants: grants}
	var codes atomic.Int64
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := url.Values{"state": {r.URL.Query().Get("state")}, "code": {"code-" + string(rune('a'+codes.Add(1)%26))}}
		http.Redirect(w, r, r.URL.Query().Get("redirect_uri")+"?"+q.Encode(), http.StatusFound)
	}))
	t.Cleanup(provider.Close)
	pages := NewConnectHandlers(ConnectOptions{
		Keys: keys, Audience: audience, Grants: grants,
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
	})
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
func (s *connTSite) token(t *testing.T, user string) (ConnectFlow, string) {
	t.Helper()
	f := ConnectFlow{ID: newFlowID(), Subject: user, Tool: "list_invoices", Step: "billing"}
	tok, err := s.keys.SealFlow(f, s.audience, time.Now(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return f, tok
}

// browser is a browser signed in to the site as user ("" for nobody). It
// follows redirects, except to the callback: connect returns the callback
// URL the provider sent the browser to, for the test to open.
func (s *connTSite) browser(t *testing.T, user string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Path == "/callback" {
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
func (s *connTSite) assertNotCompleted(t *testing.T, f ConnectFlow) {
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
	s := connTStart(t, RandomKeyring(), &MemoryGrants{}, "", false)
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
	s := connTStart(t, RandomKeyring(), &MemoryGrants{}, "", false)
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
	s := connTStart(t, RandomKeyring(), &MemoryGrants{}, "", false)
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
	s = connTStart(t, RandomKeyring(), &MemoryGrants{}, "", false)
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
	s := connTStart(t, RandomKeyring(), &MemoryGrants{}, "", false)
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
	s := connTStart(t, RandomKeyring(), &MemoryGrants{}, "", false)
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
	keys, grants := RandomKeyring(), &MemoryGrants{}
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
	s := connTStart(t, RandomKeyring(), &MemoryGrants{}, "", false)
	_, tok := s.token(t, "alice")
	b := s.browser(t, "alice")
	check := func(what string, resp *http.Response, status int) {
		t.Helper()
		h := resp.Header
		if resp.StatusCode != status || h.Get("Cache-Control") != "no-store" || h.Get("X-Frame-Options") != "DENY" ||
			h.Get("Content-Security-Policy") != "frame-ancestors 'none'" || h.Get("Referrer-Policy") != "no-referrer" {
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
	check("callback", connTGet(t, b, callback), http.StatusOK)
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
		c.MaxAge <= 0 || c.MaxAge > int(DefaultStateTTL/time.Second) {
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
	tls := connTStart(t, RandomKeyring(), &MemoryGrants{}, "", true)
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
// alice's signed-in browser, the flow completes (200, one Exchange, a
// grant) only with the state and the cookie that the connect page gave
// that browser for it, and then once; any other input is refused with
// nothing exchanged or stored. Each run makes a fresh flow and visits the
// connect page; useState and useCookie put its state and cookie in place
// of the fuzzed ones (the fuzzer never sees them, so it cannot carry a
// valid pair from one run to the next).
func FuzzCallback(f *testing.F) {
	keys, _ := NewKeyring([]byte("fuzz-callback-key-0123456789abc!"))
	now := time.Unix(1_800_000_000, 0)
	alice := &http.Cookie{Name: connTSessionCookie, Value: "alice"}
	f.Add("", "", true, true)
	f.Add("s1.AAAA", "", true, false)
	f.Add("", "s1.AAAA", false, true)
	f.Add("x", "y", false, false)
	f.Fuzz(func(t *testing.T, state, cookie string, useState, useCookie bool) {
		grants := &MemoryGrants{}
		exchanges := 0
		pages := NewConnectHandlers(ConnectOptions{Keys: keys, Grants: grants, Now: func() time.Time { return now },
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
		token, err := keys.SealFlow(ConnectFlow{ID: newFlowID(), Subject: "alice", Tool: "t", Step: "billing"}, "", now, time.Hour)
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
		if valid != (first == http.StatusOK) || valid != (exchanges == 1) || valid != stored || exchanges > 1 {
			t.Fatalf("valid %v: status %d, %d exchanges, grant stored %v", valid, first, exchanges, stored)
		}
		if second := serve(); second == http.StatusOK || exchanges > 1 {
			t.Fatalf("second callback: status %d, %d exchanges", second, exchanges)
		}
	})
}
