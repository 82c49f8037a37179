package redisstore_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// Sign-ins across instances: processes of testdata/signinfixture (the
// list_invoices tool written by hand as generated code would be, one URL
// step asked while the user has no grant; the pages of runtime/signin;
// redisstore.Grants and the replay guard on Redis) sharing the keys and
// one redis-server, real SDK clients over HTTP or stdio. The tests play
// the person's browser and the provider (signin_standins_test.go), so
// that they count the codes redeemed.

const (
	invoicesRead = "2 open invoices."
	notConnected = "The billing account isn't connected, so no invoices were read."
)

// urlAndForm declares form and URL mode.
var urlAndForm = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
	Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}

// signinBinary is the path of the built testdata/signinfixture.
func signinBinary(t *testing.T) string {
	t.Helper()
	return signinFixture.binary(t, "signinfixture")
}

// startSignIn runs the sign-in fixture over HTTP for alice, on the Redis
// at redisURL ("": its own memory) with provider p; it returns its base
// URL and an SDK client connected to it that sees each round.
func startSignIn(t *testing.T, redisURL string, p *provider) (string, *mcp.ClientSession) {
	t.Helper()
	proc := startProcess(t, signinBinary(t), stateKey, redisURL, false, "-provider", p.url, "-principal", "alice")
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		Capabilities: urlAndForm, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: proc.endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return strings.TrimSuffix(proc.endpoint, "/mcp"), cs
}

// listInvoices calls list_invoices; with state and responses, a retry.
func listInvoices(cs *mcp.ClientSession, state string, responses mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_invoices", Arguments: map[string]any{},
		RequestState: state, InputResponses: responses})
}

// askedToSignIn is the one question of res, which must be a URL-mode
// elicitation without elicitationId, and the reply that accepts it.
func askedToSignIn(t *testing.T, res *mcp.CallToolResult) (*mcp.ElicitParams, mcp.InputResponseMap) {
	t.Helper()
	key := hosttest.OnlyKey(t, res)
	p, ok := res.InputRequests[key].(*mcp.ElicitParams)
	if !ok || p.Mode != "url" || p.RequestedSchema != nil || p.ElicitationID != "" {
		t.Fatalf("want a URL-mode elicitation without elicitationId, got %+v", res.InputRequests[key])
	}
	return p, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}}
}

// askedOnA is Alice's sign-in asked on instance A, of two sharing the
// Redis at redisURL ("": each its own memory) and a provider: the two
// base URLs, a session on each, and the first call's state, link and the
// answer that accepts it.
type askedOnA struct {
	prov   *provider
	a, b   string
	onA    *mcp.ClientSession
	onB    *mcp.ClientSession
	state  string
	link   string
	accept mcp.InputResponseMap
}

func signInAskedOnA(t *testing.T, redisURL string) *askedOnA {
	t.Helper()
	f := &askedOnA{prov: startProvider(t)}
	f.a, f.onA = startSignIn(t, redisURL, f.prov)
	f.b, f.onB = startSignIn(t, redisURL, f.prov)
	first, err := listInvoices(f.onA, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, accept := askedToSignIn(t, first)
	if !strings.HasPrefix(p.URL, f.a+"/connect?") {
		t.Fatalf("link %q, want A's connect page", p.URL)
	}
	f.state, f.link, f.accept = first.RequestState, p.URL, accept
	return f
}

// retryOnB sends the first call's retry, the URL step accepted, to B.
func (f *askedOnA) retryOnB() (*mcp.CallToolResult, error) {
	return listInvoices(f.onB, f.state, f.accept)
}

// TestRedisSignInServedByOtherInstance: two fixture processes, A and B,
// share the keys and a Redis. Alice's call on A asks her to sign in; she
// signs in through A's pages; the provider's callback, sent to A and to B
// at once, completes once (the other gets 409); the retry on B then
// completes with the grant A stored, and a new call on either instance
// does not ask (whichever callback won, the other instance reads what it
// stored). The control ("memory"): with each process's own memory, B does not see
// the sign-in finished on A. "cluster": the same on a three-master Redis
// Cluster (-redis redis://NODE1?addr=NODE2&addr=NODE3).
func TestRedisSignInServedByOtherInstance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and two server processes")
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
			signInOnAServesB(t, redisURL)
		})
	}
}

// signInOnAServesB is a case of TestRedisSignInServedByOtherInstance on
// the Redis at redisURL ("": the memory control).
func signInOnAServesB(t *testing.T, redisURL string) {
	f := signInAskedOnA(t, redisURL)
	browser := loggedIn(t, f.a, "alice")
	callback := callbackLink(t, browser, f.link)
	if redisURL == "" {
		// The control: the sign-in completes on A, in A's memory; B
		// does not know of it.
		if code, body := open(t, browser, callback); code != http.StatusOK {
			t.Fatalf("control: callback on A: %d %s", code, body)
		}
		res, err := f.retryOnB()
		if err != nil || !res.NeedsInput() {
			t.Fatalf("control: B served a sign-in finished on A without a shared store: %+v %v", res, err)
		}
		return
	}
	// Two copies of the browser (the same cookies, each its own jar: a
	// success clearing the nonce cookie in one does not change what the
	// other sends), one callback each, to A and to B at once.
	site, _ := url.Parse(f.a)
	twin, _ := cookiejar.New(nil)
	twin.SetCookies(site, browser.Jar.Cookies(site))
	browsers := []*http.Client{browser, {Jar: twin}}
	got := make(chan int, 2)
	for i, link := range []string{callback, strings.Replace(callback, f.a, f.b, 1)} {
		go func() {
			resp, _, err := readPage(browsers[i].Get(link))
			if err != nil {
				got <- 0 // no answer
				return
			}
			got <- resp.StatusCode
		}()
	}
	codes := []int{<-got, <-got}
	if !(codes[0] == http.StatusOK && codes[1] == http.StatusConflict) && !(codes[0] == http.StatusConflict && codes[1] == http.StatusOK) {
		t.Fatalf("callbacks on A and B at once got %v, want one 200 and one 409", codes)
	}
	retry, err := f.retryOnB()
	if err != nil || retry.NeedsInput() || hosttest.Text(retry) != invoicesRead {
		t.Fatalf("retry on B after the sign-in on A: %+v %v", retry, err)
	}
	for name, cs := range map[string]*mcp.ClientSession{"A": f.onA, "B": f.onB} {
		next, err := listInvoices(cs, "", nil)
		if err != nil || next.NeedsInput() || hosttest.Text(next) != invoicesRead {
			t.Fatalf("a new call on %s: %+v %v", name, next, err)
		}
	}
}

// TestRedisDenialServedByOtherInstance: Alice clicks Deny at the provider
// in a sign-in started on A; the retry on B takes the step's decline path
// (the denial, recorded through A's callback in Redis, reaches B) instead
// of asking again.
func TestRedisDenialServedByOtherInstance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and two server processes")
	}
	f := signInAskedOnA(t, redistest.Start(t).URL)
	resp, body, err := throughProvider(loggedIn(t, f.a, "alice"), f.link, "deny")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(resp.Request.URL.String(), f.a+"/callback") {
		t.Fatalf("after Deny: %d at %s: %s", resp.StatusCode, resp.Request.URL, body)
	}
	if n := f.prov.redeemed.Load(); n != 0 {
		t.Fatalf("a denied sign-in redeemed %d codes, want none", n)
	}
	res, err := f.retryOnB()
	if err != nil || res.NeedsInput() || res.IsError || hosttest.Text(res) != notConnected {
		t.Fatalf("the retry on B after the denial on A: %+v %v", res, err)
	}
}

// TestRedisStdioSignInThroughHTTPPages: the fixture over stdio (a desktop
// client's 2025-11-25 session) and the fixture over HTTP (its sign-in
// pages) share a Redis: Carol accepts the URL step on stdio, signs in
// through the HTTP process's pages, and the waiting stdio call goes on to
// the invoices. (With each process's own memory the stdio call cannot
// finish: examples/billing's TestEveryTransportAndEra.)
func TestRedisStdioSignInThroughHTTPPages(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and two server processes")
	}
	srv, prov := redistest.Start(t), startProvider(t)
	pages, _ := startSignIn(t, srv.URL, prov)
	browser := loggedIn(t, pages, "carol")
	signedIn := make(chan int, 1)
	u := &hosttest.User{Replies: []*mcp.ElicitResult{{Action: "accept"}}, OnAsk: func(p *mcp.ElicitParams) {
		go func() {
			resp, _, err := throughProvider(browser, p.URL, "allow")
			if err != nil {
				signedIn <- 0
				return
			}
			signedIn <- resp.StatusCode
		}()
	}}
	cs := hosttest.Connect(t, nil, "stdio", "legacy", hosttest.Options{User: u, Capabilities: urlAndForm, Command: func() *exec.Cmd {
		cmd := exec.Command(signinBinary(t), "-stdio", "-redis", srv.URL, "-base", pages, "-provider", prov.url,
			"-principal", "carol", "-legacy-url-wait", "20s")
		cmd.Env = append(os.Environ(), "ELICITGEN_REDIS_URL=", "ELICITGEN_STATE_KEYS="+stateKey)
		return cmd
	}})
	res, err := listInvoices(cs, "", nil)
	if code := <-signedIn; code != http.StatusOK {
		t.Fatalf("sign-in through the HTTP process: status %d", code)
	}
	if err != nil || hosttest.Text(res) != invoicesRead {
		t.Fatalf("the stdio call after the sign-in: %+v %v", res, err)
	}
}

// TestRedisDownSignIn: with Redis down, the sign-in callback is a 500
// with nothing exchanged (no code redeemed at the provider: the claim
// comes first), and the retry on the other instance gets the documented
// tool error, word for word; once Redis is back, the same callback
// exchanges once and the retry completes.
func TestRedisDownSignIn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and two server processes")
	}
	srv := redistest.Start(t)
	f := signInAskedOnA(t, srv.URL)
	browser := loggedIn(t, f.a, "alice")
	callback := callbackLink(t, browser, f.link)

	srv.Stop()
	if code, body := open(t, browser, callback); code != http.StatusInternalServerError {
		t.Fatalf("callback with Redis down: %d %s, want 500", code, body)
	}
	if n := f.prov.redeemed.Load(); n != 0 {
		t.Fatalf("the callback with Redis down exchanged the code %d times, want none", n)
	}
	const down = "elicitgen: the sign-in cannot be read: the shared store (Redis) is unavailable; try again later"
	res, err := f.retryOnB()
	if err != nil || !res.IsError || hosttest.Text(res) != down {
		t.Fatalf("retry with Redis down: %v %q, want the tool error %q", err, hosttest.Text(res), down)
	}

	srv.Restart()
	resumedAfterRestart(t, browser, callback, f.retryOnB)
	if n := f.prov.redeemed.Load(); n != 1 {
		t.Fatalf("the callback after the restart: %d exchanges, want 1", n)
	}
}

// resumedAfterRestart waits, within 5 s of the restart, for the callback
// to complete (500 meanwhile, while the clients reconnect) and then for
// retry to complete with the invoices.
func resumedAfterRestart(t *testing.T, browser *http.Client, callback string, retry func() (*mcp.CallToolResult, error)) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, body := open(t, browser, callback)
		if code == http.StatusOK {
			break
		}
		if code != http.StatusInternalServerError || time.Now().After(deadline) {
			t.Fatalf("callback after the restart: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for {
		res, err := retry()
		if err == nil && !res.IsError {
			if res.NeedsInput() || hosttest.Text(res) != invoicesRead {
				t.Fatalf("retry after the restart: %+v", res)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("retry after the restart: %+v %v", res, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
