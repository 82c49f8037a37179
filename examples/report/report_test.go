package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/elicittest/rawrpc"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The report tool over the real SDK: go-sdk clients of both protocol eras
// without the tasks extension (the foreground), the built binary over stdio
// spoken to by hand with the Tasks wire, and a raw in-memory client that
// answers a mid-task question wrongly first.

const (
	formatMessage   = "Which format should the report be in?"
	salariesMessage = "The report found salary data. Include the salaries section?"
)

var reportKeys = func() *elicitrt.Keyring {
	k, err := elicitrt.NewKeyring([]byte("report-test-key-0123456789abcdef"))
	if err != nil {
		panic(err)
	}
	return k
}()

func newTestServer() *mcp.Server {
	return newServer(&elicitrt.ToolOptions{Keys: reportKeys})
}

// TestReportForeground: a go-sdk client that does not declare the tasks
// extension gets the report in the foreground, in memory and over
// streamable HTTP on 127.0.0.1, on protocol 2026-07-28 (MRTR) and
// 2025-11-25 (elicitation/create): both questions asked before the work,
// then the result in the tools/call. A declined salaries question reaches
// Run (the report leaves them out); a declined format question ends in
// the Declined handler.
func TestReportForeground(t *testing.T) {
	t.Parallel()
	const want = "Report on Q3 (html): 4 sections: Summary, Revenue by region, Costs, Outlook; salaries left out."
	cases := []struct {
		name     string
		format   *mcp.ElicitResult
		salaries *mcp.ElicitResult
		want     string
		asked    []string
	}{
		{"accept", hosttest.Accept(map[string]any{"format": "html"}), hosttest.Accept(map[string]any{"include": false}),
			want, []string{formatMessage, salariesMessage}},
		{"decline salaries", hosttest.Accept(map[string]any{"format": "html"}), &mcp.ElicitResult{Action: "decline"},
			want, []string{formatMessage, salariesMessage}},
		{"decline format", &mcp.ElicitResult{Action: "decline"}, nil,
			"No report on Q3: you declined the format question.", []string{formatMessage}},
	}
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				t.Parallel()
				for _, c := range cases {
					u := &hosttest.User{Answer: func(p *mcp.ElicitParams) *mcp.ElicitResult {
						switch p.Message {
						case formatMessage:
							return c.format
						case salariesMessage:
							if c.salaries != nil {
								return c.salaries
							}
						}
						return &mcp.ElicitResult{Action: "cancel"}
					}}
					cs := hosttest.Connect(t, newTestServer, transport, era, hosttest.Options{User: u})
					start := time.Now()
					res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "report",
						Arguments: map[string]any{"topic": "Q3", "seconds": 1}})
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					if got := hosttest.Text(res); got != c.want || res.IsError {
						t.Errorf("%s: %q (isError %v), want %q", c.name, got, res.IsError, c.want)
					}
					var asked []string
					for _, p := range u.Asked {
						asked = append(asked, p.Message)
					}
					if strings.Join(asked, "|") != strings.Join(c.asked, "|") {
						t.Errorf("%s: asked %q, want %q", c.name, asked, c.asked)
					}
					t.Logf("%s: %v", c.name, time.Since(start).Round(time.Millisecond))
					cs.Close()
				}
			})
		}
	}
}

// rawWire is a raw JSON-RPC client of protocol 2026-07-28 that declares
// the tasks extension on every request.
type rawWire struct {
	t    *testing.T
	send func(method string, params map[string]any) (json.RawMessage, *rpcError)
}

func (w *rawWire) call(method string, params map[string]any) (map[string]any, *rpcError) {
	w.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": json.RawMessage(tasksCaps),
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "report-test", "version": "0"},
	}
	raw, rpcErr := w.send(method, params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		w.t.Fatalf("%s: %v in %s", method, err, raw)
	}
	return out, nil
}

func (w *rawWire) must(method string, params map[string]any) map[string]any {
	w.t.Helper()
	out, err := w.call(method, params)
	if err != nil {
		w.t.Fatalf("%s: %v", method, err)
	}
	return out
}

// poll polls tasks/get every 20 ms until cond holds, failing after within.
func (w *rawWire) poll(id string, within time.Duration, cond func(map[string]any) bool) map[string]any {
	w.t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := w.must("tasks/get", map[string]any{"taskId": id})
		if cond(got) {
			return got
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("task %s after %v: last tasks/get %v", id, within, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func acceptAnswer(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

// createTask runs the format round (MRTR) and its retry answered with
// format; it returns the task id of the CreateTaskResult.
func (w *rawWire) createTask(args map[string]any, format string) string {
	w.t.Helper()
	round := w.must("tools/call", map[string]any{"name": "report", "arguments": args})
	if round["resultType"] != "input_required" || round["taskId"] != nil {
		w.t.Fatalf("round 1: %v", round)
	}
	reqs, _ := round["inputRequests"].(map[string]any)
	req, _ := reqs["format"].(map[string]any)
	params, _ := req["params"].(map[string]any)
	if len(reqs) != 1 || req["method"] != "elicitation/create" || params["message"] != formatMessage {
		w.t.Fatalf("round 1 asks %v, want the format question alone", reqs)
	}
	if s, _ := round["requestState"].(string); s == "" {
		w.t.Fatalf("round 1 without requestState: %v", round)
	}
	created := w.must("tools/call", map[string]any{"name": "report", "arguments": args,
		"requestState":   round["requestState"],
		"inputResponses": map[string]any{"format": acceptAnswer(map[string]any{"format": format})}})
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || created["status"] != "working" || id == "" {
		w.t.Fatalf("retry: %v, want a CreateTaskResult", created)
	}
	if _, ok := created["requestState"]; ok {
		w.t.Errorf("CreateTaskResult carries requestState: %v", created)
	}
	return id
}

// askMessage is the message of the question under key in a tasks/get result.
func askMessage(task map[string]any, key string) string {
	reqs, _ := task["inputRequests"].(map[string]any)
	req, _ := reqs[key].(map[string]any)
	params, _ := req["params"].(map[string]any)
	msg, _ := params["message"].(string)
	return msg
}

// TestReportTaskOverStdio runs the built example with -stdio and speaks
// newline-delimited JSON-RPC to it by hand: discovery; a task whose format
// is asked by MRTR and whose salaries question is asked by the running
// task and answered with tasks/update; a malformed line answered -32700
// without ending the session; a long task cancelled while it works; and
// the process exits 0 when its input ends.
func TestReportTaskOverStdio(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(reportBinary(t), "-stdio")
	cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS=", "ELICITGEN_REDIS_URL=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &hosttest.LogBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("stderr of report -stdio:\n%s", stderr)
		}
	})
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var mu sync.Mutex
	write := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write to the server: %v", err)
		}
	}
	next := func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s: the server's output ended", what)
			}
			return l
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no answer within 10 s", what)
		}
		return ""
	}
	var id atomic.Int64
	w := &rawWire{t: t}
	w.send = func(method string, params map[string]any) (json.RawMessage, *rpcError) {
		mu.Lock()
		defer mu.Unlock()
		rid := id.Add(1)
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
		if err != nil {
			t.Fatal(err)
		}
		write(string(body))
		for {
			line := next(method)
			var resp struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  *rpcError       `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &resp); err != nil {
				t.Fatalf("%s: the server wrote %q: %v", method, line, err)
			}
			if resp.Method != "" || string(resp.ID) != fmt.Sprint(rid) {
				t.Logf("%s: skipping %.300s", method, line)
				continue
			}
			if resp.Error != nil {
				return nil, resp.Error
			}
			return resp.Result, nil
		}
	}

	disc := w.must("server/discover", nil)
	caps, _ := disc["capabilities"].(map[string]any)
	exts, _ := caps["extensions"].(map[string]any)
	if _, ok := exts["io.modelcontextprotocol/tasks"]; !ok {
		t.Fatalf("server/discover: capabilities.extensions lacks io.modelcontextprotocol/tasks: %v", disc)
	}

	// A task end to end, with a malformed line while it works.
	taskStart := time.Now()
	tid := w.createTask(map[string]any{"topic": "Q3", "seconds": 1}, "markdown")
	mu.Lock()
	write("{not json}")
	if got, want := next("after {not json}"), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`; got != want {
		mu.Unlock()
		t.Fatalf("answer to {not json}: %s, want %s", got, want)
	}
	mu.Unlock()
	asked := w.poll(tid, 10*time.Second, asks("salaries"))
	if msg, _ := asked["statusMessage"].(string); !strings.Contains(msg, "Waiting") {
		t.Errorf("statusMessage while asking: %q", msg)
	}
	if msg := askMessage(asked, "salaries"); msg != salariesMessage {
		t.Errorf("salaries question %q", msg)
	}
	ack := w.must("tasks/update", map[string]any{"taskId": tid,
		"inputResponses": map[string]any{"salaries": acceptAnswer(map[string]any{"include": true})}})
	if ack["resultType"] != "complete" {
		t.Errorf("tasks/update ack: %v", ack)
	}
	done := w.poll(tid, 10*time.Second, status("completed"))
	text := taskText(t, done)
	for _, want := range []string{"Report on Q3", "markdown", "salaries included"} {
		if !strings.Contains(text, want) {
			t.Errorf("result %q lacks %q", text, want)
		}
	}
	if want := "Report on Q3 (markdown): 5 sections: Summary, Revenue by region, Salaries, Costs, Outlook; salaries included."; text != want {
		t.Errorf("result %q, want %q", text, want)
	}
	t.Logf("task completed in %v: %q", time.Since(taskStart).Round(time.Millisecond), text)

	// A long task, cancelled as soon as it is working.
	long := w.createTask(map[string]any{"topic": "Q3", "seconds": 30}, "text")
	working := w.poll(long, 5*time.Second, func(m map[string]any) bool {
		msg, _ := m["statusMessage"].(string)
		return m["status"] == "working" && strings.HasPrefix(msg, "Writing")
	})
	t.Logf("working: %v", working["statusMessage"])
	if ack := w.must("tasks/cancel", map[string]any{"taskId": long}); ack["resultType"] != "complete" {
		t.Errorf("tasks/cancel ack: %v", ack)
	}
	if got := w.must("tasks/get", map[string]any{"taskId": long}); got["status"] != "cancelled" {
		t.Errorf("tasks/get right after tasks/cancel: %v", got)
	}
	// It stays cancelled once Run has seen its context end.
	time.Sleep(300 * time.Millisecond)
	if got := w.must("tasks/get", map[string]any{"taskId": long}); got["status"] != "cancelled" {
		t.Errorf("tasks/get 300 ms after tasks/cancel: %v", got)
	}

	// The end of the input ends the process, with status 0.
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after the input ended: %v", err)
		}
		exited <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10 s after its input ended")
	}
}

// memoryWire serves server over the in-memory transport to a raw JSON-RPC
// client.
func memoryWire(t *testing.T, server *mcp.Server) *rawWire {
	t.Helper()
	conn := rawrpc.Memory(t, server)
	w := &rawWire{t: t}
	w.send = func(method string, params map[string]any) (json.RawMessage, *rpcError) {
		result, je, err := conn.Call(method, params)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if je != nil {
			return nil, &rpcError{Code: je.Code, Message: je.Message, Data: je.Data}
		}
		return result, nil
	}
	return w
}

// TestReportInvalidAnswerInTask: in memory, a task's salaries question
// answered with {"include":"yes"} never reaches Run: it is asked again
// under "salaries.2" with the reason; the valid answer to that completes
// the task.
func TestReportInvalidAnswerInTask(t *testing.T) {
	t.Parallel()
	w := memoryWire(t, newTestServer())
	w.must("server/discover", nil)
	id := w.createTask(map[string]any{"topic": "Q3", "seconds": 1}, "html")
	w.poll(id, 10*time.Second, asks("salaries"))
	w.must("tasks/update", map[string]any{"taskId": id,
		"inputResponses": map[string]any{"salaries": acceptAnswer(map[string]any{"include": "yes"})}})
	again := w.poll(id, 5*time.Second, asks("salaries.2"))
	msg := askMessage(again, "salaries.2")
	if !strings.Contains(msg, "Please correct") || !strings.Contains(msg, "include") {
		t.Errorf("asked again with %q, want the reason (Please correct ... include ...)", msg)
	}
	t.Logf("asked again: %q", msg)
	w.must("tasks/update", map[string]any{"taskId": id,
		"inputResponses": map[string]any{"salaries.2": acceptAnswer(map[string]any{"include": false})}})
	done := w.poll(id, 10*time.Second, status("completed"))
	if got, want := taskText(t, done), "Report on Q3 (html): 4 sections: Summary, Revenue by region, Costs, Outlook; salaries left out."; got != want {
		t.Errorf("result %q, want %q", got, want)
	}
}
