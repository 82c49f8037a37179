package machine_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/serve"
)

// foreignDeleteBearer sends the bearer token of a user: the user id
// itself, as foreignDeleteServer's stand-in authentication takes it.
type foreignDeleteBearer string

func (b foreignDeleteBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// foreignDeleteServer serves countServer over HTTP behind the SDK's
// bearer authentication, whose token is the user id; a 2025-11-25 call
// waits up to wait for its answer.
func foreignDeleteServer(t *testing.T, wait time.Duration) string {
	t.Helper()
	verify := func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		if token == "" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
	}
	server := countServer(&elicitrt.ToolOptions{LegacyAnswerWait: wait, Logger: billingServerQuiet})
	srv := httptest.NewServer(auth.RequireBearerToken(verify, nil)(
		serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// foreignDeleteHeld is a person who is asked and answers only when the
// test says: each question is sent on asked, and answered with the next
// value of answers (or not at all, when the question ends first).
type foreignDeleteHeld struct {
	asked   chan *mcp.ElicitParams
	answers chan *mcp.ElicitResult
}

// connect is the person's 2025-11-25 client, as user, to endpoint.
func (u *foreignDeleteHeld) connect(t *testing.T, endpoint, user string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			u.asked <- req.Params
			select {
			case a := <-u.answers:
				return a, nil
			case <-ctx.Done():
				return nil, errors.New("the question ended")
			}
		}})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: endpoint, HTTPClient: &http.Client{Transport: foreignDeleteBearer(user)}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// foreignDeleteSession sends DELETE for session id with user's bearer
// token and returns the status; a DELETE unanswered in 10 s fails the
// test.
func foreignDeleteSession(t *testing.T, endpoint, id, user string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, endpoint, nil)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+user)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s's DELETE: %v", user, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// foreignDeleteWithin waits for v on c, for at most 10 s.
func foreignDeleteWithin[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s in 10 s", what)
		panic("unreachable")
	}
}

type foreignDeleteResult struct {
	res *mcp.CallToolResult
	err error
}

func foreignDeleteCall(cs *mcp.ClientSession) <-chan foreignDeleteResult {
	done := make(chan foreignDeleteResult, 1)
	go func() {
		res, err := callCount(cs)
		done <- foreignDeleteResult{res, err}
	}()
	return done
}

// TestForeignDeleteKeepsTheQuestion: over HTTP with two
// bearer-authenticated users, Bob's DELETE of Alice's 2025-11-25 session
// is refused (403) and changes nothing: Alice's waiting question still
// takes her answer. Alice's own DELETE then ends the session at once
// (204), and her next waiting call with it. Before the fix Bob's DELETE
// ended Alice's question ("no answer came") and made the runtime forget
// her session, so her own DELETE waited for the whole answer wait.
func TestForeignDeleteKeepsTheQuestion(t *testing.T) {
	endpoint := foreignDeleteServer(t, 30*time.Second)
	alice := &foreignDeleteHeld{asked: make(chan *mcp.ElicitParams, 4), answers: make(chan *mcp.ElicitResult, 4)}
	cs := alice.connect(t, endpoint, "alice")

	done := foreignDeleteCall(cs)
	foreignDeleteWithin(t, alice.asked, "question")
	if code := foreignDeleteSession(t, endpoint, cs.ID(), "bob"); code != http.StatusForbidden {
		t.Fatalf("bob's DELETE of alice's session: %d, want 403", code)
	}
	alice.answers <- &mcp.ElicitResult{Action: "decline"}
	if r := foreignDeleteWithin(t, done, "result"); r.err != nil || text(r.res) != "decline" {
		t.Fatalf("alice's answer after bob's DELETE: %q %v, want her decline", text(r.res), r.err)
	}

	done = foreignDeleteCall(cs)
	foreignDeleteWithin(t, alice.asked, "second question")
	if code := foreignDeleteSession(t, endpoint, cs.ID(), "alice"); code != http.StatusNoContent {
		t.Fatalf("alice's DELETE of her session: %d, want 204", code)
	}
	if r := foreignDeleteWithin(t, done, "result"); r.err == nil && !strings.Contains(text(r.res), "no answer came") {
		t.Fatalf("the call waiting on the deleted session: %q", text(r.res))
	}
}
