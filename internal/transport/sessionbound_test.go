package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
)

// Bounds on the sessions opened without a token (issue 35, finding 2),
// over HTTP on 127.0.0.1 with the real SDK server; clients of other
// addresses connect from 127.0.0.x.

// boundClient is a client of the server at url, from one address, with
// an optional bearer token.
type boundClient struct {
	t     *testing.T
	url   string
	c     *http.Client
	token string
}

func newBoundClient(t *testing.T, url, ip, token string) *boundClient {
	return &boundClient{t: t, url: url, c: httpt.FromAddress(t, ip), token: token}
}

func (b *boundClient) post(header map[string]string, body string) (int, http.Header, []byte) {
	b.t.Helper()
	if b.token != "" {
		header["Authorization"] = "Bearer " + b.token
	}
	return httpt.PostWith(b.t, b.c, b.url, header, body)
}

// initialize sends one initialize and returns the status, the session
// id, the Retry-After header and the body.
func (b *boundClient) initialize() (int, string, string, []byte) {
	b.t.Helper()
	status, header, body := b.post(map[string]string{}, legacyInitialize)
	return status, header.Get("Mcp-Session-Id"), header.Get("Retry-After"), body
}

// open initializes a session, and says initialized, which it must.
func (b *boundClient) open() string {
	b.t.Helper()
	status, id, _, body := b.initialize()
	if status != http.StatusOK || id == "" {
		b.t.Fatalf("initialize: HTTP %d %s", status, body)
	}
	b.post(map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"},
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return id
}

// ping is the status of a ping on session id: 200 while it is open, 404
// once the SDK closed it.
func (b *boundClient) ping(id string) int {
	b.t.Helper()
	status, _, _ := b.post(map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"},
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	return status
}

// call calls the tool "wait" on session id.
func (b *boundClient) call(id string) int {
	b.t.Helper()
	status, _, _ := b.post(map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"},
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	return status
}

// checkRefusal checks a refused initialize: 429, a Retry-After of whole
// seconds between 1 and at most, and a -32029 JSON-RPC error whose data
// names limit and max and whose message says "at most max".
func checkRefusal(t *testing.T, status int, retryAfter string, body []byte, limit string, max int, at time.Duration) {
	t.Helper()
	var msg struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Limit string `json:"limit"`
				Max   int    `json:"max"`
			} `json:"data"`
		} `json:"error"`
	}
	err := json.Unmarshal(body, &msg)
	secs, serr := strconv.Atoi(retryAfter)
	if status != http.StatusTooManyRequests || serr != nil || secs < 1 || time.Duration(secs)*time.Second > at {
		t.Fatalf("refusal: HTTP %d, Retry-After %q, want 429 and 1 to %v in seconds; body %s", status, retryAfter, at, body)
	}
	e := msg.Error
	if err != nil || msg.ID != 1 || e.Code != taskrun.CodeTaskLimit || e.Data.Limit != limit || e.Data.Max != max ||
		!strings.Contains(e.Message, fmt.Sprintf("at most %d", max)) {
		t.Fatalf("refusal body %s (%v), want the initialize's id, code %d, limit %q, max %d", body, err, taskrun.CodeTaskLimit, limit, max)
	}
}

// TestHTTPHandlerAnonymousSessionsPerAddress: 10,000 initializes without
// a token from one address, on one keep-alive connection, with default
// options (as the deploy and conformance examples run), open
// DefaultMaxAnonymousSessionsPerAddress sessions; every other gets 429,
// Retry-After (at most the idle timeout) and the JSON-RPC error naming
// the bound. Another address still opens its own. Before the bound, all
// 10,000 opened.
func TestHTTPHandlerAnonymousSessionsPerAddress(t *testing.T) {
	url := httpTServe(t, nil, nil)
	flood := newBoundClient(t, url, "127.0.0.1", "")
	opened, refused := 0, 0
	for i := range 10_000 {
		status, id, retryAfter, body := flood.initialize()
		switch {
		case status == http.StatusOK && id != "":
			if opened++; opened > DefaultMaxAnonymousSessionsPerAddress {
				t.Fatalf("initialize %d: session %d opened from one address, want at most %d", i, opened, DefaultMaxAnonymousSessionsPerAddress)
			}
		case status == http.StatusTooManyRequests:
			if refused++; refused == 1 || i == 9_999 {
				checkRefusal(t, status, retryAfter, body, LimitAnonymousSessionsPerAddress, DefaultMaxAnonymousSessionsPerAddress, DefaultSessionTimeout)
			} else if retryAfter == "" {
				t.Fatalf("initialize %d: 429 without Retry-After", i)
			}
		default:
			t.Fatalf("initialize %d: HTTP %d %s", i, status, body)
		}
	}
	t.Logf("10000 initializes from one address: %d sessions, %d refused", opened, refused)
	if opened != DefaultMaxAnonymousSessionsPerAddress {
		t.Fatalf("%d sessions opened from one address, want %d", opened, DefaultMaxAnonymousSessionsPerAddress)
	}
	if status, _, _, _ := newBoundClient(t, url, "127.0.0.2", "").initialize(); status != http.StatusOK {
		t.Fatalf("another address's initialize: HTTP %d", status)
	}
}

// waitTool is a tool "wait" whose calls run until release is closed;
// each says on entered that it runs.
func waitTool(entered chan<- struct{}, release <-chan struct{}) func(*mcp.Server) {
	return func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			entered <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return httpTText("done"), nil, nil
		})
	}
}

// releaseOnce returns the function that closes release, which also runs
// when the test ends (before its server closes, which waits for the
// calls), so that a failed test does not hang.
func releaseOnce(t *testing.T, release chan struct{}) func() {
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	return free
}

// TestHTTPHandlerAnonymousSessionsEvictIdleLongest: with at most 6
// sessions without a token (3 per address), clients of 127.0.0.2 and
// 127.0.0.3 fill them; a seventh from 127.0.0.4 closes the session idle
// longest (not the oldest one, which had a request since), whose id then
// gets the SDK's 404 while the others answer. With every session busy
// (a call running on each), the next initialize gets 429 naming the
// bound; once the calls end, it opens. Before the bound, nothing was
// closed and nothing refused.
func TestHTTPHandlerAnonymousSessionsEvictIdleLongest(t *testing.T) {
	entered, release := make(chan struct{}, 16), make(chan struct{})
	url := httpTServe(t, &elicitrt.HTTPOptions{MaxAnonymousSessions: 6, MaxAnonymousSessionsPerAddress: 3}, nil, waitTool(entered, release))
	free := releaseOnce(t, release)
	a, b, c := newBoundClient(t, url, "127.0.0.2", ""), newBoundClient(t, url, "127.0.0.3", ""), newBoundClient(t, url, "127.0.0.4", "")
	ids := map[*boundClient][]string{}
	for _, cl := range []*boundClient{a, a, a, b, b, b} {
		ids[cl] = append(ids[cl], cl.open())
	}
	if status, _, retryAfter, body := a.initialize(); status != http.StatusTooManyRequests {
		t.Fatalf("a fourth session from one address: HTTP %d %s", status, body)
	} else {
		checkRefusal(t, status, retryAfter, body, LimitAnonymousSessionsPerAddress, 3, DefaultSessionTimeout)
	}
	if a.ping(ids[a][0]) != http.StatusOK {
		t.Fatal("ping on the first session failed")
	}
	ids[c] = append(ids[c], c.open()) // closes ids[a][1], idle longest
	if status := a.ping(ids[a][1]); status != http.StatusNotFound {
		t.Fatalf("the session idle longest: HTTP %d after the seventh initialize, want 404 (closed)", status)
	}
	live := []struct {
		cl *boundClient
		id string
	}{{a, ids[a][0]}, {a, ids[a][2]}, {b, ids[b][0]}, {b, ids[b][1]}, {b, ids[b][2]}, {c, ids[c][0]}}
	for _, s := range live {
		if status := s.cl.ping(s.id); status != http.StatusOK {
			t.Fatalf("session %s, not idle longest: HTTP %d, want 200", s.id, status)
		}
	}

	var calls sync.WaitGroup
	for _, s := range live {
		calls.Go(func() { s.cl.call(s.id) })
	}
	for range live {
		<-entered
	}
	status, _, retryAfter, body := c.initialize()
	checkRefusal(t, status, retryAfter, body, LimitAnonymousSessions, 6, busyRetryAfter)
	free()
	calls.Wait()
	if status, _, _, body := c.initialize(); status != http.StatusOK {
		t.Fatalf("initialize once the calls ended: HTTP %d %s", status, body)
	}
}

// optionalBearer verifies a bearer token when there is one (the token is
// the user) and lets requests without one through, anonymous.
func optionalBearer(next http.Handler) http.Handler {
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: tok, Expiration: time.Now().Add(time.Hour)}, nil
	}
	authed := auth.RequireBearerToken(verify, nil)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			authed.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// TestHTTPHandlerAuthenticatedBesideAnonymous: with at most 6 sessions of
// which 4 anonymous, 10 initializes without a token leave 4 sessions (the
// 6 idle longest closed). With a call running on each of those 4, an
// anonymous initialize gets 429 naming the anonymous bound, while Alice
// opens 2 sessions in the places left to authenticated users; Bob's then
// gets 429 naming the total, since authenticated sessions are never closed
// to make room and no anonymous one is idle. Once the calls end, Bob's
// initialize and an anonymous one each close an anonymous session, never
// Alice's or Bob's. Before the bounds, the 10 anonymous sessions all
// stayed open; with the anonymous bound at the total, Alice was refused.
func TestHTTPHandlerAuthenticatedBesideAnonymous(t *testing.T) {
	entered, release := make(chan struct{}, 16), make(chan struct{})
	url := httpTServe(t, &elicitrt.HTTPOptions{MaxSessions: 6, MaxAnonymousSessions: 4}, optionalBearer, waitTool(entered, release))
	free := releaseOnce(t, release)
	anon := newBoundClient(t, url, "127.0.0.1", "")
	var ids []string
	for range 10 {
		ids = append(ids, anon.open())
	}
	for i, id := range ids {
		if want := map[bool]int{true: http.StatusNotFound, false: http.StatusOK}[i < 6]; anon.ping(id) != want {
			t.Fatalf("anonymous session %d of 10: want HTTP %d", i, want)
		}
	}
	ids = ids[6:]
	var calls sync.WaitGroup
	for _, id := range ids {
		calls.Go(func() { anon.call(id) })
	}
	for range ids {
		<-entered
	}
	status, _, retryAfter, body := anon.initialize()
	checkRefusal(t, status, retryAfter, body, LimitAnonymousSessions, 4, busyRetryAfter)
	alice, bob := newBoundClient(t, url, "127.0.0.1", "alice"), newBoundClient(t, url, "127.0.0.1", "bob")
	users := map[string]*boundClient{alice.open(): alice, alice.open(): alice}
	status, _, retryAfter, body = bob.initialize()
	checkRefusal(t, status, retryAfter, body, LimitSessions, 6, busyRetryAfter)
	free()
	calls.Wait()
	users[bob.open()] = bob
	ids = append(ids, anon.open())
	open := 0
	for _, id := range ids {
		if anon.ping(id) == http.StatusOK {
			open++
		}
	}
	if open != 3 {
		t.Fatalf("%d of the 5 anonymous sessions open, want 3 (the total reached twice, an anonymous one closed each time)", open)
	}
	for id, u := range users {
		if u.ping(id) != http.StatusOK {
			t.Fatalf("%s's session closed", u.token)
		}
	}
}

// TestClientAddress: a session without a principal counts against the
// host of its RemoteAddr: an IPv4 address as it is, an IPv6 one by its /64
// prefix (what one client is usually given), so a client cannot take the
// per-address bound many times over by walking its own /64.
func TestClientAddress(t *testing.T) {
	key := func(remote string) string {
		return clientAddress(&http.Request{RemoteAddr: remote})
	}
	if a, b := key("[2001:db8:1:2::1]:443"), key("[2001:db8:1:2:ffff::9]:5"); a != b || a != "2001:db8:1:2::/64" {
		t.Errorf("one /64: %q and %q", a, b)
	}
	if a, b := key("[2001:db8:1:2::1]:443"), key("[2001:db8:1:3::1]:443"); a == b {
		t.Errorf("two /64s share %q", a)
	}
	if a, b := key("127.0.0.2:80"), key("127.0.0.3:80"); a != "127.0.0.2" || b != "127.0.0.3" {
		t.Errorf("IPv4: %q %q", a, b)
	}
	if got := key("not an address"); got != "not an address" {
		t.Errorf("an unparsable RemoteAddr: %q", got)
	}
}
