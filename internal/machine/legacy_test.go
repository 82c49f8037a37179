package machine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/serve"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
)

// countForm is a one-property form written by hand, as generated code
// would: {"n": integer 1..9, required}.
var countSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":9}},"required":["n"]}`)

func countStep() elicitimpl.Step {
	return elicitimpl.Step{
		Key: "count", Message: "How many?",
		Params: func(msg string) *mcp.ElicitParams {
			return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: countSchema}
		},
		Check: func(c map[string]any) error {
			n, ok := c["n"].(float64)
			if !ok || n != float64(int(n)) || n < 1 || n > 9 {
				return errors.New("invalid content: n: must be an integer from 1 to 9")
			}
			return nil
		},
	}
}

type noArgs struct{}

// countServer serves the tool "count", whose one step is countStep; its
// handler panics when the count is 7.
func countServer(opts *elicitrt.ToolOptions) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "count", Version: "v0"}, nil)
	m := elicitimpl.NewMachine("count", []elicitimpl.Step{countStep()}, elicitimpl.Flow{
		Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			n := a[0]["n"].(float64)
			if n == 7 {
				panic("seven")
			}
			return elicitrt.Text(fmt.Sprintf("count %v", n)), nil
		},
		Ended: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text(action), nil
		},
	}, opts)
	elicitimpl.AddTool[noArgs](server, &mcp.Tool{Name: "count", InputSchema: json.RawMessage(`{"type":"object"}`)}, m)
	return server
}

// legacyClient connects a 2025-11-25 client over HTTP to url; answer
// answers each question (it may block until ctx ends). The answer goes out
// as is: the Go SDK client's own check of it against the schema is skipped,
// as a client without one would send it.
func legacyClient(t *testing.T, url string, answer func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	return legacyClientOver(t, &mcp.StreamableClientTransport{Endpoint: url}, answer)
}

// legacyClientOver is legacyClient over the client transport ct.
func legacyClientOver(t *testing.T, ct mcp.Transport, answer func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return answer(ctx, req.Params)
		},
	})
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if er, ok := req.(*mcp.ElicitRequest); ok {
				return answer(ctx, er.Params)
			}
			return next(ctx, method, req)
		}
	})
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func callCount(cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{}})
}

func text(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) != 1 {
		return ""
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return ""
	}
	return tc.Text
}

// TestLegacyInvalidAnswerIsReasked: on 2025-11-25 as on 2026-07-28, an
// invalid answer is asked again with the reason (the SDK's own schema check
// used to end the call with its error).
func TestLegacyInvalidAnswerIsReasked(t *testing.T) {
	srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return countServer(nil) }, nil))
	defer srv.Close()
	var mu sync.Mutex
	var asked []string
	cs := legacyClient(t, srv.URL, func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, p.Message)
		if len(asked) == 1 {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 12}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 3}}, nil
	})
	defer cs.Close()
	res, err := callCount(cs)
	if err != nil || text(res) != "count 3" {
		t.Fatalf("call: %q %v", text(res), err)
	}
	if len(asked) != 2 || !strings.Contains(asked[1], "Please correct: n: must be an integer from 1 to 9.") {
		t.Fatalf("asked %q", asked)
	}
}

// TestPanicIsAnInternalError: a panic in a handler method ends that call
// with -32603, and the server goes on serving.
func TestPanicIsAnInternalError(t *testing.T) {
	srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return countServer(nil) }, nil))
	defer srv.Close()
	n := 7
	cs := legacyClient(t, srv.URL, func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": n}}, nil
	})
	defer cs.Close()
	_, err := callCount(cs)
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError || werr.Message != "internal error" {
		t.Fatalf("a panicking handler: want -32603 internal error, got %v", err)
	}
	n = 2
	if res, err := callCount(cs); err != nil || text(res) != "count 2" {
		t.Fatalf("after the panic: %+v %v", res, err)
	}
}

// waitingUser never answers: it says when it was asked, then blocks until
// release is closed (the test's end: the client's Close waits for it).
func waitingUser(asked chan<- struct{}, release <-chan struct{}) func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked <- struct{}{}
		select {
		case <-ctx.Done():
		case <-release:
		}
		return nil, errors.New("gone")
	}
}

// TestLegacyQuestionEnds: a question nobody answers ends the call after
// LegacyAnswerWait, when the session is deleted, or when the session is
// idle for SessionTimeout; each promptly.
func TestLegacyQuestionEnds(t *testing.T) {
	cases := []struct {
		name  string
		tool  elicitrt.ToolOptions
		http  elicitrt.HTTPOptions
		after func(t *testing.T, url string, cs *mcp.ClientSession)
		want  time.Duration
	}{
		{name: "LegacyAnswerWait", tool: elicitrt.ToolOptions{LegacyAnswerWait: 300 * time.Millisecond}, want: 300 * time.Millisecond},
		{name: "SessionTimeout", http: elicitrt.HTTPOptions{SessionTimeout: 300 * time.Millisecond}, want: 300 * time.Millisecond},
		{name: "DELETE", after: func(t *testing.T, url string, cs *mcp.ClientSession) {
			req, _ := http.NewRequest(http.MethodDelete, url, nil)
			req.Header.Set("Mcp-Session-Id", cs.ID())
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			start := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if d := time.Since(start); resp.StatusCode != http.StatusNoContent || d > time.Second {
				t.Errorf("DELETE: %d after %v", resp.StatusCode, d)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool, hopts := c.tool, c.http
			srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return countServer(&tool) }, &hopts))
			defer srv.Close()
			asked, release := make(chan struct{}, 1), make(chan struct{})
			cs := legacyClient(t, srv.URL, waitingUser(asked, release))
			defer cs.Close()
			defer close(release)
			type reply struct {
				res *mcp.CallToolResult
				err error
			}
			done := make(chan reply, 1)
			go func() {
				res, err := callCount(cs)
				done <- reply{res, err}
			}()
			<-asked
			start := time.Now()
			if c.after != nil {
				c.after(t, srv.URL, cs)
			}
			select {
			case r := <-done:
				if d := time.Since(start); d > c.want+time.Second {
					t.Errorf("the call ended after %v", d)
				}
				if r.err == nil && !strings.Contains(text(r.res), "no answer came") {
					t.Errorf("the call ended with %+v", r.res)
				}
			case <-time.After(c.want + 5*time.Second):
				t.Fatal("the call still waits for an answer")
			}
		})
	}
}

// TestAbandonedLegacyCallsFreeTheirGoroutines: 40 legacy calls whose
// client never answers; once their questions time out and the sessions
// are gone, the goroutine count is back to what it was.
func TestAbandonedLegacyCallsFreeTheirGoroutines(t *testing.T) {
	const calls = 40
	http.DefaultClient.CloseIdleConnections()
	before := goruntime.NumGoroutine()
	tool := elicitrt.ToolOptions{LegacyAnswerWait: 300 * time.Millisecond}
	srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return countServer(&tool) },
		&elicitrt.HTTPOptions{SessionTimeout: 2 * time.Second}))
	asked, release := make(chan struct{}, calls), make(chan struct{})
	var wg sync.WaitGroup
	sessions := make([]*mcp.ClientSession, calls)
	for i := range sessions {
		cs := legacyClient(t, srv.URL, waitingUser(asked, release))
		sessions[i] = cs
		wg.Go(func() {
			if res, err := callCount(cs); err == nil && !strings.Contains(text(res), "no answer came") {
				t.Errorf("abandoned call: %+v", res)
			}
		})
	}
	for range calls {
		<-asked
	}
	during := goruntime.NumGoroutine()
	wg.Wait()
	close(release)
	for _, cs := range sessions {
		cs.Close()
	}
	srv.Close()
	deadline := time.Now().Add(5 * time.Second)
	for goruntime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	after := goruntime.NumGoroutine()
	t.Logf("goroutines: %d before, %d with %d calls waiting, %d after", before, during, calls, after)
	if after > before+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines left after the calls ended (%d before)\n%s", after, before, buf[:goruntime.Stack(buf, true)])
	}
}

// TestOwnerDeleteRefusedKeepsTheSession: a DELETE from the session's own
// principal that the SDK refuses for another reason (here an unsupported
// Mcp-Protocol-Version, 400) ends the question that was waiting, but not
// the session: the runtime still knows it, a later question on it waits
// for its answer as before, and a proper DELETE then ends the session.
func TestOwnerDeleteRefusedKeepsTheSession(t *testing.T) {
	srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return countServer(nil) }, nil))
	defer srv.Close()
	// Each question gets its own answer channel: a question the server
	// ended may still wait on the client.
	asked := make(chan chan int, 3)
	cs := legacyClient(t, srv.URL, func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		answer := make(chan int, 1)
		asked <- answer
		select {
		case n := <-answer:
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": n}}, nil
		case <-ctx.Done():
			return nil, errors.New("gone")
		}
	})
	defer cs.Close()
	del := func(version string) int {
		req, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Mcp-Protocol-Version", version)
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("DELETE: %v", err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	type reply struct {
		res *mcp.CallToolResult
		err error
	}
	call := func() <-chan reply {
		done := make(chan reply, 1)
		go func() {
			res, err := callCount(cs)
			done <- reply{res, err}
		}()
		return done
	}
	wait := func(c <-chan reply) reply {
		select {
		case r := <-c:
			return r
		case <-time.After(10 * time.Second):
			t.Fatal("the call still waits")
			return reply{}
		}
	}
	isAsked := func() chan int {
		select {
		case answer := <-asked:
			return answer
		case <-time.After(10 * time.Second):
			t.Fatal("not asked")
			return nil
		}
	}
	first := call()
	isAsked()
	if code := del("1999-01-01"); code != http.StatusBadRequest {
		t.Fatalf("a DELETE with an unsupported version: %d, want 400", code)
	}
	if r := wait(first); r.err == nil && !strings.Contains(text(r.res), "no answer came") {
		t.Fatalf("the question the owner's DELETE ended: %+v", r.res)
	}
	second := call()
	isAsked() <- 3
	if r := wait(second); r.err != nil || text(r.res) != "count 3" {
		t.Fatalf("a question after the refused DELETE: %q %v", text(r.res), r.err)
	}
	third := call()
	isAsked()
	if code := del("2025-11-25"); code != http.StatusNoContent {
		t.Fatalf("the owner's DELETE: %d, want 204", code)
	}
	if r := wait(third); r.err == nil && !strings.Contains(text(r.res), "no answer came") {
		t.Fatalf("the question the DELETE ended: %+v", r.res)
	}
}
