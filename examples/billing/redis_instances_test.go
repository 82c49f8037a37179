package main

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/redisstore"
	"github.com/elicitgen/elicitgen/runtime/signin"
)

// startBillingProcess runs the billing binary on a free 127.0.0.1 port
// with the test's keys and, unless redisURL is "", -redis redisURL; it
// returns the base URL.
func startBillingProcess(t *testing.T, redisURL string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	args := []string{"-http", addr}
	if redisURL != "" {
		args = append(args, "-redis", redisURL)
	}
	cmd := exec.Command(serverBin, args...)
	cmd.Env = append(os.Environ(), "ELICITGEN_REDIS_URL=", // none inherited from the test's environment
		"ELICITGEN_STATE_KEYS="+base64.StdEncoding.EncodeToString([]byte("billing-test-key-0123456789abcde")))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("billing at %s did not start", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processClient connects to the MCP endpoint of base as user.
func processClient(t *testing.T, base, user string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		Capabilities:   bothModes,
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer(user)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestRedisSignInServedByOtherInstance: two billing processes, A and B,
// share the keys and a Redis. Alice's call on A asks her to sign in; she
// signs in through A's pages; the provider's callback, sent to A and to B
// at once, completes once (the other gets 409); the retry on B then
// completes with the grant A stored, and a new call on B does not ask.
// The control ("memory"): with each process's own memory, B does not see
// the sign-in finished on A. "cluster": the same on a three-master Redis
// Cluster (-redis redis://NODE1?addr=NODE2&addr=NODE3).
func TestRedisSignInServedByOtherInstance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and billing processes")
	}
	for _, store := range []string{"redis", "memory", "cluster"} {
		t.Run(store, func(t *testing.T) {
			redisURL := ""
			switch store {
			case "redis":
				redisURL = redistest.Start(t).URL
			case "cluster":
				redisURL = redistest.StartCluster(t).URL
			}
			a, b := startBillingProcess(t, redisURL), startBillingProcess(t, redisURL)
			onA, onB := processClient(t, a, "alice"), processClient(t, b, "alice")

			first, err := list(onA, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			key, p := urlRequest(t, first)
			if !strings.HasPrefix(p.URL, a+"/connect?") {
				t.Fatalf("link %q, want A's connect page", p.URL)
			}
			// Alice's browser, signed in to the site (its cookie serves
			// both instances: same host), goes through A's pages and the
			// provider up to the callback.
			jar, _ := cookiejar.New(nil)
			browser := &http.Client{Jar: jar}
			if resp, err := browser.PostForm(a+"/login", url.Values{"user": {"alice"}}); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("login: %v %v", resp, err)
			} else {
				resp.Body.Close()
			}
			callback := callbackURL(t, browser, p.URL)
			onOther := strings.Replace(callback, a, b, 1)

			if store == "memory" {
				// The control: the sign-in completes on A, in A's memory;
				// B does not know of it.
				if code, body := get(t, browser, callback); code != http.StatusOK {
					t.Fatalf("control: callback on A: %d %s", code, body)
				}
				res, err := list(onB, first.RequestState, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}})
				if err != nil || !res.NeedsInput() {
					t.Fatalf("control: B served a sign-in finished on A without a shared store: %+v %v", res, err)
				}
				return
			}
			// Two copies of the browser (the same cookies, each its own
			// jar: a success clearing the nonce cookie in one does not
			// change what the other sends), one callback each.
			u, _ := url.Parse(a)
			twin, _ := cookiejar.New(nil)
			twin.SetCookies(u, jar.Cookies(u))
			browsers := []*http.Client{browser, {Jar: twin}}
			codes := make([]int, 2)
			var wg sync.WaitGroup
			for i, link := range []string{callback, onOther} {
				wg.Go(func() { codes[i], _ = get(t, browsers[i], link) })
			}
			wg.Wait()
			if !(codes[0] == http.StatusOK && codes[1] == http.StatusConflict) && !(codes[0] == http.StatusConflict && codes[1] == http.StatusOK) {
				t.Fatalf("callbacks on A and B at once got %v, want one 200 and one 409", codes)
			}
			retry, err := list(onB, first.RequestState, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}})
			if err != nil || retry.NeedsInput() || hosttest.Text(retry) != "2 open invoices." {
				t.Fatalf("retry on B after the sign-in on A: %+v %v", retry, err)
			}
			next, err := list(onB, "", nil)
			if err != nil || next.NeedsInput() || hosttest.Text(next) != "2 open invoices." {
				t.Fatalf("a new call on B: %+v %v", next, err)
			}
		})
	}
}

// TestRedisDownSignIn: with Redis down, the sign-in callback is a 500
// with nothing exchanged (counted: the claim comes first), and the retry on
// the other instance gets the documented tool error, word for word; once
// Redis is back, the same callback exchanges once and the retry completes.
// Instance A, whose pages serve the callback, runs in the test's process
// so that its Exchange can be counted; B is the billing binary.
func TestRedisDownSignIn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and billing processes")
	}
	srv := redistest.Start(t)
	var exchanged atomic.Int32
	a := startBillingInProcess(t, srv.URL, func(o *signin.ConnectOptions) {
		exchange := o.Exchange
		o.Exchange = func(r *http.Request, f signin.ConnectFlow) ([]byte, error) {
			exchanged.Add(1)
			return exchange(r, f)
		}
	})
	b := startBillingProcess(t, srv.URL)
	onA, onB := processClient(t, a, "alice"), processClient(t, b, "alice")
	first, err := list(onA, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	key, p := urlRequest(t, first)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if resp, err := browser.PostForm(a+"/login", url.Values{"user": {"alice"}}); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("login: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	callback := callbackURL(t, browser, p.URL)
	accept := mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}}

	srv.Stop()
	if code, body := get(t, browser, callback); code != http.StatusInternalServerError {
		t.Fatalf("callback with Redis down: %d %s, want 500", code, body)
	}
	if n := exchanged.Load(); n != 0 {
		t.Fatalf("the callback with Redis down exchanged the code %d times, want none", n)
	}
	const down = "elicitgen: the sign-in cannot be read: the shared store (Redis) is unavailable; try again later"
	res, err := list(onB, first.RequestState, accept)
	if err != nil || !res.IsError || hosttest.Text(res) != down {
		t.Fatalf("retry with Redis down: %v %q, want the tool error %q", err, hosttest.Text(res), down)
	}

	srv.Restart()
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, body := get(t, browser, callback)
		if code == http.StatusOK {
			break
		}
		if code != http.StatusInternalServerError || time.Now().After(deadline) {
			t.Fatalf("callback after the restart: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := exchanged.Load(); n != 1 {
		t.Fatalf("the callback after the restart: %d exchanges, want 1", n)
	}
	for {
		res, err = list(onB, first.RequestState, accept)
		if err == nil && !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("retry after the restart: %+v %v", res, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if res.NeedsInput() || hosttest.Text(res) != "2 open invoices." {
		t.Fatalf("retry after the restart: %+v", res)
	}
}

// startBillingInProcess serves billing's app in the test's process on a
// free 127.0.0.1 port, with the keys of startBillingProcess, the grants on
// the Redis at redisURL and the sign-in pages' options edited by pages;
// it returns the base URL.
func startBillingInProcess(t *testing.T, redisURL string, pages func(*signin.ConnectOptions)) string {
	t.Helper()
	keys, err := elicitrt.NewKeyring([]byte("billing-test-key-0123456789abcde"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := redisstore.ClientFromSettings(redisURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	grants, err := redisstore.NewGrants(client, &redisstore.Options{Keys: keys, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: newApp(config{base: base, keys: keys, grants: grants, signInPages: pages})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return base
}

// TestRedisStdioSignInThroughHTTPPages: the billing binary over stdio (a
// desktop client's 2025-11-25 session) and the binary over HTTP (its
// sign-in pages) share a Redis: Carol accepts the URL step on stdio, signs
// in through the HTTP process's pages, and the waiting stdio call goes on
// to the invoices. (With each process's own memory the stdio call cannot
// finish: TestEveryTransportAndEra.)
func TestRedisStdioSignInThroughHTTPPages(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and billing processes")
	}
	srv := redistest.Start(t)
	pages := startBillingProcess(t, srv.URL)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if resp, err := browser.PostForm(pages+"/login", url.Values{"user": {"carol"}}); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("login: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	signedIn := make(chan int, 1)
	u := &hosttest.User{Replies: []*mcp.ElicitResult{{Action: "accept"}}, OnAsk: func(p *mcp.ElicitParams) {
		go func() {
			code, _, err := signIn(browser, p.URL)
			if err != nil {
				code = 0
			}
			signedIn <- code
		}()
	}}
	cs := hosttest.Connect(t, nil, "stdio", "legacy", hosttest.Options{User: u, Capabilities: bothModes, Command: func() *exec.Cmd {
		cmd := exec.Command(serverBin, "-stdio", "-redis", srv.URL)
		cmd.Env = append(os.Environ(), "BILLING_USER=carol", "BILLING_BASE_URL="+pages, "BILLING_LEGACY_URL_WAIT=20s",
			"ELICITGEN_STATE_KEYS="+base64.StdEncoding.EncodeToString([]byte("billing-test-key-0123456789abcde")))
		return cmd
	}})
	res, err := list(cs, "", nil)
	if code := <-signedIn; code != http.StatusOK {
		t.Fatalf("sign-in through the HTTP process: status %d", code)
	}
	if err != nil || hosttest.Text(res) != "2 open invoices." {
		t.Fatalf("the stdio call after the sign-in: %+v %v", res, err)
	}
}

// TestRedisDenialServedByOtherInstance: Alice clicks Deny at the provider
// in a sign-in started on A; the retry on B takes the step's decline path
// (the denial, recorded through A's callback in Redis, reaches B) instead
// of asking again.
func TestRedisDenialServedByOtherInstance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and billing processes")
	}
	srv := redistest.Start(t)
	a, b := startBillingProcess(t, srv.URL), startBillingProcess(t, srv.URL)
	onA, onB := processClient(t, a, "alice"), processClient(t, b, "alice")
	first, err := list(onA, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	key, p := urlRequest(t, first)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	if resp, err := browser.PostForm(a+"/login", url.Values{"user": {"alice"}}); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("login: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	resp, err := browser.Get(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	consent := *resp.Request.URL
	consent.RawQuery = ""
	form := resp.Request.URL.Query()
	form.Set("decision", "deny")
	if resp, err = browser.PostForm(consent.String(), form); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(resp.Request.URL.String(), a+"/callback") {
		t.Fatalf("after Deny: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	res, err := list(onB, first.RequestState, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}})
	if err != nil || res.NeedsInput() || res.IsError || hosttest.Text(res) != notConnected {
		t.Fatalf("the retry on B after the denial on A: %+v %v", res, err)
	}
}
