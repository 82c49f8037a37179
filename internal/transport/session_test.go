package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
)

// TestHTTPHandlerDefaultSessionTimeout: issue 24, finding 4. Legacy
// sessions expire by default: HTTPOptions left at zero (nil, as every
// example server passes) means DefaultSessionTimeout, which is not zero
// and not shorter than the wait of a question a person is answering; a
// negative value keeps sessions until DELETE. Likewise each principal's
// sessions are bounded by default.
func TestHTTPHandlerDefaultSessionTimeout(t *testing.T) {
	if DefaultSessionTimeout <= 0 || DefaultSessionTimeout < elicitrt.DefaultLegacyAnswerWait {
		t.Fatalf("DefaultSessionTimeout = %v, want > 0 and >= DefaultLegacyAnswerWait (%v)", DefaultSessionTimeout, elicitrt.DefaultLegacyAnswerWait)
	}
	get := func(*http.Request) *mcp.Server { return nil }
	for _, c := range []struct {
		opts *elicitrt.HTTPOptions
		want time.Duration
	}{
		{nil, DefaultSessionTimeout},
		{&elicitrt.HTTPOptions{}, DefaultSessionTimeout},
		{&elicitrt.HTTPOptions{SessionTimeout: time.Minute}, time.Minute},
		{&elicitrt.HTTPOptions{SessionTimeout: -1}, 0},
	} {
		if got := NewHTTPHandler(get, c.opts, Hooks{}).sessions.idle; got != c.want {
			t.Errorf("%+v: idle timeout %v, want %v", c.opts, got, c.want)
		}
	}
	for n, want := range map[int]int{0: DefaultMaxSessionsPerPrincipal, 5: 5, -1: 0} {
		if got := NewHTTPHandler(get, &elicitrt.HTTPOptions{MaxSessionsPerPrincipal: n}, Hooks{}).sessions.bounds.perUser; got != want {
			t.Errorf("MaxSessionsPerPrincipal %d: bound %d, want %d", n, got, want)
		}
	}
}

// legacyInitialize is the initialize of a 2025-11-25 client that then
// goes away.
const legacyInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"gone","version":"0"}}}`

// TestHTTPHandlerIdleSessionsEnd: 200 sessions that only initialize, over
// HTTP on 127.0.0.1, each hold goroutines; with a short SessionTimeout
// they end and their goroutines go away (polled for at most 10 s), and
// their ids then get 404. With SessionTimeout -1 (none, what zero meant
// before DefaultSessionTimeout) the goroutines stay and the test fails.
func TestHTTPHandlerIdleSessionsEnd(t *testing.T) {
	const sessions = 200
	timeout := time.Second
	http.DefaultClient.CloseIdleConnections()
	before := goruntime.NumGoroutine()
	srv := mcp.NewServer(&mcp.Implementation{Name: "idle", Version: "v0"}, nil)
	ts := httptest.NewServer(NewHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&elicitrt.HTTPOptions{SessionTimeout: timeout, MaxAnonymousSessionsPerAddress: -1}, Hooks{}))
	defer ts.Close()
	ids := make([]string, sessions)
	for i := range ids {
		status, header, _ := httpt.Post(t, ts.URL, nil, legacyInitialize)
		if ids[i] = header.Get("Mcp-Session-Id"); status != http.StatusOK || ids[i] == "" {
			t.Fatalf("initialize %d: HTTP %d, session %q", i, status, ids[i])
		}
	}
	http.DefaultClient.CloseIdleConnections()
	during := goruntime.NumGoroutine()
	deadline := time.Now().Add(10 * time.Second)
	for goruntime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	after := goruntime.NumGoroutine()
	t.Logf("goroutines: %d before, %d with %d idle sessions, %d after their timeout", before, during, sessions, after)
	if after > before+2 {
		t.Fatalf("%d goroutines left after the sessions' timeout (%d before)", after, before)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	for _, id := range ids[:3] {
		if status, _, _ := httpt.Post(t, ts.URL, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}, ping); status != http.StatusNotFound {
			t.Errorf("a request on an expired session: HTTP %d, want 404", status)
		}
	}
}

// TestHTTPHandlerSessionsPerPrincipal: one user cannot hold more than
// MaxSessionsPerPrincipal legacy sessions, so cannot fill the process with
// abandoned ones for the others: over HTTP on 127.0.0.1 with bearer
// tokens, Alice's fourth initialize with a bound of 3 gets 429 naming the
// bound and what to do, while Bob opens his; her DELETE of one frees its
// place, and so does the idle timeout of her others (polled for at most
// 10 s).
func TestHTTPHandlerSessionsPerPrincipal(t *testing.T) {
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		return &auth.TokenInfo{UserID: tok, Expiration: time.Now().Add(time.Hour)}, nil
	}
	url := httpTServe(t, &elicitrt.HTTPOptions{MaxSessionsPerPrincipal: 3, SessionTimeout: time.Second}, auth.RequireBearerToken(verify, nil))
	open := func(user string) (int, string, string) {
		status, header, body := httpt.Post(t, url, map[string]string{"Authorization": "Bearer " + user}, legacyInitialize)
		return status, header.Get("Mcp-Session-Id"), string(body)
	}
	var ids []string
	for range 3 {
		status, id, _ := open("alice")
		if status != http.StatusOK || id == "" {
			t.Fatalf("alice's session: HTTP %d", status)
		}
		ids = append(ids, id)
	}
	if status, _, body := open("alice"); status != http.StatusTooManyRequests || !strings.Contains(body, "at most 3") {
		t.Fatalf("alice's fourth session: HTTP %d %q, want 429 naming the bound", status, body)
	}
	if status, _, _ := open("bob"); status != http.StatusOK {
		t.Fatalf("bob's session while alice holds 3: HTTP %d", status)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", ids[0])
	req.Header.Set("Authorization", "Bearer alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("alice's DELETE: %v %v", resp, err)
	}
	resp.Body.Close()
	if status, _, _ := open("alice"); status != http.StatusOK {
		t.Fatalf("alice's session after her DELETE: HTTP %d", status)
	}
	deadline := time.Now().Add(10 * time.Second)
	status, _, _ := open("alice")
	for status == http.StatusTooManyRequests && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		status, _, _ = open("alice")
	}
	if status != http.StatusOK {
		t.Fatalf("alice's session after her others' timeout: HTTP %d", status)
	}
}
