package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// Tasks on many instances: two report processes started with
// -http 127.0.0.1:PORT -redis URL and the same ELICITGEN_STATE_KEYS, one
// redis-server started by the test (runtime/redisstore/redistest), and a raw
// JSON-RPC client of protocol 2026-07-28 that declares the tasks extension
// on every request and sends each one to the instance the test names. A
// task runs on the instance whose tools/call created it; its tasks/get,
// tasks/update and tasks/cancel may land on either.

// TestMain removes the report binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if reportDir != "" {
		os.RemoveAll(reportDir)
	}
	os.Exit(code)
}

var (
	reportOnce sync.Once
	reportDir  string
	reportExe  string
	reportErr  error
)

// reportBinary builds the example once per test binary.
func reportBinary(t testing.TB) string {
	t.Helper()
	reportOnce.Do(func() {
		reportDir, reportErr = os.MkdirTemp("", "report-bin-")
		if reportErr != nil {
			return
		}
		reportExe, reportErr = hosttest.BuildBinary(".", filepath.Join(reportDir, "report"))
	})
	if reportErr != nil {
		t.Fatal(reportErr)
	}
	return reportExe
}

// reportInstance is one report process on a shared Redis, and a raw
// Tasks client of it.
type reportInstance struct {
	t      testing.TB
	name   string
	url    string
	cmd    *exec.Cmd
	log    *hosttest.LogBuffer
	exited chan struct{}
	err    error // the process's exit, once exited is closed
	id     atomic.Int64
}

// alive reports whether the process is still running.
func (p *reportInstance) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// startReport runs the report binary as instance name on a free port,
// sharing keys and the Redis at redisURL (none: tasks in memory), with
// flags; t's cleanup kills it.
func startReport(t testing.TB, name, keys, redisURL string, flags ...string) *reportInstance {
	t.Helper()
	addr := freeAddr(t)
	p := &reportInstance{t: t, name: name, url: "http://" + addr + "/mcp", log: &hosttest.LogBuffer{}, exited: make(chan struct{})}
	args := append([]string{"-http", addr}, flags...)
	if redisURL != "" {
		args = append(args, "-redis", redisURL)
	}
	p.cmd = exec.Command(reportBinary(t), args...)
	p.cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS="+keys, "ELICITGEN_REDIS_URL=")
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("log of %s:\n%s", name, p.log)
		}
	})
	waitListening(t, addr, p.exited, func() error { return p.err }, p.log)
	return p
}

// twoReports starts a Redis and two report processes, A and B, on it.
func twoReports(t *testing.T) (*redistest.Server, *reportInstance, *reportInstance) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a redis-server and two server processes")
	}
	srv := redistest.Start(t)
	keys := base64.StdEncoding.EncodeToString([]byte("report-instances-key-0123456789a"))
	return srv, startReport(t, "A", keys, srv.URL), startReport(t, "B", keys, srv.URL)
}

// rpcError is a JSON-RPC error on the wire.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC %d %s", e.Code, e.Message) }

const (
	tasksCaps        = `{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	codeInternal     = -32603
	codeInvalidParam = -32602
)

// call is callAs alice.
func (p *reportInstance) call(method string, params map[string]any) (map[string]any, *rpcError) {
	p.t.Helper()
	return p.callAs("alice", method, params)
}

// callAs POSTs one request of protocol 2026-07-28 as user (the example's
// stand-in bearer token is the user id), declaring the tasks extension,
// with the routing headers HTTPHandler checks; it returns the result, or
// the JSON-RPC error. A transport failure fails the test.
func (p *reportInstance) callAs(user, method string, params map[string]any) (map[string]any, *rpcError) {
	p.t.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": json.RawMessage(tasksCaps),
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "report-instances-test", "version": "0"},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": p.id.Add(1), "method": method, "params": params})
	if err != nil {
		p.t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(p.t.Context(), http.MethodPost, p.url, strings.NewReader(string(body)))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Authorization", "Bearer "+user)
	if method == "tools/call" {
		req.Header.Set("Mcp-Name", params["name"].(string))
	} else if id, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", id)
	}
	client := &http.Client{Timeout: 15 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		p.t.Fatalf("%s on %s: %v", method, p.name, err)
	}
	defer resp.Body.Close()
	var data []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				data = []byte(d)
				break
			}
		}
	} else {
		data, _ = io.ReadAll(resp.Body)
	}
	var out struct {
		Result map[string]any `json:"result"`
		Error  *rpcError      `json:"error"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		p.t.Fatalf("%s on %s: HTTP %d, %v: %q", method, p.name, resp.StatusCode, err, data)
	}
	if out.Error != nil {
		return nil, out.Error
	}
	return out.Result, nil
}

// must is call that fails the test on a JSON-RPC error.
func (p *reportInstance) must(method string, params map[string]any) map[string]any {
	p.t.Helper()
	res, err := p.call(method, params)
	if err != nil {
		p.t.Fatalf("%s on %s: %v", method, p.name, err)
	}
	return res
}

func (p *reportInstance) get(id string) map[string]any {
	p.t.Helper()
	return p.must("tasks/get", map[string]any{"taskId": id})
}

func reportArgs(topic string, seconds int) map[string]any {
	return map[string]any{"topic": topic, "seconds": seconds}
}

// startTask runs the report tool's MRTR round (the format) on first and
// its retry, with the answer, on creator, which creates the task; it
// returns the task id.
func startTask(t *testing.T, first, creator *reportInstance, args map[string]any) string {
	t.Helper()
	round := first.must("tools/call", map[string]any{"name": "report", "arguments": args})
	if round["resultType"] != "input_required" || round["taskId"] != nil {
		t.Fatalf("round 1 on %s: %v", first.name, round)
	}
	if _, ok := round["inputRequests"].(map[string]any)["format"]; !ok {
		t.Fatalf("round 1 on %s asks %v, want format", first.name, round["inputRequests"])
	}
	created := creator.must("tools/call", map[string]any{"name": "report", "arguments": args,
		"requestState":   round["requestState"],
		"inputResponses": map[string]any{"format": map[string]any{"action": "accept", "content": map[string]any{"format": "markdown"}}}})
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || created["status"] != "working" || id == "" {
		t.Fatalf("retry on %s: %v, want a CreateTaskResult", creator.name, created)
	}
	return id
}

// pollBoth polls tasks/get on a, then b, then a..., every 50 ms, until
// both see a state cond holds for, identical on both (the same record: the
// same status, message, questions, result and timestamps), or fails after
// within. Before that, the two may differ only while the task changes.
func pollBoth(t *testing.T, a, b *reportInstance, id string, within time.Duration, cond func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ga, gb := a.get(id), b.get(id)
		if cond(ga) && cond(gb) {
			if !reflect.DeepEqual(ga, gb) {
				// The record may have moved between the two reads: read
				// both again once before calling it a difference.
				ga, gb = a.get(id), b.get(id)
				if !reflect.DeepEqual(ga, gb) {
					t.Fatalf("task %s: %s and %s disagree:\n%s: %v\n%s: %v", id, a.name, b.name, a.name, ga, b.name, gb)
				}
			}
			return ga
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s after %v: %s sees %v; %s sees %v", id, within, a.name, ga, b.name, gb)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func status(s string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["status"] == s }
}

// asks is the condition of a task waiting for an answer under key.
func asks(key string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		reqs, _ := m["inputRequests"].(map[string]any)
		_, ok := reqs[key]
		return m["status"] == "input_required" && ok && len(reqs) == 1
	}
}

func taskText(t *testing.T, task map[string]any) string {
	t.Helper()
	res, _ := task["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no result content in %v", task)
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	return text
}

// answerSalaries answers the salaries question of task id through p.
func answerSalaries(t *testing.T, p *reportInstance, id string) {
	t.Helper()
	ack := p.must("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"salaries": map[string]any{"action": "accept", "content": map[string]any{"include": true}}}})
	if ack["resultType"] != "complete" {
		t.Fatalf("tasks/update on %s: %v", p.name, ack)
	}
}

// runToCompletion runs one report task end to end: the format asked on
// first, the task created on creator, polled on both, the salaries
// answered through first, completed on creator. It returns how long the
// completion took after the answer.
func runToCompletion(t *testing.T, first, creator *reportInstance, topic string) time.Duration {
	t.Helper()
	id := startTask(t, first, creator, reportArgs(topic, 1))
	asked := pollBoth(t, first, creator, id, 10*time.Second, asks("salaries"))
	if msg, _ := asked["statusMessage"].(string); !strings.Contains(msg, "Waiting for your answer") {
		t.Errorf("statusMessage while asking: %q", msg)
	}
	answered := time.Now()
	answerSalaries(t, first, id)
	done := pollBoth(t, creator, first, id, 5*time.Second, status("completed"))
	took := time.Since(answered)
	text := taskText(t, done)
	for _, want := range []string{topic, "markdown", "salaries included"} {
		if !strings.Contains(text, want) {
			t.Errorf("result %q lacks %q", text, want)
		}
	}
	return took
}

// TestTaskAcrossInstances: the report tool's format round on A, its retry
// on B creates the task (which runs on B); tasks/get on A and B see the
// same task throughout; the salaries question is answered through A, and
// the task on B completes with it promptly. Then a second task, created on
// A and working for 30 s, is cancelled through B: both see it cancelled
// within a couple of seconds, and it stays so.
func TestTaskAcrossInstances(t *testing.T) {
	_, a, b := twoReports(t)

	t.Run("answer on the other instance", func(t *testing.T) {
		a.t, b.t = t, t
		took := runToCompletion(t, a, b, "Q3 sales")
		// 3 sections of 250 ms are left after the answer.
		if took > 4*time.Second {
			t.Errorf("completed %v after the answer through A", took)
		}
		t.Logf("completed %v after the answer through A", took)
	})

	t.Run("cancel on the other instance", func(t *testing.T) {
		a.t, b.t = t, t
		id := startTask(t, b, a, reportArgs("a long one", 30))
		working := pollBoth(t, a, b, id, 5*time.Second, func(m map[string]any) bool {
			msg, _ := m["statusMessage"].(string)
			return m["status"] == "working" && strings.HasPrefix(msg, "Writing")
		})
		t.Logf("working: %v", working["statusMessage"])
		cancelled := time.Now()
		if ack := b.must("tasks/cancel", map[string]any{"taskId": id}); ack["resultType"] != "complete" {
			t.Fatalf("tasks/cancel on B: %v", ack)
		}
		// B wrote the status itself: it must see it at once.
		if got := b.get(id); got["status"] != "cancelled" {
			t.Fatalf("tasks/get on B right after its tasks/cancel: %v", got)
		}
		got := pollBoth(t, a, b, id, 2*time.Second, status("cancelled"))
		t.Logf("cancelled on both %v after tasks/cancel on B: %v", time.Since(cancelled), got["statusMessage"])
		// The Run on A stopped: nothing changes the record any more (its
		// progress would bump lastUpdatedAt; its end is not recorded over
		// the cancel).
		time.Sleep(time.Second)
		later := pollBoth(t, a, b, id, time.Second, status("cancelled"))
		if !reflect.DeepEqual(got, later) {
			t.Errorf("the cancelled task changed:\nbefore %v\nafter  %v", got, later)
		}
		if strings.Contains(a.log.String(), "task failed") {
			t.Errorf("A logged a failed task:\n%s", a.log)
		}
	})
	if !a.alive() || !b.alive() {
		t.Fatalf("an instance exited: A %v, B %v", a.err, b.err)
	}
}

// TestTaskRedisOutage: a task created on B waits for its answer; Redis is
// killed: tasks/get and tasks/update on either instance, and a retry that
// would create a task, fail with -32603 (nothing crashes); Redis comes back
// on the same port, empty (persistence off), so the waiting task is
// forgotten (-32602 on both, its Run ended by its watch); the retry
// refused during the outage, sent again as it was, creates its task; a new
// task then runs end to end across the two instances, which are still the
// same processes.
func TestTaskRedisOutage(t *testing.T) {
	srv, a, b := twoReports(t)
	id := startTask(t, a, b, reportArgs("before the outage", 1))
	pollBoth(t, a, b, id, 10*time.Second, asks("salaries"))
	// The format round before the outage, for the retry during it.
	args := reportArgs("during the outage", 1)
	round := a.must("tools/call", map[string]any{"name": "report", "arguments": args})

	srv.Stop()
	down := time.Now()
	for _, p := range []*reportInstance{a, b} {
		start := time.Now()
		_, err := p.call("tasks/get", map[string]any{"taskId": id})
		if err == nil || err.Code != codeInternal {
			t.Errorf("tasks/get on %s with Redis down: %v, want %d", p.name, err, codeInternal)
		}
		t.Logf("tasks/get on %s with Redis down: %v in %v", p.name, err, time.Since(start))
	}
	if _, err := a.call("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"salaries": map[string]any{"action": "accept", "content": map[string]any{"include": true}}}}); err == nil || err.Code != codeInternal {
		t.Errorf("tasks/update on A with Redis down: %v, want %d", err, codeInternal)
	}
	retry := map[string]any{"name": "report", "arguments": args, "requestState": round["requestState"],
		"inputResponses": map[string]any{"format": map[string]any{"action": "accept", "content": map[string]any{"format": "markdown"}}}}
	if _, err := b.call("tools/call", retry); err == nil || err.Code != codeInternal {
		t.Errorf("a task created on B with Redis down: %v, want %d", err, codeInternal)
	}
	// Polling on goes on failing alike, on both, while the instances'
	// connections (the waiting task's subscription among them) retry.
	for n := 0; time.Since(down) < 1500*time.Millisecond; n++ {
		p := []*reportInstance{a, b}[n%2]
		if _, err := p.call("tasks/get", map[string]any{"taskId": id}); err == nil || err.Code != codeInternal {
			t.Fatalf("tasks/get on %s %v after Redis went down: %v, want %d", p.name, time.Since(down), err, codeInternal)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("Redis down for %v", time.Since(down))
	if !a.alive() || !b.alive() {
		t.Fatalf("an instance exited with Redis down: A %v, B %v", a.err, b.err)
	}

	srv.Restart()
	// The empty Redis has forgotten the task.
	for _, p := range []*reportInstance{a, b} {
		if _, err := p.call("tasks/get", map[string]any{"taskId": id}); err == nil || err.Code != codeInvalidParam {
			t.Errorf("tasks/get on %s after the restart: %v, want %d unknown task", p.name, err, codeInvalidParam)
		}
	}
	// The very retry refused while Redis was down works as it was.
	created := b.must("tools/call", retry)
	if rid, _ := created["taskId"].(string); created["resultType"] != "task" || rid == "" {
		t.Fatalf("the retry refused during the outage, sent again: %v, want a CreateTaskResult", created)
	} else {
		pollBoth(t, a, b, rid, 10*time.Second, asks("salaries"))
	}
	// A new task works end to end, across the instances, both ways.
	took := runToCompletion(t, a, b, "after the outage")
	t.Logf("a task created on B after the restart completed %v after the answer through A", took)
	took = runToCompletion(t, b, a, "after the outage, the other way")
	t.Logf("a task created on A after the restart completed %v after the answer through B", took)
	if !a.alive() || !b.alive() {
		t.Fatalf("an instance exited: A %v, B %v", a.err, b.err)
	}
	for _, p := range []*reportInstance{a, b} {
		if log := p.log.String(); strings.Contains(log, "panic") {
			t.Errorf("%s logged a panic:\n%s", p.name, log)
		}
	}
	if n := srv.DBSize(); n != 3 {
		t.Errorf("Redis holds %d keys after three tasks, want 3", n)
	}
}
