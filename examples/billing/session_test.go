package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// heldUser is a person who is asked and answers only when the test says:
// each question is sent on asked, and answered with the next value of
// answers (or not at all, when the question ends first).
type heldUser struct {
	asked   chan *mcp.ElicitParams
	answers chan *mcp.ElicitResult
}

func newHeldUser() *heldUser {
	return &heldUser{asked: make(chan *mcp.ElicitParams, 4), answers: make(chan *mcp.ElicitResult, 4)}
}

func (u *heldUser) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	u.asked <- req.Params
	select {
	case a := <-u.answers:
		return a, nil
	case <-ctx.Done():
		return nil, errors.New("the question ended")
	}
}

// legacySession connects user's 2025-11-25 client to the site over HTTP,
// with the user's bearer token.
func (s *site) legacySession(t *testing.T, user string, u *heldUser) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"},
		&mcp.ClientOptions{Capabilities: bothModes, ElicitationHandler: u.handle})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: s.url + "/mcp", HTTPClient: &http.Client{Transport: bearer(user)}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// deleteSession sends DELETE for session id with user's bearer token and
// returns the status; a DELETE unanswered in 10 s fails the test.
func deleteSession(t *testing.T, s *site, id, user string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, s.url+"/mcp", nil)
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

// within waits for v on c, for at most 10 s.
func within[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s in 10 s", what)
		panic("unreachable")
	}
}

type callResult struct {
	res *mcp.CallToolResult
	err error
}

func startList(cs *mcp.ClientSession) <-chan callResult {
	done := make(chan callResult, 1)
	go func() {
		res, err := list(cs, "", nil)
		done <- callResult{res, err}
	}()
	return done
}

// TestForeignDeleteKeepsTheQuestion: issue 24, finding 3, over HTTP with
// two bearer-authenticated users. Bob's DELETE of Alice's 2025-11-25
// session is refused (403) and changes nothing: Alice's waiting question
// still takes her answer. Alice's own DELETE then ends the session at once
// (204), and her next waiting call with it. Before the fix Bob's DELETE
// ended Alice's question ("no answer came") and made the runtime forget
// her session, so her own DELETE waited for the whole answer wait.
func TestForeignDeleteKeepsTheQuestion(t *testing.T) {
	s := startSiteWith(t, "", func(c *config) { c.legacyAnswerWait = 30 * time.Second })
	alice := newHeldUser()
	cs := s.legacySession(t, "alice", alice)

	done := startList(cs)
	within(t, alice.asked, "question")
	if code := deleteSession(t, s, cs.ID(), "bob"); code != http.StatusForbidden {
		t.Fatalf("bob's DELETE of alice's session: %d, want 403", code)
	}
	alice.answers <- &mcp.ElicitResult{Action: "decline"}
	if r := within(t, done, "result"); r.err != nil || hosttest.Text(r.res) != notConnected {
		t.Fatalf("alice's answer after bob's DELETE: %q %v, want her decline's %q", hosttest.Text(r.res), r.err, notConnected)
	}

	done = startList(cs)
	within(t, alice.asked, "second question")
	if code := deleteSession(t, s, cs.ID(), "alice"); code != http.StatusNoContent {
		t.Fatalf("alice's DELETE of her session: %d, want 204", code)
	}
	if r := within(t, done, "result"); r.err == nil && !strings.Contains(hosttest.Text(r.res), "no answer came") {
		t.Fatalf("the call waiting on the deleted session: %q", hosttest.Text(r.res))
	}
}
