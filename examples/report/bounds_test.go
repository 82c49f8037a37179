package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// Tasks belong to users, and the bounds on them are per user and per
// process (docs/guide/tasks.md#bounds): the built binary over HTTP on 127.0.0.1,
// with users told apart by their bearer tokens, in memory and on a real
// redis-server.

// long is how many seconds the tasks of these tests work: still running
// when the test ends.
const long = 60

// A task bound's refusal as a client sees it: JSON-RPC error -32029 with
// the bound's name in data.limit (docs/tasks.md).
const (
	codeTaskLimit     = -32029
	limitPerPrincipal = "tasksPerPrincipal"
	limitRunning      = "runningTasks"
)

var boundKeys = base64.StdEncoding.EncodeToString([]byte("report-bounds-key-0123456789abcd"))

// formatRound runs the format round as user on p and returns the retry's
// params, which create a task that works for seconds (asking midway).
func formatRound(t testing.TB, p *reportInstance, user string, seconds int) map[string]any {
	t.Helper()
	args := reportArgs("bounds", seconds)
	round, err := p.callAs(user, "tools/call", map[string]any{"name": "report", "arguments": args})
	if err != nil || round["resultType"] != "input_required" {
		t.Fatalf("format round as %s on %s: %v %v", user, p.name, round, err)
	}
	return map[string]any{"name": "report", "arguments": args, "requestState": round["requestState"],
		"inputResponses": map[string]any{"format": acceptAnswer(map[string]any{"format": "text"})}}
}

// createAs creates a task as user on p that works for seconds, and
// returns its id.
func createAs(t testing.TB, p *reportInstance, user string, seconds int) string {
	t.Helper()
	created, err := p.callAs(user, "tools/call", formatRound(t, p, user, seconds))
	id, _ := created["taskId"].(string)
	if err != nil || created["resultType"] != "task" || id == "" {
		t.Fatalf("a task as %s on %s: %v %v", user, p.name, created, err)
	}
	return id
}

// refusedAs fails the test unless creating a task as user on p is refused
// by bound limit (-32029, data.limit), with a message saying what to do.
func refusedAs(t *testing.T, p *reportInstance, user, limit, todo string) {
	t.Helper()
	created, err := p.callAs(user, "tools/call", formatRound(t, p, user, long))
	var data struct {
		Limit string `json:"limit"`
	}
	if err == nil || err.Code != codeTaskLimit || json.Unmarshal(err.Data, &data) != nil || data.Limit != limit || !strings.Contains(err.Message, todo) {
		t.Fatalf("a task as %s on %s: %v %v, want the %s refusal saying %q", user, p.name, created, err, limit, todo)
	}
}

// TestReportAuthenticates: the example serves MCP to callers with a bearer
// token only (401 without), and a task is its creator's: another user's
// tasks/get of it is "unknown task".
func TestReportAuthenticates(t *testing.T) {
	p := startReport(t, "A", boundKeys, "")
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, p.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without a bearer token: HTTP %d %s, want 401", resp.StatusCode, data)
	}
	id := createAs(t, p, "alice", long)
	if _, err := p.callAs("bob", "tasks/get", map[string]any{"taskId": id}); err == nil || err.Code != codeInvalidParam {
		t.Errorf("bob's tasks/get of alice's task: %v, want %d unknown task", err, codeInvalidParam)
	}
	if got, err := p.callAs("alice", "tasks/get", map[string]any{"taskId": id}); err != nil || got["taskId"] != id {
		t.Errorf("alice's tasks/get of her task: %v %v", got, err)
	}
}

// TestReportBoundPerUser: finding 1 of issue 24 from outside. Alice fills
// her bound (-max-tasks-per-user 2); her next task is refused with -32029
// naming the bound and tasks/cancel, while bob still gets a task; once
// alice cancels one, she gets a task again.
func TestReportBoundPerUser(t *testing.T) {
	p := startReport(t, "A", boundKeys, "", "-max-tasks-per-user", "2")
	first := createAs(t, p, "alice", long)
	createAs(t, p, "alice", long)
	refusedAs(t, p, "alice", limitPerPrincipal, "tasks/cancel")
	createAs(t, p, "bob", long)
	if _, err := p.callAs("alice", "tasks/cancel", map[string]any{"taskId": first}); err != nil {
		t.Fatalf("tasks/cancel: %v", err)
	}
	createAs(t, p, "alice", long)
	refusedAs(t, p, "alice", limitPerPrincipal, "tasks/cancel")
}

// TestReportRunningBoundOnRedis: finding 2 of issue 24 from outside. With
// the tasks on a real redis-server, the process still bounds the tasks it
// runs (-max-running-tasks 2): on A, alice's and bob's tasks leave no room
// for carol's (-32029, runningTasks); B, another process on the same
// Redis, runs hers. Once alice cancels hers through B, A has room again.
func TestReportRunningBoundOnRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a redis-server and two server processes")
	}
	srv := redistest.Start(t)
	a := startReport(t, "A", boundKeys, srv.URL, "-max-running-tasks", "2")
	b := startReport(t, "B", boundKeys, srv.URL, "-max-running-tasks", "2")
	mine := createAs(t, a, "alice", long)
	createAs(t, a, "bob", long)
	refusedAs(t, a, "carol", limitRunning, "call again later")
	createAs(t, b, "carol", long)
	if _, err := b.callAs("alice", "tasks/cancel", map[string]any{"taskId": mine}); err != nil {
		t.Fatalf("tasks/cancel on B: %v", err)
	}
	// A learns of the cancel through Redis and its task's goroutines
	// return: then carol's retry, sent again as is, creates her task.
	retry := formatRound(t, a, "carol", long)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		created, err := a.callAs("carol", "tools/call", retry)
		if err == nil && created["resultType"] == "task" {
			break
		}
		if err == nil || err.Code != codeTaskLimit || time.Now().After(deadline) {
			t.Fatalf("carol's task on A after alice's ended: %v %v", created, err)
		}
	}
	refusedAs(t, a, "dave", limitRunning, "call again later")
}
