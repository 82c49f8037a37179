package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// startInstance runs the deploy binary on a free 127.0.0.1 port with the
// given state keys and returns its MCP endpoint.
func startInstance(t *testing.T, keys string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(serverBin, "-http", addr)
	cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS="+keys)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance at %s did not start", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "http://" + addr + "/mcp"
}

// TestTwoInstancesManyFlows runs 200 concurrent two-round production
// deploys against two server processes that share a key, sending every
// retry to the other instance. Each flow must complete with exactly its own
// answers: its service, and its own notify choice.
func TestTwoInstancesManyFlows(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two server processes")
	}
	key := base64.StdEncoding.EncodeToString([]byte("instances-test-key-0123456789abc"))
	endpoints := []string{startInstance(t, key), startInstance(t, key)}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	sessions := make([]*mcp.ClientSession, 2)
	for i, ep := range endpoints {
		client := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "v0"}, &mcp.ClientOptions{
			MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
			ElicitationHandler: (&hosttest.User{}).Handle,
		})
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ep}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		sessions[i] = cs
	}

	const flows = 200
	var completed atomic.Int32
	errs := make(chan error, flows)
	var wg sync.WaitGroup
	for n := range flows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- runFlow(ctx, sessions, n)
			completed.Add(1)
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			if failed <= 5 {
				t.Error(err)
			}
		}
	}
	t.Logf("%d flows over 2 instances, %d failed", completed.Load(), failed)
	if failed > 0 {
		t.Fatalf("%d of %d flows failed", failed, flows)
	}
}

// runFlow is one deploy: call on instance n%2, answer on the other,
// confirm on the first again. Three calls at most.
func runFlow(ctx context.Context, sessions []*mcp.ClientSession, n int) error {
	service := fmt.Sprintf("svc-%03d", n)
	notify := n%3 == 0
	args := map[string]any{"service": service}
	at := func(i int) *mcp.ClientSession { return sessions[(n+i)%2] }
	first, err := at(0).CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args})
	if err != nil || !first.NeedsInput() || first.InputRequests["target"] == nil {
		return fmt.Errorf("%s round 1: %+v %v", service, first, err)
	}
	second, err := at(1).CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"target": hosttest.Accept(map[string]any{"environment": "prod", "notify": notify})}})
	if err != nil || !second.NeedsInput() || second.InputRequests["confirm"] == nil {
		return fmt.Errorf("%s round 2: %+v %v", service, second, err)
	}
	if msg := second.InputRequests["confirm"].(*mcp.ElicitParams).Message; msg != "Deploy "+service+" to production now?" {
		return fmt.Errorf("%s: confirm message %q", service, msg)
	}
	done, err := at(2).CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: second.RequestState,
		InputResponses: mcp.InputResponseMap{"confirm": hosttest.Accept(map[string]any{"confirm": true})}})
	if err != nil || done.NeedsInput() {
		return fmt.Errorf("%s round 3: %+v %v", service, done, err)
	}
	want := "Deploying " + service + " to prod without notifying."
	if notify {
		want = "Deploying " + service + " to prod and posting in #deployments."
	}
	if got := hosttest.Text(done); got != want {
		return fmt.Errorf("%s: got %q, want %q", service, got, want)
	}
	return nil
}

// TestInstancesWithOtherKeys is the control: instances that do not share a
// key cannot serve each other's retries, so the test above really crossed
// between processes.
func TestInstancesWithOtherKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two server processes")
	}
	a := base64.StdEncoding.EncodeToString([]byte("instances-key-a-0123456789abcdef"))
	b := base64.StdEncoding.EncodeToString([]byte("instances-key-b-0123456789abcdef"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sessions []*mcp.ClientSession
	for _, k := range []string{a, b} {
		client := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "v0"}, &mcp.ClientOptions{
			MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}, ElicitationHandler: (&hosttest.User{}).Handle})
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: startInstance(t, k)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		sessions = append(sessions, cs)
	}
	if err := runFlow(ctx, sessions, 0); err == nil {
		t.Fatal("a retry opened on an instance with another key")
	}
}
