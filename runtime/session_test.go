package runtime

import (
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPHandlerDefaultSessionTimeout: issue 24, finding 4. Legacy
// sessions expire by default: HTTPOptions left at zero (nil, as every
// example server passes) means DefaultSessionTimeout, which is not zero
// and not shorter than the wait of a question a person is answering; a
// negative value keeps sessions until DELETE.
func TestHTTPHandlerDefaultSessionTimeout(t *testing.T) {
	if DefaultSessionTimeout <= 0 || DefaultSessionTimeout < DefaultLegacyAnswerWait {
		t.Fatalf("DefaultSessionTimeout = %v, want > 0 and >= DefaultLegacyAnswerWait (%v)", DefaultSessionTimeout, DefaultLegacyAnswerWait)
	}
	get := func(*http.Request) *mcp.Server { return nil }
	for _, c := range []struct {
		opts *HTTPOptions
		want time.Duration
	}{
		{nil, DefaultSessionTimeout},
		{&HTTPOptions{}, DefaultSessionTimeout},
		{&HTTPOptions{SessionTimeout: time.Minute}, time.Minute},
		{&HTTPOptions{SessionTimeout: -1}, 0},
	} {
		if got := NewHTTPHandler(get, c.opts).sessions.idle; got != c.want {
			t.Errorf("%+v: idle timeout %v, want %v", c.opts, got, c.want)
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
		&HTTPOptions{SessionTimeout: timeout}))
	defer ts.Close()
	ids := make([]string, sessions)
	for i := range ids {
		status, header, _ := httpTPost(t, ts.URL, nil, legacyInitialize)
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
		if status, _, _ := httpTPost(t, ts.URL, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}, ping); status != http.StatusNotFound {
			t.Errorf("a request on an expired session: HTTP %d, want 404", status)
		}
	}
}
