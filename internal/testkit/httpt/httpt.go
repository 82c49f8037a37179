// Package httpt holds the HTTP helpers of the transport's and the tasks'
// tests: a server on 127.0.0.1, one raw POST as a streamable client sends
// it, and a test's context.
package httpt

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewServer returns an MCP server with each setup applied (tools added).
func NewServer(setup ...func(*mcp.Server)) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "httpt", Version: "v0.0.1"}, nil)
	for _, f := range setup {
		f(srv)
	}
	return srv
}

// Serve serves h on 127.0.0.1, wrapped by wrap when it is set (for auth
// middleware), until the test ends, and returns its URL.
func Serve(t *testing.T, h http.Handler, wrap func(http.Handler) http.Handler) string {
	t.Helper()
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

// Ctx is a context that ends with the test, or after 10 seconds.
func Ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Post sends one raw POST the way a streamable client would and returns
// the status, headers and the JSON-RPC message of the reply (the first SSE
// data payload when the reply is an event stream).
func Post(t *testing.T, url string, header map[string]string, body string) (int, http.Header, []byte) {
	t.Helper()
	return PostWith(t, http.DefaultClient, url, header, body)
}

// PostWith is Post sent with client c.
func PostWith(t testing.TB, c *http.Client, url string, header map[string]string, body string) (int, http.Header, []byte) {
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
	resp, err := c.Do(req)
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

// FromAddress is a client whose connections come from the loopback
// address ip (any of 127.0.0.0/8 on Linux), kept alive, closed when the
// test ends: the server sees a client of its own address.
func FromAddress(t testing.TB, ip string) *http.Client {
	t.Helper()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 4}}
	t.Cleanup(c.CloseIdleConnections)
	return c
}
