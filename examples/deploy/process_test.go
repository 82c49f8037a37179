package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// Process-level tests: the deploy binary (built by TestMain into a temporary
// directory) run as a real process, spoken to over its stdin/stdout or over
// HTTP on 127.0.0.1.

// procKeys is a well-formed ELICITGEN_STATE_KEYS value.
var procKeys = base64.StdEncoding.EncodeToString([]byte("process-test-key-0123456789abcde"))

// procModernMeta is the _meta of a 2026-07-28 request from a client that
// can be asked in form mode.
const procModernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`

// procListTools is a 2026-07-28 tools/list request.
func procListTools(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{%s}}`, id, procModernMeta)
}

// procCall is a 2026-07-28 tools/call of deploy; state "" is left out, and
// responses (raw JSON) too when empty.
func procCall(args, state, responses string) string {
	params := `"name":"deploy","arguments":` + args
	if state != "" {
		params += `,"requestState":` + strconv.Quote(state)
	}
	if responses != "" {
		params += `,"inputResponses":` + responses
	}
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + params + "," + procModernMeta + "}}"
}

// The binary over stdio: a line of invalid JSON is answered -32700 with id
// null, and the next request is served by the same process, which exits 0
// when its input ends.
func TestStdioProcessSurvivesMalformedLine(t *testing.T) {
	cmd := exec.Command(serverBin, "-stdio")
	cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS="+procKeys)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s: the server's output ended (stderr: %s)", what, stderr.String())
			}
			return l
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no answer within 10s", what)
		}
		return ""
	}

	io.WriteString(stdin, "{not json}\n")
	if got, want := next("after {not json}"), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`; got != want {
		t.Fatalf("answer to {not json}: %s, want %s", got, want)
	}
	io.WriteString(stdin, procListTools(2)+"\n")
	if got := next("tools/list"); !strings.Contains(got, `"id":2,"result"`) || !strings.Contains(got, `"name":"deploy"`) {
		t.Fatalf("tools/list after the bad line: %.300s", got)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"api"},`+procModernMeta+"}}\n")
	if got := next("tools/call"); !strings.Contains(got, `"id":3,"result"`) || !strings.Contains(got, `"inputRequests"`) {
		t.Fatalf("tools/call after the bad line: %.300s", got)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after the input ended: %v (stderr: %s)", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10s after its input ended")
	}
}

// A malformed ELICITGEN_STATE_KEYS stops the binary at start, in both modes,
// with exit status 1 and one line on stderr naming the variable, the entry
// and the fix: no panic, no goroutine dump, nothing on stdout.
func TestBadKeysExitWithOneLine(t *testing.T) {
	good := procKeys
	cases := []struct{ name, value, want string }{
		{"not base64", good + ",%%%not-base64%%%", "entry 2 is not valid base64"},
		{"wrong length", base64.StdEncoding.EncodeToString([]byte("short key")), "entry 1 decodes to 9 bytes, want 32"},
		{"empty entry", good + ",,", "entry 2 is empty"},
		{"duplicate key", good + "," + good, "key 2 has the same key id as key 1"},
	}
	for _, c := range cases {
		for _, mode := range [][]string{{"-stdio"}, {"-http", "127.0.0.1:0"}} {
			t.Run(c.name+"/"+mode[0], func(t *testing.T) {
				cmd := exec.Command(serverBin, mode...)
				cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS="+c.value)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				cmd.Stdin = strings.NewReader(procListTools(1) + "\n")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					t.Fatal("still running 10s after start with malformed keys")
				}
				if code := cmd.ProcessState.ExitCode(); code != 1 {
					t.Errorf("exit status %d, want 1", code)
				}
				msg := stderr.String()
				if strings.Count(msg, "\n") != 1 || !strings.HasSuffix(msg, "\n") {
					t.Errorf("stderr is not one line: %q", msg)
				}
				for _, want := range []string{"deploy: ELICITGEN_STATE_KEYS: ", c.want, "set it to", "32-byte keys"} {
					if !strings.Contains(msg, want) {
						t.Errorf("stderr %q lacks %q", msg, want)
					}
				}
				for _, bad := range []string{"goroutine", "panic", "%%%", good} {
					if strings.Contains(msg, bad) {
						t.Errorf("stderr %q contains %q", msg, bad)
					}
				}
				if stdout.Len() != 0 {
					t.Errorf("stdout: %q, want nothing", stdout.String())
				}
			})
		}
	}
}

// procServer is the deploy binary serving HTTP on a port of its choosing.
type procServer struct {
	cmd *exec.Cmd
	url string // the MCP endpoint
	// metrics is the Prometheus endpoint, when the server serves one.
	metrics string
	done    chan struct{} // closed when the process has exited
	mu      sync.Mutex
	logs    bytes.Buffer // stderr
}

// exited reports whether the process has ended.
func (p *procServer) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *procServer) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// startProcServer runs the binary with -http 127.0.0.1:0 and reads the
// address it logs.
func startProcServer(t *testing.T) *procServer {
	t.Helper()
	return startProcServerWith(t, nil)
}

// startProcServerWith is startProcServer with more flags and environment
// (NAME=VALUE entries); with -metrics, it reads the metrics address the
// server logs first.
func startProcServerWith(t *testing.T, env []string, flags ...string) *procServer {
	t.Helper()
	p := &procServer{cmd: exec.Command(serverBin, append([]string{"-http", "127.0.0.1:0"}, flags...)...), done: make(chan struct{})}
	p.cmd.Env = append(append(os.Environ(), "ELICITGEN_STATE_KEYS="+procKeys), env...)
	errPipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		serving := regexp.MustCompile(`serving MCP at (http://127\.0\.0\.1:\d+/mcp)`)
		metrics := regexp.MustCompile(`serving metrics at (http://127\.0\.0\.1:\d+/metrics)`)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			p.mu.Lock()
			p.logs.Write(append(sc.Bytes(), '\n'))
			if m := metrics.FindStringSubmatch(sc.Text()); m != nil {
				p.metrics = m[1]
			}
			p.mu.Unlock()
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	select {
	case p.url = <-urls:
	case <-p.done:
		t.Fatalf("the server exited at start: %s", p.stderr())
	case <-time.After(10 * time.Second):
		t.Fatalf("the server did not log its address within 10s: %s", p.stderr())
	}
	return p
}

// procPost posts body to the endpoint with the 2026-07-28 headers and
// returns the status and the JSON-RPC message of the reply (the first SSE
// data payload, or the body).
func procPost(t *testing.T, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "deploy"} {
		req.Header.Set(k, v)
	}
	if strings.Contains(body, `"method":"tools/list"`) {
		req.Header.Set("Mcp-Method", "tools/list")
		req.Header.Del("Mcp-Name")
	}
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	data := string(raw)
	if i := strings.Index(data, "data: "); i >= 0 {
		data = data[i+len("data: "):]
		if j := strings.Index(data, "\n"); j >= 0 {
			data = data[:j]
		}
	}
	return resp.StatusCode, strings.TrimSpace(data)
}

// procJSONRPC decodes a JSON-RPC reply, failing the test unless it is one.
func procJSONRPC(t testing.TB, what, data string) (result map[string]any, rpcErr map[string]any) {
	t.Helper()
	var msg struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal([]byte(data), &msg); err != nil || (msg.Result == nil && msg.Error == nil) {
		t.Fatalf("%s: reply is not a JSON-RPC result or error: %.300s", what, data)
	}
	return msg.Result, msg.Error
}

// The hostile requests of issue 12, sent to the deploy binary over HTTP on
// 127.0.0.1: each gets an answer, the process keeps running, and a normal
// request is served afterwards.
func TestHTTPProcessSurvivesHostileRequests(t *testing.T) {
	p := startProcServer(t)
	pad := strings.Repeat("A", 50_000)
	paddedAnswer := `{"target":{"action":"accept","content":{"environment":"prod","pad":"` + pad + `"}}}`
	longAction := `{"target":{"action":"` + pad + `"}}`

	// A real first round, for the hostile retries that carry its state.
	status, data := procPost(t, p.url, procCall(`{"service":"api"}`, "", ""))
	first, _ := procJSONRPC(t, "first round", data)
	state, _ := first["requestState"].(string)
	if status != http.StatusOK || state == "" {
		t.Fatalf("first round: %d %.300s", status, data)
	}

	hostile := []struct {
		name string
		body string
		want int // HTTP status
	}{
		{"oversized undeclared answer, no state", procCall(`{"service":"api"}`, "", paddedAnswer), http.StatusOK},
		{"oversized undeclared answer, with state", procCall(`{"service":"api"}`, state, paddedAnswer), http.StatusOK},
		{"50 kB action, no state", procCall(`{"service":"api"}`, "", longAction), http.StatusOK},
		{"50 kB action, with state", procCall(`{"service":"api"}`, state, longAction), http.StatusOK},
		{"50 kB service argument", procCall(`{"service":"`+pad+`"}`, "", ""), http.StatusOK},
		{"body one byte over the limit", procPadTo(t, elicitrt.DefaultMaxRequestBodyBytes+1), http.StatusRequestEntityTooLarge},
		{"malformed JSON", `{not json`, http.StatusBadRequest},
		{"truncated JSON-RPC", procCall(`{"service":"api"}`, state, paddedAnswer)[:1000], http.StatusBadRequest},
	}
	for _, h := range hostile {
		status, data := procPost(t, p.url, h.body)
		if p.exited() {
			t.Fatalf("%s: the process exited: %s", h.name, p.stderr())
		}
		if status != h.want {
			t.Errorf("%s: HTTP %d %.300s, want %d", h.name, status, data, h.want)
			continue
		}
		if status == http.StatusOK {
			procJSONRPC(t, h.name, data)
		}
		t.Logf("%s: HTTP %d %.160s", h.name, status, data)
	}

	// Still serving: a request at the limit, tools/list and a fresh call.
	status, data = procPost(t, p.url, procPadTo(t, elicitrt.DefaultMaxRequestBodyBytes))
	if status != http.StatusOK {
		t.Errorf("a request at the body limit: HTTP %d %.300s, want 200", status, data)
	}
	status, data = procPost(t, p.url, procListTools(7))
	if status != http.StatusOK || !strings.Contains(data, `"name":"deploy"`) {
		t.Fatalf("tools/list after the hostile requests: %d %.300s", status, data)
	}
	status, data = procPost(t, p.url, procCall(`{"service":"api"}`, "", ""))
	if res, _ := procJSONRPC(t, "fresh call", data); status != http.StatusOK || res["requestState"] == nil {
		t.Fatalf("a fresh call after the hostile requests: %d %.300s", status, data)
	}
	time.Sleep(100 * time.Millisecond)
	if p.exited() {
		t.Fatalf("the process exited: %s", p.stderr())
	}
	if logs := p.stderr(); strings.Contains(logs, "goroutine ") {
		t.Errorf("the server logged a goroutine dump:\n%s", logs)
	}
}

// procPadTo returns a tools/call of deploy that is exactly size bytes long,
// its service name padded.
func procPadTo(t *testing.T, size int) string {
	t.Helper()
	format := procCall(`{"service":"%s"}`, "", "")
	n := size - len(fmt.Sprintf(format, ""))
	body := fmt.Sprintf(format, strings.Repeat("A", n))
	if len(body) != size {
		t.Fatalf("padded body is %d bytes, want %d", len(body), size)
	}
	return body
}
