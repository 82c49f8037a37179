package tasks_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
	"github.com/elicitgen/elicitgen/internal/testkit/procserver"
	"github.com/elicitgen/elicitgen/internal/testkit/rss"
)

// TestMain removes the report command the benchmark builds.
func TestMain(m *testing.M) { os.Exit(procserver.Main(m)) }

// BenchmarkWaitingTaskRSS measures a waiting task as an attacker from
// outside would: it creates b.N tasks over HTTP in the built report
// command (procserver/report, serving a task tool as an example's main
// does), each waiting for its salaries answer, and reports the resident
// memory they add to that process (rss-KiB/task: VmRSS of
// /proc/PID/status, after less before, the process's first task already
// waiting in the baseline). The figure behind elicitrt.DefaultMaxRunningTasks
// is of go test ./internal/tasks -run '^$' -bench WaitingTaskRSS -benchtime 2000x.
func BenchmarkWaitingTaskRSS(b *testing.B) {
	const unbounded = "1000000"
	p := procserver.Start(b, "report", "-max-tasks-per-user", unbounded, "-max-running-tasks", unbounded)
	waitAsking(b, p.URL, rssCreate(b, p.URL, 1))
	before := residentKiB(b, p.Cmd.Process.Pid)
	var last string
	for b.Loop() {
		last = rssCreate(b, p.URL, 1) // asks after half a second
	}
	b.StopTimer()
	waitAsking(b, p.URL, last)
	b.ReportMetric(float64(residentKiB(b, p.Cmd.Process.Pid)-before)/float64(b.N), "rss-KiB/task")
}

// rssCall POSTs one 2026-07-28 request as alice (the bearer token is the
// user id), declaring form elicitation and the tasks extension, with the
// routing headers; it returns the result, or fails on a JSON-RPC error.
func rssCall(tb testing.TB, url, method, name string, params map[string]any) map[string]any {
	tb.Helper()
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}},
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		tb.Fatal(err)
	}
	header := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name, "Authorization": "Bearer alice"}
	status, _, data := httpt.PostWith(tb, &http.Client{Timeout: 15 * time.Second}, url, header, string(body))
	var out struct {
		Result map[string]any  `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Result == nil {
		tb.Fatalf("%s: HTTP %d %.300s", method, status, data)
	}
	return out.Result
}

// rssCreate answers the format round of report and returns the id of the
// task the retry creates, which works for seconds (asking midway).
func rssCreate(tb testing.TB, url string, seconds int) string {
	tb.Helper()
	args := map[string]any{"topic": "bounds", "seconds": seconds}
	round := rssCall(tb, url, "tools/call", "report", map[string]any{"name": "report", "arguments": args})
	if round["resultType"] != "input_required" {
		tb.Fatalf("format round: %v", round)
	}
	created := rssCall(tb, url, "tools/call", "report", map[string]any{"name": "report", "arguments": args, "requestState": round["requestState"],
		"inputResponses": map[string]any{"format": map[string]any{"action": "accept", "content": map[string]any{"format": "text"}}}})
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || id == "" {
		tb.Fatalf("a task: %v", created)
	}
	return id
}

// waitAsking waits (at most 10 s) until task id asks its salaries
// question, and only it.
func waitAsking(tb testing.TB, url, id string) {
	tb.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got := rssCall(tb, url, "tasks/get", id, map[string]any{"taskId": id})
		reqs, _ := got["inputRequests"].(map[string]any)
		if _, ok := reqs["salaries"]; ok && got["status"] == "input_required" && len(reqs) == 1 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("task %s does not ask: %v", id, got)
		}
	}
}

// residentKiB is process pid's resident memory (VmRSS), in KiB.
func residentKiB(tb testing.TB, pid int) int64 {
	tb.Helper()
	n, err := rss.KiB(pid)
	if errors.Is(err, rss.ErrUnavailable) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(fmt.Errorf("resident memory of the report process: %w", err))
	}
	return n
}
