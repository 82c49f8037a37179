package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// TestLoginIsPost: the stand-in login signs in only on a POST from its own
// origin; GET shows the form.
func TestLoginIsPost(t *testing.T) {
	s := startSite(t)
	signedIn := func(b *http.Client) bool {
		u, _ := url.Parse(s.url)
		for _, c := range b.Jar.Cookies(u) {
			if c.Name == sessionCookie {
				return true
			}
		}
		return false
	}
	b := s.browser(t, "alice")
	if !signedIn(b) {
		t.Fatal("POST did not sign in")
	}
	jar, _ := cookiejar.New(nil)
	b = &http.Client{Jar: jar}
	code, body := get(t, b, s.url+"/login?user=alice")
	if code != http.StatusOK || signedIn(b) || !strings.Contains(body, `<form method="post"`) {
		t.Fatalf("GET: %d, signed in %v, %s", code, signedIn(b), body)
	}
	req, _ := http.NewRequest("POST", s.url+"/login", strings.NewReader("user=alice"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	resp, err := b.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || signedIn(b) {
		t.Fatalf("POST from another origin: %d, signed in %v", resp.StatusCode, signedIn(b))
	}
}

// TestProviderRefusesForeignRedirect: the stand-in provider shows its
// consent page, and sends the browser (and the code) back, only for the
// server's own callback: any other redirect_uri is 400 on both.
func TestProviderRefusesForeignRedirect(t *testing.T) {
	for _, providerHost := range []string{"", "localhost"} {
		s := startSiteWith(t, providerHost)
		provider := s.cfg.provider
		if provider == "" {
			provider = s.url
		}
		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for _, redirect := range []string{
			s.url + "/callback",
			"http://evil.example/callback",
			s.url + "/callback/../mcp",
			s.url + "/callback?next=elsewhere",
			"",
			strings.ToUpper(s.url) + "/callback",
		} {
			q := url.Values{"state": {"some-state"}, "redirect_uri": {redirect}}
			wantPage, wantBack := http.StatusBadRequest, http.StatusBadRequest
			if redirect == s.url+"/callback" {
				wantPage, wantBack = http.StatusOK, http.StatusSeeOther
			}
			if code, _ := get(t, noFollow, provider+"/provider/authorize?"+q.Encode()); code != wantPage {
				t.Errorf("provider %q, consent page for redirect_uri %q: %d, want %d", provider, redirect, code, wantPage)
			}
			resp, err := noFollow.PostForm(provider+"/provider/authorize", q)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != wantBack || (wantBack == http.StatusSeeOther && !strings.HasPrefix(resp.Header.Get("Location"), s.url+"/callback?")) {
				t.Errorf("provider %q, Allow for redirect_uri %q: %d to %q, want %d", provider, redirect, resp.StatusCode, resp.Header.Get("Location"), wantBack)
			}
		}
	}
}

// TestLoginReturnsToTheLink: a person who opens the link while signed out
// is sent to the login page and, once signed in there, back to the same
// link, and on to the provider; the login page follows a return address
// of this site only, never one that leads elsewhere.
func TestLoginReturnsToTheLink(t *testing.T) {
	s := startSite(t)
	cs := s.mcpClient(t, "http", "alice", hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})
	first, err := list(cs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, p := urlRequest(t, first)
	jar, _ := cookiejar.New(nil)
	b := &http.Client{Jar: jar}
	code, body := get(t, b, p.URL)
	if code != http.StatusOK || !strings.Contains(body, `name="return_to" value="/connect?flow=`) {
		t.Fatalf("signed out: %d %s", code, body)
	}
	back := strings.TrimPrefix(p.URL, s.url)
	resp, err := b.PostForm(s.url+"/login", url.Values{"user": {"alice"}, "return_to": {back}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/provider/authorize" {
		t.Fatalf("after login: %d at %s", resp.StatusCode, resp.Request.URL)
	}

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, target := range []string{"//evil.example/", "https://evil.example/", "/\\evil.example", "/\t/evil.example", "javascript:alert(1)"} {
		resp, err := noFollow.PostForm(s.url+"/login", url.Values{"user": {"alice"}, "return_to": {target}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Location") != "" {
			t.Errorf("return_to %q: %d to %q", target, resp.StatusCode, resp.Header.Get("Location"))
		}
		if code, body := get(t, noFollow, s.url+"/login?return_to="+url.QueryEscape(target)); code != http.StatusOK || !strings.Contains(body, `name="return_to" value=""`) {
			t.Errorf("login form with return_to %q: %d %s", target, code, body)
		}
	}
}

// TestSessionCookieSealed: the stand-in site's session cookie carries no
// readable user id (it is sealed with the key ring), and a cookie set by
// hand to a user's name, or to another user's sealed session altered by
// one byte, signs nobody in: the link sends that browser to the login
// page, not to the provider.
func TestSessionCookieSealed(t *testing.T) {
	s := startSite(t)
	cs := s.mcpClient(t, "http", "alice", hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})
	_, p := urlRequest(t, mustList(t, cs))
	u, _ := url.Parse(s.url)
	var sealed string
	for _, c := range s.browser(t, "alice").Jar.Cookies(u) {
		if c.Name == sessionCookie {
			sealed = c.Value
		}
	}
	if sealed == "" || strings.Contains(sealed, "alice") {
		t.Fatalf("the session cookie %q shows the user", sealed)
	}
	forged := []byte(sealed)
	forged[len(forged)/2] ^= 1
	for _, value := range []string{"alice", string(forged)} {
		jar, _ := cookiejar.New(nil)
		jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: value, Path: "/"}})
		b := &http.Client{Jar: jar}
		resp, err := b.Get(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Request.URL.Path != "/login" {
			t.Fatalf("session cookie %.20q: the link led to %s", value, resp.Request.URL)
		}
	}
}

// TestSignOutReturnsToTheLink: over HTTP, mallory's browser opens alice's
// link: the other-account page's sign-out button leads to the stand-in
// sign-out page with the link as return_to; its POST signs out and
// returns to the link, which leads to the login page, which says why and
// returns to the link once alice signs in: on to the provider. A
// return_to of another site is never followed.
func TestSignOutReturnsToTheLink(t *testing.T) {
	s := startSite(t)
	cs := s.mcpClient(t, "http", "alice", hosttest.Options{User: &hosttest.User{}, Capabilities: bothModes, Manual: true})
	_, p := urlRequest(t, mustList(t, cs))
	back := strings.TrimPrefix(p.URL, s.url)
	b := s.browser(t, "mallory")
	code, body := get(t, b, p.URL)
	signOut := "/logout?return_to=" + url.QueryEscape(back)
	if code != http.StatusForbidden || !strings.Contains(body, `href="`+signOut+`"`) {
		t.Fatalf("mallory opens alice's link: %d %s", code, body)
	}
	code, body = get(t, b, s.url+signOut)
	if code != http.StatusOK || !strings.Contains(body, "mallory@example.com") || !strings.Contains(body, `name="return_to" value="`+back+`"`) {
		t.Fatalf("the sign-out page: %d %s", code, body)
	}
	resp, err := b.PostForm(s.url+"/logout", url.Values{"return_to": {back}})
	if err != nil {
		t.Fatal(err)
	}
	login, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Request.URL.Path != "/login" || resp.Request.URL.Query().Get("return_to") != back ||
		!strings.Contains(string(login), "Your assistant asked to connect your account at <strong>Acme Billing</strong>") {
		t.Fatalf("after signing out: %d at %s: %s", resp.StatusCode, resp.Request.URL, login)
	}
	resp, err = b.PostForm(s.url+"/login", url.Values{"user": {"alice"}, "return_to": {back}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/provider/authorize" {
		t.Fatalf("after signing in as alice: %d at %s", resp.StatusCode, resp.Request.URL)
	}

	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, target := range []string{"//evil.example/", "https://evil.example/", "/\\evil.example", "/\t/evil.example"} {
		resp, err := noFollow.PostForm(s.url+"/logout", url.Values{"return_to": {target}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Location") != "" {
			t.Errorf("sign-out with return_to %q: %d to %q", target, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}
