package main

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// startBilling runs the binary with -http on a free 127.0.0.1 port, the
// test's state keys and flags; it returns the base URL once it listens.
func startBilling(t *testing.T, flags ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // the binary's base URL names its port: it cannot listen on :0
	cmd := exec.Command(serverBin, append([]string{"-http", addr}, flags...)...)
	cmd.Env = append(os.Environ(), "ELICITGEN_REDIS_URL=", "ELICITGEN_STATE_KEYS="+base64.StdEncoding.EncodeToString([]byte("billing-test-key-0123456789abcde")))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
	}
	t.Fatalf("billing at %s did not start", addr)
	return ""
}

// billingClient connects to base's /mcp with user as the stand-in bearer
// token, seeing each input_required round itself.
func billingClient(t *testing.T, base, user string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		Capabilities: bothModes, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer(user)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// bearer sends the stand-in MCP credential: the user id as bearer token.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestRedisFlagSharesSignIns: the check to keep beside a deployment of
// several instances. Two processes of the binary share the state keys and,
// with -redis, the sign-ins on a real redis-server: Alice's call on A asks
// her to connect, she signs in through A's pages, and her retry on B is
// served, not asked again. (runtime/redisstore's tests hold every case.)
func TestRedisFlagSharesSignIns(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and two billing processes")
	}
	redisURL := redistest.Start(t).URL
	a, b := startBilling(t, "-redis", redisURL), startBilling(t, "-redis", redisURL)
	first, err := list(billingClient(t, a, "alice"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	key, p := urlRequest(t, first) // the connect link, to A's pages
	if code, body, err := signIn((&site{url: a}).browser(t, "alice"), p.URL); err != nil || code != http.StatusOK {
		t.Fatalf("sign-in through A: %d %s %v", code, body, err)
	}
	retry, err := list(billingClient(t, b, "alice"), first.RequestState, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}})
	if err != nil {
		t.Fatal(err)
	}
	if retry.NeedsInput() || hosttest.Text(retry) != "2 open invoices." {
		t.Fatalf("the retry on B after the sign-in on A: asks again %v, %q; want the invoices", retry.NeedsInput(), hosttest.Text(retry))
	}
}
