package machine

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The task tests serve over internal/transport's HTTPHandler, which
// imports this package: transport_test.go, an external test file, sets
// NewHTTPHandlerForTest to it, with the task status streams wired as
// runtime wires them. The helpers below are internal/transport's httpT
// helpers, for this package's tests.

// NewHTTPHandlerForTest is internal/transport's NewHTTPHandler with
// ServeTaskListen as its Listen hook.
var NewHTTPHandlerForTest func(getServer func(*http.Request) *mcp.Server) http.Handler

// DefaultMaxRequestBodyBytesForTest is internal/transport's
// DefaultMaxRequestBodyBytes.
var DefaultMaxRequestBodyBytesForTest int

// httpTServe starts the router on 127.0.0.1 with one server and returns its
// URL. wrap, if set, wraps the router (for auth middleware).
func httpTServe(t *testing.T, wrap func(http.Handler) http.Handler, setup ...func(*mcp.Server)) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "httpt", Version: "v0.0.1"}, nil)
	for _, f := range setup {
		f(srv)
	}
	h := NewHTTPHandlerForTest(func(*http.Request) *mcp.Server { return srv })
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL
}

func httpTCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// httpTPost sends one raw POST the way a streamable client would and returns
// the status, headers and the JSON-RPC message of the reply (the first SSE
// data payload when the reply is an event stream).
func httpTPost(t *testing.T, url string, header map[string]string, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				return resp.StatusCode, resp.Header, []byte(data)
			}
		}
		return resp.StatusCode, resp.Header, nil
	}
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, data
}
