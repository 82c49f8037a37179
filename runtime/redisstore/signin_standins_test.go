package redisstore_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
)

// What the tests of signin_instances_test.go play: the provider, on
// 127.0.0.1, and the person's browser, an http.Client with a cookie jar
// (the fixture's stand-in login, the connect page, the consent page, the
// callback).

const providerCode = "the-one-code"

// provider is the stand-in provider, on 127.0.0.1: GET /authorize is its
// consent page; its POST (decision=deny for Deny) sends the browser back
// (303) to the redirect URI, a /callback of 127.0.0.1, with the state and
// its one code, or OAuth's error=access_denied; POST /token redeems the
// code (the grant), each request counted.
type provider struct {
	url      string
	redeemed atomic.Int32
}

func startProvider(t *testing.T) *provider {
	t.Helper()
	p := &provider{}
	mux := http.NewServeMux()
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		back, err := url.Parse(r.FormValue("redirect_uri"))
		state := r.FormValue("state")
		if err != nil || back.Hostname() != "127.0.0.1" || back.Path != "/callback" || state == "" {
			http.Error(w, "unregistered redirect_uri, or no state", http.StatusBadRequest)
			return
		}
		if r.Method != http.MethodPost {
			_, _ = io.WriteString(w, `<form method="post"><button name="decision" value="allow">Allow</button></form>`)
			return
		}
		answer := url.Values{"state": {state}, "code": {providerCode}}
		if r.PostFormValue("decision") == "deny" {
			answer = url.Values{"state": {state}, "error": {"access_denied"}}
		}
		back.RawQuery = answer.Encode()
		http.Redirect(w, r, back.String(), http.StatusSeeOther)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		p.redeemed.Add(1)
		if r.PostFormValue("code") != providerCode {
			http.Error(w, "unknown code", http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, "provider-grant")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// loggedIn is a browser signed in to the site of base as user, with the
// stand-in login's POST. Its cookie serves every instance: same host.
func loggedIn(t *testing.T, base, user string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &http.Client{Jar: jar}
	if resp, _, err := readPage(b.PostForm(base+"/login", url.Values{"user": {user}})); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("login as %s: %+v %v", user, resp, err)
	}
	return b
}

// throughProvider is the person of browser b opening link: the connect
// page sends them to the provider's consent page, where they click
// decision ("allow" or "deny"). It returns the last response and its body:
// the callback's page, or a refusal before the consent page.
func throughProvider(b *http.Client, link, decision string) (*http.Response, string, error) {
	resp, body, err := readPage(b.Get(link))
	if err != nil || resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/authorize" {
		return resp, body, err
	}
	form := resp.Request.URL.Query()
	form.Set("decision", decision)
	consent := *resp.Request.URL
	consent.RawQuery = ""
	return readPage(b.PostForm(consent.String(), form))
}

// readPage reads and closes the body of a response.
func readPage(resp *http.Response, err error) (*http.Response, string, error) {
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, string(body), err
}

// callbackLink is throughProvider with Allow, stopped before the
// callback: the callback URL the provider sent the browser to.
func callbackLink(t *testing.T, b *http.Client, link string) string {
	t.Helper()
	stop := *b
	var callback string
	stop.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		if req.URL.Path == "/callback" {
			callback = req.URL.String()
			return http.ErrUseLastResponse
		}
		return nil
	}
	if _, _, err := throughProvider(&stop, link, "allow"); err != nil {
		t.Fatal(err)
	}
	if callback == "" {
		t.Fatal("connect: no redirect to the callback")
	}
	return callback
}

// open is b's GET of link, redirects followed: the status and body.
func open(t *testing.T, b *http.Client, link string) (int, string) {
	t.Helper()
	resp, body, err := readPage(b.Get(link))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}
