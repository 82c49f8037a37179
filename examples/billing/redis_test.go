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

// startBilling runs the binary with -http on a free 127.0.0.1 port (its
// links name the port: not :0), the test's state keys and flags; it
// returns the base URL and a session to its /mcp as user (the stand-in
// bearer token), which sees each input_required round itself.
func startBilling(t *testing.T, user string, flags ...string) (string, *mcp.ClientSession) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	l.Close()
	cmd := exec.Command(serverBin, append([]string{"-http", l.Addr().String()}, flags...)...)
	cmd.Env = append(os.Environ(), "ELICITGEN_REDIS_URL=", "ELICITGEN_STATE_KEYS="+base64.StdEncoding.EncodeToString([]byte("billing-test-key-0123456789abcde")))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		Capabilities: bothModes, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
			Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer(user)}}, nil)
		if err == nil {
			t.Cleanup(func() { cs.Close() })
			return base, cs
		}
		if time.Now().After(deadline) {
			t.Fatalf("billing at %s: %v", base, err)
		}
	}
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
	a, onA := startBilling(t, "alice", "-redis", redisURL)
	_, onB := startBilling(t, "alice", "-redis", redisURL)
	first, err := list(onA, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	key, p := urlRequest(t, first) // the connect link, to A's pages
	if code, body, err := signIn((&site{url: a}).browser(t, "alice"), p.URL); err != nil || code != http.StatusOK {
		t.Fatalf("sign-in through A: %d %s %v", code, body, err)
	}
	retry, err := list(onB, first.RequestState, mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept"}})
	if got := hosttest.Sees(nil, retry, err); got != "2 open invoices." || retry.NeedsInput() {
		t.Fatalf("the retry on B after the sign-in on A: %q (\"\": it asks again), want the invoices", got)
	}
}
