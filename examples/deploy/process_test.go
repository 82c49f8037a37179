package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
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
)

// The deploy binary (built by TestMain into a temporary directory) run as
// a real process, spoken to over HTTP on 127.0.0.1, for the probe and
// metrics tests (the transport's and the process's own guarantees are
// proved in internal/transport and runtime/serve).

// procKeys is a well-formed ELICITGEN_STATE_KEYS value.
var procKeys = base64.StdEncoding.EncodeToString([]byte("process-test-key-0123456789abcde"))

// procModernMeta is the _meta of a 2026-07-28 request from a client that
// can be asked in form mode.
const procModernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`

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
