package tasks

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/internal/transport"
	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
	"github.com/elicitgen/elicitgen/internal/testkit/rss"
	"github.com/elicitgen/elicitgen/runtime/elicittest/rawrpc"
)

// The tests of MCP Tasks (task.go, taskwire.go, taskstore.go) drive a
// hand-written task tool, "brew", over the real SDK server: in memory (raw
// JSON-RPC on the in-memory transport) and over streamable HTTP on
// 127.0.0.1 (raw POSTs through HTTPHandler), with the wire a Tasks client
// sends. Its steps: "size" (a form asked before the task starts, MRTR),
// then, while the task runs, "sugar" and "milk" (during; milk together
// with sugar when the arguments say "both").

type brewArgs struct {
	Wait  int    `json:"wait,omitempty"`  // milliseconds of work before asking
	Both  bool   `json:"both,omitempty"`  // ask sugar and milk together
	Panic bool   `json:"panic,omitempty"` // panic in Run
	Fail  string `json:"fail,omitempty"`  // "rpc" or "plain": return an error
	Size  string `json:"size,omitempty"`  // answers the size step
}

func brewForm(prop, typ string, enum ...string) func(string) *mcp.ElicitParams {
	schema := map[string]any{"type": "object", "required": []string{prop},
		"properties": map[string]any{prop: map[string]any{"type": typ}}}
	if enum != nil {
		schema["properties"].(map[string]any)[prop].(map[string]any)["enum"] = enum
	}
	return func(msg string) *mcp.ElicitParams {
		return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
	}
}

func brewCheck(prop string, valid func(any) bool) func(map[string]any) error {
	return func(c map[string]any) error {
		if v, ok := c[prop]; !ok || !valid(v) {
			return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: prop, Reason: "is missing or invalid"}}}
		}
		return nil
	}
}

func isBool(v any) bool { _, ok := v.(bool); return ok }

// brewRun records how its runs ended, for the tests to wait on.
type brewRun struct {
	ended chan error // Run's error (nil when it returned a result)
}

func brewTool(support machine.TaskSupport, opts *elicitrt.ToolOptions, runs *brewRun) func(*mcp.Server) {
	return func(s *mcp.Server) {
		steps := []machine.Step{
			{Key: "size", Mode: machine.ModeForm, Message: "Which size?", Params: brewForm("size", "string", "small", "large"),
				Prefill: []string{"size"}, PrefillNeeds: []string{"size"},
				Check: brewCheck("size", func(v any) bool { return v == "small" || v == "large" })},
			{Key: "sugar", Mode: machine.ModeForm, Message: "Sugar?", During: true, Params: brewForm("sugar", "boolean"), Check: brewCheck("sugar", isBool)},
			{Key: "milk", Mode: machine.ModeForm, Message: "Milk?", During: true, Together: true, Params: brewForm("milk", "boolean"), Check: brewCheck("milk", isBool)},
		}
		flow := machine.Flow{
			Tasks: support,
			Ended: func(_ context.Context, _ *mcp.CallToolRequest, _ any, step int, action string, _ machine.Answers) (*mcp.CallToolResult, error) {
				return elicitrt.Text(fmt.Sprintf("ended at %d: %s", step, action)), nil
			},
			Run: func(ctx context.Context, task *machine.Task, _ *mcp.CallToolRequest, a any, answers machine.Answers) (res *mcp.CallToolResult, err error) {
				args := a.(brewArgs)
				if runs != nil {
					defer func() { runs.ended <- err }()
				}
				if err := task.Progress(ctx, "grinding"); err != nil {
					return nil, err
				}
				if args.Panic {
					panic("boom")
				}
				switch args.Fail {
				case "rpc":
					return nil, &jsonrpc.Error{Code: 4242, Message: "no beans"}
				case "plain":
					return nil, errors.New("the grinder jammed")
				}
				select {
				case <-time.After(time.Duration(args.Wait) * time.Millisecond):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				steps := []int{1}
				if args.Both {
					steps = []int{1, 2}
				}
				r, err := task.Ask(ctx, steps...)
				if err != nil {
					return nil, err
				}
				if r.Outcome != elicitrt.Accepted {
					return elicitrt.Text(fmt.Sprintf("%s at %d", r.Outcome, r.Step)), nil
				}
				text := fmt.Sprintf("%s coffee, sugar=%v", answers[0]["size"], r.Content(1)["sugar"])
				if args.Both {
					text += fmt.Sprintf(", milk=%v", r.Content(2)["milk"])
				}
				return elicitrt.Text(text + ", task=" + task.ID()), nil
			},
		}
		m := machine.NewMachine("brew", steps, flow, opts)
		if support != machine.TaskForbidden { // as elicitimpl.AddTool does
			Enable(s, m)
		}
		machine.AddTool[brewArgs](s, &mcp.Tool{Name: "brew", InputSchema: json.RawMessage(`{"type":"object","properties":{"size":{"type":"string"},"wait":{"type":"integer"},"both":{"type":"boolean"},"panic":{"type":"boolean"},"fail":{"type":"string"}}}`)}, m)
	}
}

// taskWire is a raw JSON-RPC client of protocol 2026-07-28, in memory or
// over HTTP; caps are the client capabilities it declares per request.
type taskWire struct {
	t     testing.TB
	caps  string
	send  func(method string, params map[string]any, header map[string]string) (json.RawMessage, *jsonrpc.Error)
	close func()
}

const capsTasks = `{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
const capsNoTasks = `{"elicitation":{"form":{}}}`

func (w *taskWire) call(method string, params map[string]any) (map[string]any, *jsonrpc.Error) {
	w.t.Helper()
	raw, rpcErr := w.callRaw(method, params, nil)
	if rpcErr != nil {
		return nil, rpcErr
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		w.t.Fatalf("%s: %v in %s", method, err, raw)
	}
	return out, nil
}

func (w *taskWire) callRaw(method string, params map[string]any, header map[string]string) (json.RawMessage, *jsonrpc.Error) {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": json.RawMessage(w.caps),
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "tasks-test", "version": "0"},
	}
	return w.send(method, params, header)
}

// must is call that fails the test on a JSON-RPC error.
func (w *taskWire) must(method string, params map[string]any) map[string]any {
	w.t.Helper()
	out, err := w.call(method, params)
	if err != nil {
		w.t.Fatalf("%s: %v", method, err)
	}
	return out
}

// memoryWire serves setup's server over the in-memory transport.
func memoryWire(t testing.TB, caps string, setup ...func(*mcp.Server)) *taskWire {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "v0"}, nil)
	for _, f := range setup {
		f(srv)
	}
	conn := rawrpc.Memory(t, srv)
	w := &taskWire{t: t, caps: caps, close: conn.Close}
	w.send = func(method string, params map[string]any, _ map[string]string) (json.RawMessage, *jsonrpc.Error) {
		result, rpcErr, err := conn.Call(method, params)
		if err != nil {
			w.t.Fatalf("%s: %v", method, err)
		}
		return result, rpcErr
	}
	// The modern handshake: server/discover, no initialize.
	w.must("server/discover", nil)
	return w
}

// httpWire serves setup's server through HTTPHandler on 127.0.0.1; token,
// when set, is sent as a bearer token to a verifier that knows tok-alice
// and tok-bob.
func httpWire(t *testing.T, caps, token string, setup ...func(*mcp.Server)) *taskWire {
	t.Helper()
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		user, ok := strings.CutPrefix(tok, "tok-")
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
	}
	url := httpTServe(t, func(h http.Handler) http.Handler {
		return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{})(h)
	}, setup...)
	return httpWireAt(t, url, caps, token)
}

func httpWireAt(t *testing.T, url, caps, token string) *taskWire {
	var id atomic.Int64
	w := &taskWire{t: t, caps: caps, close: func() {}}
	w.send = func(method string, params map[string]any, extra map[string]string) (json.RawMessage, *jsonrpc.Error) {
		header := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
		if token != "" {
			header["Authorization"] = "Bearer " + token
		}
		switch method {
		case "tools/call":
			header["Mcp-Name"], _ = params["name"].(string)
		case taskrun.MethodTasksGet, taskrun.MethodTasksUpdate, taskrun.MethodTasksCancel:
			header["Mcp-Name"], _ = params["taskId"].(string)
		}
		for k, v := range extra {
			header[k] = v
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id.Add(1), "method": method, "params": params})
		status, _, data := httpt.Post(t, url+"/", header, string(body))
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  *jsonrpc.Error  `json:"error"`
		}
		if err := json.Unmarshal(data, &resp); err != nil {
			t.Fatalf("%s: HTTP %d, %v: %q", method, status, err, data)
		}
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	}
	return w
}

// bothWires runs f over memory and HTTP.
func bothWires(t *testing.T, caps string, setup func(*mcp.Server), f func(t *testing.T, w *taskWire)) {
	t.Run("memory", func(t *testing.T) { f(t, memoryWire(t, caps, setup)) })
	t.Run("http", func(t *testing.T) { f(t, httpWire(t, caps, "tok-alice", setup)) })
}

func accept(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

// startBrew runs the MRTR round of "size" and returns the tools/call
// result of its retry.
func startBrew(t *testing.T, w *taskWire, args map[string]any) map[string]any {
	t.Helper()
	first := w.must("tools/call", map[string]any{"name": "brew", "arguments": args})
	if first["resultType"] != "input_required" || first["taskId"] != nil {
		t.Fatalf("round 1: %v", first)
	}
	if _, ok := first["inputRequests"].(map[string]any)["size"]; !ok {
		t.Fatalf("round 1 asks %v, want size", first["inputRequests"])
	}
	return w.must("tools/call", map[string]any{"name": "brew", "arguments": args,
		"inputResponses": map[string]any{"size": accept(map[string]any{"size": "large"})}, "requestState": first["requestState"]})
}

// pollUntil polls tasks/get until cond holds (or 10 s pass).
func pollUntil(t *testing.T, w *taskWire, id string, cond func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": id})
		if cond(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: last tasks/get %v", id, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func hasStatus(s backend.TaskStatus) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["status"] == string(s) }
}

func resultText(t *testing.T, task map[string]any) string {
	t.Helper()
	res, _ := task["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no result content in %v", task)
	}
	return content[0].(map[string]any)["text"].(string)
}

// The whole protocol surface of one task with a question asked while it
// runs: MRTR before the task, a flat CreateTaskResult without
// requestState, tasks/get in input_required, an invalid answer asked again
// under a new key with the reason, the result inlined with resultType
// "complete", tasks/update and tasks/cancel acks.
func TestTaskLifecycle(t *testing.T) {
	bothWires(t, capsTasks, brewTool(machine.TaskOptional, nil, nil), func(t *testing.T, w *taskWire) {
		created := startBrew(t, w, map[string]any{})
		if created["resultType"] != "task" || created["status"] != "working" {
			t.Fatalf("CreateTaskResult: %v", created)
		}
		for _, absent := range []string{"requestState", "inputRequests", "result", "error", "task", "ttl", "pollInterval", "content"} {
			if _, ok := created[absent]; ok {
				t.Errorf("CreateTaskResult carries %q: %v", absent, created)
			}
		}
		for _, ts := range []string{"createdAt", "lastUpdatedAt"} {
			if _, err := time.Parse(time.RFC3339Nano, created[ts].(string)); err != nil {
				t.Errorf("%s: %v", ts, err)
			}
		}
		if created["ttlMs"] != float64(elicitrt.DefaultTaskTTL.Milliseconds()) || created["pollIntervalMs"] != float64(elicitrt.DefaultTaskPollInterval.Milliseconds()) {
			t.Errorf("ttlMs %v pollIntervalMs %v", created["ttlMs"], created["pollIntervalMs"])
		}
		id := created["taskId"].(string)
		if len(id) != 22 {
			t.Errorf("task id %q: want 128 bits in base64url", id)
		}
		asked := pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
		if asked["resultType"] != "complete" || asked["statusMessage"] != taskrun.WaitingPrefix+"Sugar?" {
			t.Errorf("tasks/get: %v", asked)
		}
		req, ok := asked["inputRequests"].(map[string]any)["sugar"].(map[string]any)
		if !ok || req["method"] != "elicitation/create" {
			t.Fatalf("inputRequests: %v", asked["inputRequests"])
		}
		// An answer that is invalid, and one under a key never asked.
		ack := w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{
			"sugar": accept(map[string]any{"sugar": "yes"}), "unknown": map[string]any{"ignored": true}}})
		if !isAck(ack) {
			t.Errorf("tasks/update ack: %v", ack)
		}
		again := pollUntil(t, w, id, func(m map[string]any) bool {
			reqs, _ := m["inputRequests"].(map[string]any)
			_, ok := reqs["sugar.2"]
			return ok
		})
		msg := again["inputRequests"].(map[string]any)["sugar.2"].(map[string]any)["params"].(map[string]any)["message"].(string)
		if !strings.Contains(msg, "Please correct: sugar: is missing or invalid") {
			t.Errorf("re-ask message %q", msg)
		}
		// The first key is spent: answering it again changes nothing.
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
		if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": id}); got["status"] != "input_required" {
			t.Fatalf("after a spent key: %v", got)
		}
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar.2": accept(map[string]any{"sugar": true})}})
		done := pollUntil(t, w, id, hasStatus(backend.TaskCompleted))
		if got := resultText(t, done); got != "large coffee, sugar=true, task="+id {
			t.Errorf("result %q", got)
		}
		if done["result"].(map[string]any)["resultType"] != "complete" {
			t.Errorf("inlined result lacks resultType complete: %v", done["result"])
		}
		if _, ok := done["inputRequests"]; ok {
			t.Errorf("completed task still asks: %v", done)
		}
		// Cancelling an ended task is acknowledged and changes nothing.
		if ack := w.must(taskrun.MethodTasksCancel, map[string]any{"taskId": id}); !isAck(ack) {
			t.Errorf("tasks/cancel ack: %v", ack)
		}
		if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": id}); got["status"] != "completed" {
			t.Errorf("after cancel of an ended task: %v", got)
		}
	})
}

// Two questions asked together may be answered one at a time: the task
// stays input_required with only the unanswered key until both are in.
func TestTaskPartialAnswers(t *testing.T) {
	bothWires(t, capsTasks, brewTool(machine.TaskOptional, nil, nil), func(t *testing.T, w *taskWire) {
		id := startBrew(t, w, map[string]any{"both": true})["taskId"].(string)
		asked := pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
		if n := len(asked["inputRequests"].(map[string]any)); n != 2 {
			t.Fatalf("inputRequests %v", asked["inputRequests"])
		}
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"milk": accept(map[string]any{"milk": false})}})
		left := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": id})
		keys := left["inputRequests"].(map[string]any)
		if left["status"] != "input_required" || len(keys) != 1 || keys["sugar"] == nil {
			t.Fatalf("after a partial answer: %v", left)
		}
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
		if got := resultText(t, pollUntil(t, w, id, hasStatus(backend.TaskCompleted))); !strings.HasPrefix(got, "large coffee, sugar=true, milk=false") {
			t.Errorf("result %q", got)
		}
	})
}

// A decline inside a task reaches Run as a typed outcome.
func TestTaskDecline(t *testing.T) {
	bothWires(t, capsTasks, brewTool(machine.TaskOptional, nil, nil), func(t *testing.T, w *taskWire) {
		id := startBrew(t, w, map[string]any{})["taskId"].(string)
		pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": map[string]any{"action": "decline"}}})
		if got := resultText(t, pollUntil(t, w, id, hasStatus(backend.TaskCompleted))); got != "decline at 1" {
			t.Errorf("result %q", got)
		}
	})
}

// Errors: a JSON-RPC error fails the task with it; a panic or any other
// error fails it with an internal error (details in the log only).
func TestTaskFailures(t *testing.T) {
	bothWires(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Logger: discardLogger()}, nil), func(t *testing.T, w *taskWire) {
		for _, c := range []struct {
			args map[string]any
			code float64
		}{{map[string]any{"fail": "rpc"}, 4242}, {map[string]any{"fail": "plain"}, -32603}, {map[string]any{"panic": true}, -32603}} {
			id := startBrew(t, w, c.args)["taskId"].(string)
			failed := pollUntil(t, w, id, func(m map[string]any) bool { return m["status"] != "working" })
			if failed["status"] != "failed" || failed["result"] != nil {
				t.Fatalf("%v: %v", c.args, failed)
			}
			if e := failed["error"].(map[string]any); e["code"] != c.code || e["message"] == "" {
				t.Errorf("%v: error %v", c.args, e)
			}
			if strings.Contains(fmt.Sprint(failed), "jammed") || strings.Contains(fmt.Sprint(failed), "boom") {
				t.Errorf("%v: internal details reach the client: %v", c.args, failed)
			}
		}
	})
}

// A client without the extension gets an optional task tool in the
// foreground (every step asked in MRTR rounds before Run), and -32021 from
// a required one and from tasks/*.
func TestTaskWithoutExtension(t *testing.T) {
	bothWires(t, capsNoTasks, brewTool(machine.TaskOptional, nil, nil), func(t *testing.T, w *taskWire) {
		second := startBrew(t, w, map[string]any{})
		if second["resultType"] != "input_required" || second["taskId"] != nil {
			t.Fatalf("round 2: %v", second)
		}
		if _, ok := second["inputRequests"].(map[string]any)["sugar"]; !ok {
			t.Fatalf("round 2 asks %v, want sugar", second["inputRequests"])
		}
		done := w.must("tools/call", map[string]any{"name": "brew", "arguments": map[string]any{},
			"inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": false}), "milk": accept(map[string]any{"milk": true})}, "requestState": second["requestState"]})
		content, _ := done["content"].([]any)
		if done["resultType"] != "complete" || len(content) != 1 || content[0].(map[string]any)["text"] != "large coffee, sugar=false, task=" {
			t.Errorf("foreground result: %v", done)
		}
		for _, m := range []string{taskrun.MethodTasksGet, taskrun.MethodTasksUpdate, taskrun.MethodTasksCancel} {
			_, err := w.call(m, map[string]any{"taskId": "x", "inputResponses": map[string]any{}})
			if err == nil || err.Code != mcp.CodeMissingRequiredClientCapabilities {
				t.Errorf("%s without the extension: %v", m, err)
			}
		}
	})
	bothWires(t, capsNoTasks, brewTool(machine.TaskRequired, nil, nil), func(t *testing.T, w *taskWire) {
		_, err := w.call("tools/call", map[string]any{"name": "brew", "arguments": map[string]any{}})
		if err == nil || err.Code != mcp.CodeMissingRequiredClientCapabilities ||
			!strings.Contains(string(err.Data), `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
			t.Fatalf("required task tool without the extension: %v", err)
		}
	})
}

// server/discover advertises the extension; tasks/result and tasks/list
// do not exist; an unknown task id is -32602.
func TestTaskDiscoveryAndUnknownMethods(t *testing.T) {
	bothWires(t, capsTasks, brewTool(machine.TaskOptional, nil, nil), func(t *testing.T, w *taskWire) {
		d := w.must("server/discover", nil)
		ext, _ := d["capabilities"].(map[string]any)["extensions"].(map[string]any)
		if _, ok := ext[machine.TasksExtension]; !ok {
			t.Errorf("discover: %v", d["capabilities"])
		}
		for _, m := range []string{"tasks/result", "tasks/list"} {
			if _, err := w.call(m, map[string]any{"taskId": "x"}); err == nil || err.Code != jsonrpc.CodeMethodNotFound {
				t.Errorf("%s: %v", m, err)
			}
		}
		for _, m := range []string{taskrun.MethodTasksGet, taskrun.MethodTasksUpdate, taskrun.MethodTasksCancel} {
			if _, err := w.call(m, map[string]any{"taskId": "nope"}); err == nil || err.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("%s of an unknown task: %v", m, err)
			}
		}
	})
}

// Another user's task is unknown to tasks/get, tasks/update and
// tasks/cancel, and unchanged by them.
func TestTaskOtherPrincipal(t *testing.T) {
	url := httpTServeAuth(t, brewTool(machine.TaskOptional, nil, nil))
	alice, bob := httpWireAt(t, url, capsTasks, "tok-alice"), httpWireAt(t, url, capsTasks, "tok-bob")
	id := startBrew(t, alice, map[string]any{})["taskId"].(string)
	pollUntil(t, alice, id, hasStatus(backend.TaskInputRequired))
	for _, m := range []string{taskrun.MethodTasksGet, taskrun.MethodTasksUpdate, taskrun.MethodTasksCancel} {
		_, err := bob.call(m, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
		if err == nil || err.Code != jsonrpc.CodeInvalidParams || err.Message != "unknown task" {
			t.Errorf("bob's %s of alice's task: %v", m, err)
		}
	}
	if got := alice.must(taskrun.MethodTasksGet, map[string]any{"taskId": id}); got["status"] != "input_required" {
		t.Errorf("after bob: %v", got)
	}
}

func httpTServeAuth(t *testing.T, setup func(*mcp.Server)) string {
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		user, ok := strings.CutPrefix(tok, "tok-")
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
	}
	return httpTServe(t, func(h http.Handler) http.Handler {
		return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{})(h)
	}, setup)
}

// tasks/cancel while Run waits for an answer: the task is cancelled, Run's
// context ends and its goroutines are gone.
func TestTaskCancelDuringWait(t *testing.T) {
	for _, name := range []string{"memory", "http"} {
		t.Run(name, func(t *testing.T) {
			runs := &brewRun{ended: make(chan error, 1)}
			setup := brewTool(machine.TaskOptional, nil, runs)
			var w *taskWire
			if name == "memory" {
				w = memoryWire(t, capsTasks, setup)
			} else {
				w = httpWire(t, capsTasks, "tok-alice", setup)
			}
			id := startBrew(t, w, map[string]any{})["taskId"].(string)
			pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
			w.must(taskrun.MethodTasksCancel, map[string]any{"taskId": id})
			select {
			case err := <-runs.ended:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Run ended with %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Run still waits after tasks/cancel")
			}
			got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": id})
			if got["status"] != "cancelled" || got["inputRequests"] != nil {
				t.Errorf("after cancel: %v", got)
			}
			// machine.Answers after the cancel change nothing.
			w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
			if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": id}); got["status"] != "cancelled" {
				t.Errorf("after a late answer: %v", got)
			}
		})
	}
}

// A client that never answers: the task stays input_required until its
// TTL, then it is unknown and its goroutines are gone.
func TestTaskNeverAnswered(t *testing.T) {
	before := runtime.NumGoroutine()
	runs := &brewRun{ended: make(chan error, 8)}
	store := &backend.MemoryTaskStore{}
	w := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: store, TaskTTL: 400 * time.Millisecond}, runs))
	var ids []string
	for range 8 {
		ids = append(ids, startBrew(t, w, map[string]any{})["taskId"].(string))
	}
	for _, id := range ids {
		got := pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
		if got["ttlMs"] != float64(400) {
			t.Errorf("ttlMs %v", got["ttlMs"])
		}
	}
	for range ids {
		select {
		case err := <-runs.ended:
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				t.Errorf("Run ended with %v, want its context ended at the TTL", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a task outlived its TTL")
		}
	}
	for _, id := range ids {
		if _, err := w.call(taskrun.MethodTasksGet, map[string]any{"taskId": id}); err == nil || err.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("expired task %s: %v", id, err)
		}
	}
	w.close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Errorf("%d goroutines before, %d after the tasks expired", before, n)
	}
	if n := store.Len(); n != 0 {
		t.Errorf("store keeps %d expired tasks", n)
	}
}

// A store full of tasks that have not ended refuses the task: the
// tools/call gets machine.CodeTaskLimit (taskStore), nothing runs.
func TestTaskStoreFull(t *testing.T) {
	store := &backend.MemoryTaskStore{MaxTasks: 1}
	w := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: store, Logger: discardLogger()}, nil))
	startBrew(t, w, map[string]any{})
	first := w.must("tools/call", map[string]any{"name": "brew", "arguments": map[string]any{}})
	_, err := w.call("tools/call", map[string]any{"name": "brew", "arguments": map[string]any{},
		"inputResponses": map[string]any{"size": accept(map[string]any{"size": "small"})}, "requestState": first["requestState"]})
	refusedBy(t, err, taskrun.LimitTaskStore, "call again later")
	if n := store.Len(); n != 1 {
		t.Errorf("the store holds %d tasks", n)
	}
}

// Over HTTP, tasks/* must carry Mcp-Name equal to params.taskId
// (SEP-2663): missing or different is HTTP 400 with -32020.
func TestTaskMcpNameHeader(t *testing.T) {
	url := httpTServe(t, nil, brewTool(machine.TaskOptional, nil, nil))
	w := httpWireAt(t, url, capsTasks, "")
	id := startBrew(t, w, map[string]any{})["taskId"].(string)
	for _, name := range []string{"", "someone-else"} {
		params := map[string]any{"taskId": id}
		_, err := w.callRaw(taskrun.MethodTasksGet, params, map[string]string{"Mcp-Name": name})
		if err == nil || err.Code != mcp.CodeHeaderMismatch {
			t.Errorf("Mcp-Name %q: %v", name, err)
		}
	}
	if _, err := w.callRaw(taskrun.MethodTasksGet, map[string]any{"taskId": id}, map[string]string{"Mcp-Name": "  " + id + " "}); err != nil {
		t.Errorf("Mcp-Name with spaces around the id: %v", err)
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":%q}}`, id)
	status, _, _ := httpt.Post(t, url+"/", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tasks/get", "Mcp-Name": "other"}, body)
	if status != http.StatusBadRequest {
		t.Errorf("mismatched Mcp-Name: HTTP %d, want 400", status)
	}
}

// A 2025-11-25 session never gets a task, even if it declared the
// extension at initialize: an optional tool runs in the foreground.
func TestTaskLegacySessionRunsInForeground(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "v0"}, nil)
	brewTool(machine.TaskOptional, nil, nil)(srv)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	caps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	caps.AddExtension(machine.TasksExtension, nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, &mcp.ClientOptions{
		Capabilities: caps,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			switch req.Params.Message {
			case "Which size?":
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"size": "small"}}, nil
			case "Milk?":
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"milk": false}}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"sugar": true}}, nil
		}})
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "brew", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "small coffee, sugar=true, task=" {
		t.Errorf("legacy result %q", got)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// isAck reports whether a result is the empty acknowledgement of
// tasks/update and tasks/cancel: resultType "complete" and nothing else
// but the _meta the SDK adds to every result.
func isAck(m map[string]any) bool {
	for k := range m {
		if k != "resultType" && k != "_meta" {
			return false
		}
	}
	return m["resultType"] == "complete"
}

// In the foreground a decline of a during step reaches Run through
// machine.Task.Ask, as in a task, and not the flow's Ended.
func TestTaskForegroundDeclineReachesRun(t *testing.T) {
	bothWires(t, capsNoTasks, brewTool(machine.TaskOptional, nil, nil), func(t *testing.T, w *taskWire) {
		second := startBrew(t, w, map[string]any{})
		done := w.must("tools/call", map[string]any{"name": "brew", "arguments": map[string]any{},
			"inputResponses": map[string]any{"sugar": map[string]any{"action": "decline"}, "milk": accept(map[string]any{"milk": true})},
			"requestState":   second["requestState"]})
		content, _ := done["content"].([]any)
		if len(content) != 1 || content[0].(map[string]any)["text"] != "decline at 1" {
			t.Errorf("foreground decline: %v", done)
		}
	})
}

// flakyStore is a TaskStore that fails every call while down: a store
// outage, or, over a store shared with other instances, one instance cut
// off from it (a partition, a frozen process).
type flakyStore struct {
	backend.TaskStore
	down atomic.Bool
}

var errStoreDown = errors.New("store down")

func (s *flakyStore) Get(ctx context.Context, id string) (*backend.TaskRecord, error) {
	if s.down.Load() {
		return nil, errStoreDown
	}
	return s.TaskStore.Get(ctx, id)
}

func (s *flakyStore) Update(ctx context.Context, id string, change func(*backend.TaskRecord) error) (*backend.TaskRecord, error) {
	if s.down.Load() {
		return nil, errStoreDown
	}
	return s.TaskStore.Update(ctx, id, change)
}

func (s *flakyStore) Wait(ctx context.Context, id string, version uint64) error {
	if s.down.Load() {
		return errStoreDown
	}
	return s.TaskStore.Wait(ctx, id, version)
}

// A running task outlasts an outage of its store: its question is asked
// once the store is back, and tasks/get fails closed meanwhile.
func TestTaskOutlastsStoreOutage(t *testing.T) {
	store := &flakyStore{TaskStore: &backend.MemoryTaskStore{}}
	w := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: store, Logger: discardLogger()}, nil))
	id := startBrew(t, w, map[string]any{"wait": 300})["taskId"].(string)
	pollUntil(t, w, id, func(m map[string]any) bool { return m["statusMessage"] == "grinding" })
	store.down.Store(true)
	if _, err := w.call(taskrun.MethodTasksGet, map[string]any{"taskId": id}); err == nil || err.Code != jsonrpc.CodeInternalError {
		t.Errorf("tasks/get with the store down: %v", err)
	}
	time.Sleep(time.Second) // the task tries to ask meanwhile
	store.down.Store(false)
	pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
	w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
	if got := resultText(t, pollUntil(t, w, id, hasStatus(backend.TaskCompleted))); !strings.HasPrefix(got, "large coffee, sugar=true") {
		t.Errorf("result %q", got)
	}
}

// FuzzTaskAnswer posts any value as the answer to a task's question: the
// task either asks again (under a new key, the reason in the message) or
// ends with a decline, a cancel or a valid answer; it never fails, and
// never completes with content the form refuses.
func FuzzTaskAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"action":"accept","content":{"sugar":true}}`, `{"action":"accept","content":{"sugar":"yes"}}`,
		`{"action":"decline"}`, `{"action":"cancel"}`, `{"action":"maybe"}`, `{"action":"accept"}`,
		`null`, `42`, `"accept"`, `[]`, `{}`, `{"action":"accept","content":{"sugar":false,"extra":1}}`,
		`{"action":"accept","content":null}`, `{"action":"accept","content":[true]}`,
	} {
		f.Add(seed)
	}
	store := &backend.MemoryTaskStore{MaxTasks: 1 << 20}
	w := memoryWire(f, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: store, TaskTTL: time.Minute, Logger: discardLogger()}, nil))
	f.Fuzz(func(t *testing.T, answer string) {
		if !json.Valid([]byte(answer)) || len(answer) > maxTaskAnswerLen {
			return // refused by tasks/update itself: TestTaskOversizedAnswer
		}
		w.t = t
		id := startBrew(t, w, map[string]any{})["taskId"].(string)
		defer w.must(taskrun.MethodTasksCancel, map[string]any{"taskId": id})
		pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": json.RawMessage(answer)}})
		end := pollUntil(t, w, id, func(m map[string]any) bool {
			reqs, _ := m["inputRequests"].(map[string]any)
			return m["status"] == "completed" || m["status"] == "failed" || reqs["sugar.2"] != nil
		})
		var resp struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		}
		decoded := json.Unmarshal([]byte(answer), &resp) == nil
		switch end["status"] {
		case "failed":
			t.Fatalf("answer %s failed the task: %v", answer, end)
		case "completed":
			text := resultText(t, end)
			switch {
			case text == "decline at 1" || text == "cancel at 1":
				if !decoded || resp.Action != strings.TrimSuffix(text, " at 1") {
					t.Fatalf("answer %s ended the task with %q", answer, text)
				}
			default:
				sugar, ok := resp.Content["sugar"].(bool)
				if !decoded || resp.Action != "accept" || !ok || text != fmt.Sprintf("large coffee, sugar=%v, task=%s", sugar, id) {
					t.Fatalf("answer %s completed the task with %q", answer, text)
				}
			}
		default:
			msg := end["inputRequests"].(map[string]any)["sugar.2"].(map[string]any)["params"].(map[string]any)["message"].(string)
			if !strings.Contains(msg, "Please correct: ") {
				t.Fatalf("answer %s asked again without a reason: %q", answer, msg)
			}
		}
	})
}

// listenTasks opens subscriptions/listen for ids as token's user and
// returns the JSON-RPC messages of the stream as they come (the channel
// closes with the stream).
func listenTasks(t *testing.T, url, token string, ids ...string) <-chan map[string]any {
	t.Helper()
	stream, _ := listenTasksCancel(t, url, token, ids...)
	return stream
}

// listenHTTPRequest is a subscriptions/listen for ids as token's user.
func listenHTTPRequest(t *testing.T, ctx context.Context, url, token string, ids ...string) *http.Request {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "subscriptions/listen", "params": map[string]any{
		"notifications": map[string]any{"taskIds": ids, "toolsListChanged": true},
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": json.RawMessage(capsTasks)}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

// listenRaw sends a subscriptions/listen that should be answered at once
// (a refusal): the HTTP status and the first JSON-RPC message, of a JSON
// body or of a stream.
func listenRaw(t *testing.T, url, token string, ids ...string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(listenHTTPRequest(t, ctx, url, token, ids...))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, data
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			return resp.StatusCode, []byte(data)
		}
	}
	return resp.StatusCode, nil
}

// listenTasksCancel is listenTasks, and a function that closes the stream
// from the client's side.
func listenTasksCancel(t *testing.T, url, token string, ids ...string) (<-chan map[string]any, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(listenHTTPRequest(t, ctx, url, token, ids...))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("listen: HTTP %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	out := make(chan map[string]any, 64)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					out <- m
				}
			}
		}
	}()
	return out, cancel
}

func next(t *testing.T, stream <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case m, ok := <-stream:
		if !ok {
			t.Fatal("the stream ended")
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message on the stream")
	}
	return nil
}

// subscriptions/listen with taskIds streams notifications/tasks for the
// caller's own tasks only: acknowledged, then the task at every change
// (input_required with its questions, completed with its result), then
// the stream ends with the listen's result.
func TestTaskStatusNotifications(t *testing.T) {
	url := httpTServeAuth(t, brewTool(machine.TaskOptional, nil, nil))
	alice, bob := httpWireAt(t, url, capsTasks, "tok-alice"), httpWireAt(t, url, capsTasks, "tok-bob")
	mine := startBrew(t, alice, map[string]any{"wait": 200})["taskId"].(string)
	theirs := startBrew(t, bob, map[string]any{})["taskId"].(string)
	stream := listenTasks(t, url, "tok-alice", mine, theirs, "made-up")
	ack := next(t, stream)
	if ack["method"] != "notifications/subscriptions/acknowledged" || fmt.Sprint(ack["params"]) != fmt.Sprintf("map[notifications:map[taskIds:[%s]]]", mine) {
		t.Fatalf("acknowledgement %v", ack)
	}
	var seen []string
	for {
		m := next(t, stream)
		if m["method"] == nil {
			if m["id"] != float64(99) || m["result"].(map[string]any)["resultType"] != "complete" {
				t.Fatalf("end of stream %v", m)
			}
			break
		}
		p := m["params"].(map[string]any)
		if m["method"] != "notifications/tasks" || p["taskId"] != mine || p["resultType"] != nil {
			t.Fatalf("notification %v", m)
		}
		status := p["status"].(string)
		if len(seen) == 0 || seen[len(seen)-1] != status {
			seen = append(seen, status)
		}
		if status == "input_required" && p["inputRequests"].(map[string]any)["sugar"] != nil {
			alice.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": mine, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
		}
		if status == "completed" && !strings.HasPrefix(p["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string), "large coffee, sugar=true") {
			t.Errorf("completed notification %v", p)
		}
	}
	if got := strings.Join(seen, " "); !strings.HasPrefix(got, "working") || !strings.Contains(got, "input_required") || !strings.HasSuffix(got, "completed") {
		t.Errorf("statuses %q", got)
	}
	// Bob's task is his alone: nothing about it reached alice.
	if got := bob.must(taskrun.MethodTasksGet, map[string]any{"taskId": theirs}); got["status"] != "input_required" {
		t.Errorf("bob's task: %v", got)
	}
}

// A listen without the extension is -32021; one without taskIds is the
// SDK's own stream.
func TestTaskListenNeedsTheExtension(t *testing.T) {
	url := httpTServeAuth(t, brewTool(machine.TaskOptional, nil, nil))
	body := `{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{"notifications":{"taskIds":["x"]},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	status, _, data := httpt.Post(t, url+"/", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen", "Authorization": "Bearer tok-alice"}, body)
	if status != http.StatusBadRequest || !strings.Contains(string(data), "-32021") {
		t.Errorf("listen without the extension: HTTP %d %s", status, data)
	}
}

// Oversized task requests are refused before any server code: 413.
func TestTaskRequestsOverTheBodyLimit(t *testing.T) {
	url := httpTServe(t, nil, brewTool(machine.TaskOptional, nil, nil))
	pad := strings.Repeat("x", transport.DefaultMaxRequestBodyBytes)
	for _, method := range []string{taskrun.MethodTasksGet, "subscriptions/listen"} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{"taskId":"x","pad":%q}}`, method, pad)
		status, _, _ := httpt.Post(t, url+"/", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": "x"}, body)
		if status != http.StatusRequestEntityTooLarge {
			t.Errorf("%s over the limit: HTTP %d", method, status)
		}
	}
}

// A client that declared the extension but cannot show forms is told so on
// the tools/call (-32021), before a task is created that could never ask.
func TestTaskDuringStepNeedsElicitation(t *testing.T) {
	store := &backend.MemoryTaskStore{}
	bothWires(t, `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: store}, nil), func(t *testing.T, w *taskWire) {
		_, err := w.call("tools/call", map[string]any{"name": "brew", "arguments": map[string]any{"size": "large"}})
		if err == nil || err.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(string(err.Data), `"form"`) {
			t.Fatalf("tools/call: %v", err)
		}
		if n := store.Len(); n != 0 {
			t.Errorf("%d tasks created", n)
		}
	})
}

// The status stream the router serves itself keeps the SDK's DNS-rebinding
// check: a loopback server reached with a foreign Host header is 403.
func TestTaskListenRebinding(t *testing.T) {
	url := httpTServe(t, nil, brewTool(machine.TaskOptional, nil, nil))
	w := httpWireAt(t, url, capsTasks, "")
	id := startBrew(t, w, map[string]any{})["taskId"].(string)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{"notifications":{"taskIds":[%q]},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}}}`, id, capsTasks)
	req, _ := http.NewRequest(http.MethodPost, url+"/", strings.NewReader(body))
	req.Host = "evil.example"
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("listen with a foreign Host: HTTP %d, want 403", resp.StatusCode)
	}
}

// BenchmarkWaitingTask creates tasks that wait for an answer and reports
// what each holds while it waits: the resident memory of the process
// (rss-KiB/task, VmRSS of /proc/self/status: heap, stacks and what the
// runtime keeps of both), and of it the live heap and stacks (heap-B/task,
// stack-B/task). The baseline is the same process before them. The figure
// behind machine.DefaultMaxRunningTasks is of
// go test ./runtime -run '^$' -bench WaitingTask -benchtime=2000x -count 3.
func BenchmarkWaitingTask(b *testing.B) {
	limits := &elicitrt.TaskLimits{MaxRunning: 1 << 20, PerPrincipal: 1 << 20}
	w := memoryWire(b, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: &backend.MemoryTaskStore{MaxTasks: 1 << 20}, TaskLimits: limits}, nil))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rssBefore := residentKiB(b)
	var last string
	for b.Loop() {
		first, _ := w.call("tools/call", map[string]any{"name": "brew", "arguments": map[string]any{}})
		created, _ := w.call("tools/call", map[string]any{"name": "brew", "arguments": map[string]any{},
			"inputResponses": map[string]any{"size": accept(map[string]any{"size": "large"})}, "requestState": first["requestState"]})
		last, _ = created["taskId"].(string)
	}
	b.StopTimer()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if got, _ := w.call(taskrun.MethodTasksGet, map[string]any{"taskId": last}); got["status"] == string(backend.TaskInputRequired) {
			break
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(residentKiB(b)-rssBefore)/float64(b.N), "rss-KiB/task")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-B/task")
	b.ReportMetric(float64(int64(after.StackInuse)-int64(before.StackInuse))/float64(b.N), "stack-B/task")
}

// residentKiB is the process's resident memory (VmRSS), in KiB.
func residentKiB(tb testing.TB) int64 {
	tb.Helper()
	n, err := rss.KiB(0)
	if errors.Is(err, rss.ErrUnavailable) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// An answer longer than a round may keep is refused by tasks/update
// (-32602) and nothing is kept: the question stays open under its key.
func TestTaskOversizedAnswer(t *testing.T) {
	bothWires(t, capsTasks, brewTool(machine.TaskOptional, nil, nil), func(t *testing.T, w *taskWire) {
		id := startBrew(t, w, map[string]any{})["taskId"].(string)
		pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
		_, err := w.call(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{
			"sugar": accept(map[string]any{"sugar": true, "pad": strings.Repeat("x", machine.MaxAnswersLen)})}})
		if err == nil || err.Code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Message, "at most 32768") {
			t.Fatalf("oversized answer: %v", err)
		}
		got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": id})
		if reqs, _ := got["inputRequests"].(map[string]any); got["status"] != "input_required" || reqs["sugar"] == nil {
			t.Fatalf("after an oversized answer: %v", got)
		}
		w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
		if got := resultText(t, pollUntil(t, w, id, hasStatus(backend.TaskCompleted))); !strings.HasPrefix(got, "large coffee, sugar=true") {
			t.Errorf("result %q", got)
		}
	})
}

// createBrew runs the MRTR round of "size" and its retry, which creates
// a task unless a bound refuses it: the retry's result, or its error.
func createBrew(t *testing.T, w *taskWire, args map[string]any) (map[string]any, *jsonrpc.Error) {
	t.Helper()
	first := w.must("tools/call", map[string]any{"name": "brew", "arguments": args})
	return w.call("tools/call", map[string]any{"name": "brew", "arguments": args,
		"inputResponses": map[string]any{"size": accept(map[string]any{"size": "large"})}, "requestState": first["requestState"]})
}

// refusedBy fails the test unless err is the machine.CodeTaskLimit refusal of
// bound limit, with a message saying what to do.
func refusedBy(t *testing.T, err *jsonrpc.Error, limit, todo string) {
	t.Helper()
	var data struct {
		Limit string `json:"limit"`
	}
	if err == nil || err.Code != taskrun.CodeTaskLimit || json.Unmarshal(err.Data, &data) != nil || data.Limit != limit || !strings.Contains(err.Message, todo) {
		t.Fatalf("got %v (data %s), want the %s refusal (%d) saying %q", err, errData(err), limit, taskrun.CodeTaskLimit, todo)
	}
}

func errData(err *jsonrpc.Error) string {
	if err == nil {
		return ""
	}
	return string(err.Data)
}

// Finding 1 of issue 24, over HTTP with two users: alice fills her bound
// of tasks; her next task is refused with machine.CodeTaskLimit naming the bound
// and what to do (not -32603), while bob still gets a task; once alice
// cancels one, she gets a task again at once. The store (4 tasks) never
// refuses: the cancelled task's slot is taken back.
func TestTaskBoundPerPrincipal(t *testing.T) {
	opts := &elicitrt.ToolOptions{Tasks: &backend.MemoryTaskStore{MaxTasks: 4}, TaskLimits: &elicitrt.TaskLimits{PerPrincipal: 3}, Logger: discardLogger()}
	url := httpTServeAuth(t, brewTool(machine.TaskOptional, opts, nil))
	alice, bob := httpWireAt(t, url, capsTasks, "tok-alice"), httpWireAt(t, url, capsTasks, "tok-bob")
	var ids []string
	for range 3 {
		ids = append(ids, startBrew(t, alice, map[string]any{})["taskId"].(string))
	}
	pollUntil(t, alice, ids[2], hasStatus(backend.TaskInputRequired))
	_, err := createBrew(t, alice, map[string]any{})
	refusedBy(t, err, taskrun.LimitTasksPerPrincipal, "tasks/cancel")
	if got := startBrew(t, bob, map[string]any{}); got["resultType"] != "task" {
		t.Fatalf("bob's task while alice is at her bound: %v", got)
	}
	alice.must(taskrun.MethodTasksCancel, map[string]any{"taskId": ids[0]})
	if got := startBrew(t, alice, map[string]any{}); got["resultType"] != "task" {
		t.Fatalf("alice's task after she cancelled one: %v", got)
	}
	_, err = createBrew(t, alice, map[string]any{})
	refusedBy(t, err, taskrun.LimitTasksPerPrincipal, "tasks/cancel")
}

// Ended tasks (completed, failed, cancelled) hold no slot of a full
// MemoryTaskStore: with room for 3, three tasks that ended leave room for
// three more that wait; the results of ended tasks stay readable until
// their room is needed.
func TestTaskEndedTasksFreeTheStore(t *testing.T) {
	runs := &brewRun{ended: make(chan error, 8)}
	store := &backend.MemoryTaskStore{MaxTasks: 3}
	w := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: store, Logger: discardLogger()}, runs))
	failed := startBrew(t, w, map[string]any{"fail": "rpc"})["taskId"].(string)
	<-runs.ended
	pollUntil(t, w, failed, hasStatus(backend.TaskFailed))
	completed := startBrew(t, w, map[string]any{})["taskId"].(string)
	pollUntil(t, w, completed, hasStatus(backend.TaskInputRequired))
	w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": completed, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
	pollUntil(t, w, completed, hasStatus(backend.TaskCompleted))
	cancelled := startBrew(t, w, map[string]any{})["taskId"].(string)
	w.must(taskrun.MethodTasksCancel, map[string]any{"taskId": cancelled})
	for i := range 3 {
		got, err := createBrew(t, w, map[string]any{})
		if err != nil || got["resultType"] != "task" {
			t.Fatalf("task %d after three ended ones: %v %v", i+1, got, err)
		}
		if i == 0 {
			// The oldest ended task made room; the others still answer.
			if _, err := w.call(taskrun.MethodTasksGet, map[string]any{"taskId": failed}); err == nil {
				t.Errorf("the oldest ended task is still kept in a full store")
			}
			if got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": completed}); got["status"] != "completed" {
				t.Errorf("completed task: %v", got)
			}
		}
	}
	// Now three tasks wait: the store is full of tasks that have not
	// ended, and says so.
	_, err := createBrew(t, w, map[string]any{})
	refusedBy(t, err, taskrun.LimitTaskStore, "call again later")
}

// The process's bound on running tasks holds whoever asks: with room for
// two, a third user's task is refused (machine.CodeTaskLimit, runningTasks); when
// a task ends and its goroutines return, the room is there again.
func TestTaskBoundPerProcess(t *testing.T) {
	runs := &brewRun{ended: make(chan error, 8)}
	limits := &elicitrt.TaskLimits{MaxRunning: 2}
	url := httpTServeAuth(t, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{TaskLimits: limits, Logger: discardLogger()}, runs))
	alice, bob, carol := httpWireAt(t, url, capsTasks, "tok-alice"), httpWireAt(t, url, capsTasks, "tok-bob"), httpWireAt(t, url, capsTasks, "tok-carol")
	id := startBrew(t, alice, map[string]any{})["taskId"].(string)
	startBrew(t, bob, map[string]any{})
	_, err := createBrew(t, carol, map[string]any{})
	refusedBy(t, err, taskrun.LimitRunningTasks, "call again later")
	alice.must(taskrun.MethodTasksCancel, map[string]any{"taskId": id})
	<-runs.ended
	waitRunning(t, limits, 1)
	if got := startBrew(t, carol, map[string]any{}); got["resultType"] != "task" {
		t.Fatalf("carol's task once alice's ended: %v", got)
	}
}

// waitRunning waits (at most 10 s) until l counts n running tasks.
func waitRunning(t *testing.T, l *elicitrt.TaskLimits, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		got := taskrun.LimiterOf(l).Running()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tasks running, want %d", got, n)
		}
	}
}

// A status stream that acknowledges no task says "taskIds": [], not null.
func TestTaskListenAcknowledgesNone(t *testing.T) {
	url := httpTServeAuth(t, brewTool(machine.TaskOptional, nil, nil))
	ack := next(t, listenTasks(t, url, "tok-alice", "made-up"))
	ids, ok := ack["params"].(map[string]any)["notifications"].(map[string]any)["taskIds"].([]any)
	if ack["method"] != "notifications/subscriptions/acknowledged" || !ok || len(ids) != 0 {
		t.Fatalf("acknowledgement of no task: %v", ack)
	}
}

// One user's open status streams are bounded: alice's third is refused
// (machine.CodeTaskLimit, taskStreamsPerPrincipal) while bob opens his; once
// alice closes one, she opens another.
func TestTaskListenBoundPerPrincipal(t *testing.T) {
	limits := &elicitrt.TaskLimits{StreamsPerPrincipal: 2}
	url := httpTServeAuth(t, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{TaskLimits: limits}, nil))
	alice, bob := httpWireAt(t, url, capsTasks, "tok-alice"), httpWireAt(t, url, capsTasks, "tok-bob")
	mine := startBrew(t, alice, map[string]any{})["taskId"].(string)
	theirs := startBrew(t, bob, map[string]any{})["taskId"].(string)
	first, cancelFirst := listenTasksCancel(t, url, "tok-alice", mine)
	next(t, first)
	second := listenTasks(t, url, "tok-alice", mine)
	next(t, second)
	status, data := listenRaw(t, url, "tok-alice", mine)
	var resp struct {
		Error *jsonrpc.Error `json:"error"`
	}
	if json.Unmarshal(data, &resp) != nil {
		t.Fatalf("alice's third stream: HTTP %d %s", status, data)
	}
	refusedBy(t, resp.Error, taskrun.LimitTaskStreamsPerPrincipal, "close one")
	next(t, listenTasks(t, url, "tok-bob", theirs))
	cancelFirst()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		open := taskrun.LimiterOf(limits).Streams("alice")
		if open == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("alice holds %d streams after closing one", open)
		}
	}
	next(t, listenTasks(t, url, "tok-alice", mine))
}

// A task's clock is machine.ToolOptions.Now, given to its store too, at any
// instant: its TTL is a duration on the real clock, so a clock fixed in
// 2020 neither ends the task at once nor keeps it past its TTL.
func TestTaskFixedClock(t *testing.T) {
	fixed := func() time.Time { return time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC) }
	runs := &brewRun{ended: make(chan error, 1)}
	opts := &elicitrt.ToolOptions{Now: fixed, Tasks: &backend.MemoryTaskStore{Now: fixed}}
	w := memoryWire(t, capsTasks, brewTool(machine.TaskOptional, opts, runs))
	created := startBrew(t, w, map[string]any{})
	id := created["taskId"].(string)
	if created["createdAt"] != "2020-01-01T12:00:00Z" {
		t.Errorf("createdAt %v, want the configured clock's", created["createdAt"])
	}
	pollUntil(t, w, id, hasStatus(backend.TaskInputRequired))
	w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{"sugar": accept(map[string]any{"sugar": true})}})
	if err := <-runs.ended; err != nil {
		t.Fatalf("Run ended with %v", err)
	}
	if got := resultText(t, pollUntil(t, w, id, hasStatus(backend.TaskCompleted))); !strings.HasPrefix(got, "large coffee, sugar=true") {
		t.Errorf("result %q", got)
	}
}

// Every task tool of a server counts its tasks under one TaskLimits:
// registering one with another panics, at registration.
func TestTaskToolsShareTheirLimits(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "v0"}, nil)
	brewTool(machine.TaskOptional, &elicitrt.ToolOptions{TaskLimits: &elicitrt.TaskLimits{}}, nil)(srv)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "TaskLimits") {
			t.Errorf("a second task tool with other TaskLimits: recovered %v", r)
		}
	}()
	brewTool(machine.TaskOptional, &elicitrt.ToolOptions{TaskLimits: &elicitrt.TaskLimits{}}, nil)(srv)
}

// After ToolOptions.MaxAttempts (3) invalid answers in a row to a question
// the task asks, under sugar, sugar.2 and sugar.3, Ask returns a
// *machine.GaveUpError (Run never sees the invalid content), the question
// is not asked a fourth time, and the Run that returns the error completes
// the task with a tool error saying so.
func TestTaskGivesUpAfterMaxAttempts(t *testing.T) {
	runs := &brewRun{ended: make(chan error, 1)}
	bothWires(t, capsTasks, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Logger: discardLogger()}, runs), func(t *testing.T, w *taskWire) {
		id := startBrew(t, w, map[string]any{})["taskId"].(string)
		for _, key := range []string{"sugar", "sugar.2", "sugar.3"} {
			pollUntil(t, w, id, func(m map[string]any) bool {
				reqs, _ := m["inputRequests"].(map[string]any)
				return reqs[key] != nil
			})
			w.must(taskrun.MethodTasksUpdate, map[string]any{"taskId": id, "inputResponses": map[string]any{key: accept(map[string]any{"sugar": "yes"})}})
		}
		end := pollUntil(t, w, id, func(m map[string]any) bool {
			reqs, _ := m["inputRequests"].(map[string]any)
			return m["status"] == "completed" || m["status"] == "failed" || reqs["sugar.4"] != nil
		})
		if end["status"] != "completed" || end["result"].(map[string]any)["isError"] != true {
			t.Fatalf("after 3 invalid answers: %v", end)
		}
		if got, want := resultText(t, end), "sugar: gave up after 3 invalid answers: sugar: is missing or invalid"; got != want {
			t.Errorf("result %q, want %q", got, want)
		}
		select {
		case err := <-runs.ended:
			var gaveUp *elicitrt.GaveUpError
			if !errors.As(err, &gaveUp) || gaveUp.Step != "sugar" || gaveUp.Tries != 3 {
				t.Errorf("Run's Ask ended with %v, want a GaveUpError of sugar after 3 tries", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Run did not return")
		}
	})
}

// brewRunning is brewTool's tool ("size" before the task, "sugar" during
// it) with run as its Run.
func brewRunning(opts *elicitrt.ToolOptions, run func(ctx context.Context, task *machine.Task) (*mcp.CallToolResult, error)) func(*mcp.Server) {
	return func(s *mcp.Server) {
		steps := []machine.Step{
			{Key: "size", Mode: machine.ModeForm, Message: "Which size?", Params: brewForm("size", "string", "small", "large"),
				Check: brewCheck("size", func(v any) bool { return v == "small" || v == "large" })},
			{Key: "sugar", Mode: machine.ModeForm, Message: "Sugar?", During: true, Params: brewForm("sugar", "boolean"), Check: brewCheck("sugar", isBool)},
		}
		flow := machine.Flow{Tasks: machine.TaskOptional,
			Run: func(ctx context.Context, task *machine.Task, _ *mcp.CallToolRequest, _ any, _ machine.Answers) (*mcp.CallToolResult, error) {
				return run(ctx, task)
			}}
		m := machine.NewMachine("brew", steps, flow, opts)
		Enable(s, m)
		machine.AddTool[brewArgs](s, &mcp.Tool{Name: "brew", InputSchema: json.RawMessage(`{"type":"object"}`)}, m)
	}
}

// A Run that ignores its context: after tasks/cancel the task stays
// cancelled whatever Run returns (a result, or a JSON-RPC error), and Run
// keeps its place under TaskLimits' process bound until it returns (its
// place under its user's bound is free at once).
func TestTaskCancelledWhateverRunReturns(t *testing.T) {
	for _, c := range []struct {
		name string
		res  *mcp.CallToolResult
		err  error
	}{
		{"result", elicitrt.Text("brewed anyway"), nil},
		{"rpc error", nil, &jsonrpc.Error{Code: 4242, Message: "no beans"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			limits := &elicitrt.TaskLimits{MaxRunning: 1, PerPrincipal: 1}
			cancelled, release := make(chan struct{}), make(chan struct{})
			run := func(ctx context.Context, _ *machine.Task) (*mcp.CallToolResult, error) {
				<-ctx.Done() // seen, and ignored: the work goes on
				close(cancelled)
				<-release
				return c.res, c.err
			}
			w := memoryWire(t, capsTasks, brewRunning(&elicitrt.ToolOptions{TaskLimits: limits, Tasks: &backend.MemoryTaskStore{}, Logger: discardLogger()}, run))
			id := startBrew(t, w, map[string]any{})["taskId"].(string)
			w.must(taskrun.MethodTasksCancel, map[string]any{"taskId": id})
			select {
			case <-cancelled:
			case <-time.After(5 * time.Second):
				t.Fatal("Run's context did not end on tasks/cancel")
			}
			if n := taskrun.LimiterOf(limits).Running(); n != 1 {
				t.Errorf("a cancelled task whose Run goes on: %d running, want 1", n)
			}
			// Its user's place is free, the process's is not.
			_, err := createBrew(t, w, map[string]any{})
			refusedBy(t, err, taskrun.LimitRunningTasks, "call again later")
			close(release)
			waitRunning(t, limits, 0)
			got := w.must(taskrun.MethodTasksGet, map[string]any{"taskId": id})
			if got["status"] != "cancelled" || got["result"] != nil || got["error"] != nil {
				t.Errorf("after Run returned %v, %v: %v", c.res, c.err, got)
			}
		})
	}
}

// Every task tool of a server shares one TaskStore: registering one with
// another store panics, at registration, naming the option.
func TestTaskToolsShareTheirStore(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "v0"}, nil)
	limits := &elicitrt.TaskLimits{}
	brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: &backend.MemoryTaskStore{}, TaskLimits: limits}, nil)(srv)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "ToolOptions.Tasks") {
			t.Errorf("a second task tool with another TaskStore: recovered %v", r)
		}
	}()
	brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Tasks: &backend.MemoryTaskStore{}, TaskLimits: limits}, nil)(srv)
}

// TestTaskBoundPerProcessSharedStore: the running bound is the process's
// whatever the store. Two instances share one store (behind a wrapper, so
// not the memory store's own type) and the keys, each with MaxRunning 2:
// alice's and bob's tasks fill A, carol is refused there and served by B;
// once alice cancels hers through B, A learns it from the store and runs
// carol's. examples/report holds the same from outside, on redis-server.
func TestTaskBoundPerProcessSharedStore(t *testing.T) {
	store := &flakyStore{TaskStore: &backend.MemoryTaskStore{}}
	keys := elicitrt.RandomKeyring()
	limitsA := &elicitrt.TaskLimits{MaxRunning: 2}
	instance := func(limits *elicitrt.TaskLimits) string {
		return httpTServeAuth(t, brewTool(machine.TaskOptional, &elicitrt.ToolOptions{Keys: keys, Tasks: store, TaskLimits: limits, Logger: discardLogger()}, nil))
	}
	a, b := instance(limitsA), instance(&elicitrt.TaskLimits{MaxRunning: 2})
	mine := startBrew(t, httpWireAt(t, a, capsTasks, "tok-alice"), map[string]any{})["taskId"].(string)
	startBrew(t, httpWireAt(t, a, capsTasks, "tok-bob"), map[string]any{})
	_, err := createBrew(t, httpWireAt(t, a, capsTasks, "tok-carol"), map[string]any{})
	refusedBy(t, err, taskrun.LimitRunningTasks, "call again later")
	if got := startBrew(t, httpWireAt(t, b, capsTasks, "tok-carol"), map[string]any{}); got["resultType"] != "task" {
		t.Fatalf("carol's task on B: %v", got)
	}
	httpWireAt(t, b, capsTasks, "tok-alice").must(taskrun.MethodTasksCancel, map[string]any{"taskId": mine})
	waitRunning(t, limitsA, 1)
	if got := startBrew(t, httpWireAt(t, a, capsTasks, "tok-carol"), map[string]any{}); got["resultType"] != "task" {
		t.Fatalf("carol's task on A once alice's ended: %v", got)
	}
	_, err = createBrew(t, httpWireAt(t, a, capsTasks, "tok-dave"), map[string]any{})
	refusedBy(t, err, taskrun.LimitRunningTasks, "call again later")
}
