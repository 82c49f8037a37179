package serve_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
	"github.com/elicitgen/elicitgen/internal/testkit/procserver"
	"github.com/elicitgen/elicitgen/runtime/elicittest"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// Process-level tests: the deploy command (procserver/deploy, built on
// first use), which serves a tool as an example's main does, through
// StdioTransport or NewHTTPHandler and NewHTTPServer, run as a real
// process and spoken to over its stdin/stdout or over HTTP on 127.0.0.1.

// TestMain removes the deploy command the tests build.
func TestMain(m *testing.M) { os.Exit(procserver.Main(m)) }

// procPost posts body to the endpoint with the 2026-07-28 headers and
// returns the status and the JSON-RPC message of the reply (the first SSE
// data payload, or the body).
func procPost(t *testing.T, url, body string) (int, string) {
	t.Helper()
	status, _, data := httpt.PostWith(t, &http.Client{Timeout: 20 * time.Second}, url, procserver.Headers(body), body)
	return status, strings.TrimSpace(string(data))
}

// TestStdioProcessSurvivesMalformedLine: the command over stdio: a line of invalid JSON is answered -32700 with id
// null, and the next request is served by the same process, which exits 0
// when its input ends.
func TestStdioProcessSurvivesMalformedLine(t *testing.T) {
	cmd := exec.Command(procserver.Binary(t, "deploy"), "-stdio")
	cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS="+procserver.Keys)
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
	io.WriteString(stdin, procserver.ListTools(2)+"\n")
	if got := next("tools/list"); !strings.Contains(got, `"id":2,"result"`) || !strings.Contains(got, `"name":"deploy"`) {
		t.Fatalf("tools/list after the bad line: %.300s", got)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"api"},`+procserver.ModernMeta+"}}\n")
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
	good := procserver.Keys
	cases := []struct{ name, value, want string }{
		{"not base64", good + ",%%%not-base64%%%", "entry 2 is not valid base64"},
		{"wrong length", base64.StdEncoding.EncodeToString([]byte("short key")), "entry 1 decodes to 9 bytes, want 32"},
		{"empty entry", good + ",,", "entry 2 is empty"},
		{"duplicate key", good + "," + good, "key 2 has the same key id as key 1"},
	}
	for _, c := range cases {
		for _, mode := range [][]string{{"-stdio"}, {"-http", "127.0.0.1:0"}} {
			t.Run(c.name+"/"+mode[0], func(t *testing.T) {
				cmd := exec.Command(procserver.Binary(t, "deploy"), mode...)
				cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS="+c.value)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				cmd.Stdin = strings.NewReader(procserver.ListTools(1) + "\n")
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

// TestHTTPProcessSurvivesHostileRequests: the hostile requests of issue
// 12, sent to the deploy command over HTTP on
// 127.0.0.1: each gets an answer, the process keeps running, and a normal
// request is served afterwards.
func TestHTTPProcessSurvivesHostileRequests(t *testing.T) {
	p := procserver.Start(t, "deploy")
	pad := strings.Repeat("A", 50_000)
	paddedAnswer := `{"target":{"action":"accept","content":{"environment":"prod","pad":"` + pad + `"}}}`
	longAction := `{"target":{"action":"` + pad + `"}}`

	// A real first round, for the hostile retries that carry its state.
	status, data := procPost(t, p.URL, procserver.Call(`{"service":"api"}`, "", ""))
	first, _ := procserver.Reply(t, "first round", data)
	state, _ := first["requestState"].(string)
	if status != http.StatusOK || state == "" {
		t.Fatalf("first round: %d %.300s", status, data)
	}

	hostile := []struct {
		name string
		body string
		want int // HTTP status
	}{
		{"oversized undeclared answer, no state", procserver.Call(`{"service":"api"}`, "", paddedAnswer), http.StatusOK},
		{"oversized undeclared answer, with state", procserver.Call(`{"service":"api"}`, state, paddedAnswer), http.StatusOK},
		{"50 kB action, no state", procserver.Call(`{"service":"api"}`, "", longAction), http.StatusOK},
		{"50 kB action, with state", procserver.Call(`{"service":"api"}`, state, longAction), http.StatusOK},
		{"50 kB service argument", procserver.Call(`{"service":"`+pad+`"}`, "", ""), http.StatusOK},
		{"body one byte over the limit", procPadTo(t, elicitrt.DefaultMaxRequestBodyBytes+1), http.StatusRequestEntityTooLarge},
		{"malformed JSON", `{not json`, http.StatusBadRequest},
		{"truncated JSON-RPC", procserver.Call(`{"service":"api"}`, state, paddedAnswer)[:1000], http.StatusBadRequest},
	}
	for _, h := range hostile {
		status, data := procPost(t, p.URL, h.body)
		if p.Exited() {
			t.Fatalf("%s: the process exited: %s", h.name, p.Stderr())
		}
		if status != h.want {
			t.Errorf("%s: HTTP %d %.300s, want %d", h.name, status, data, h.want)
			continue
		}
		if status == http.StatusOK {
			procserver.Reply(t, h.name, data)
		}
		t.Logf("%s: HTTP %d %.160s", h.name, status, data)
	}

	// Still serving: a request at the limit, tools/list and a fresh call.
	status, data = procPost(t, p.URL, procPadTo(t, elicitrt.DefaultMaxRequestBodyBytes))
	if status != http.StatusOK {
		t.Errorf("a request at the body limit: HTTP %d %.300s, want 200", status, data)
	}
	status, data = procPost(t, p.URL, procserver.ListTools(7))
	if status != http.StatusOK || !strings.Contains(data, `"name":"deploy"`) {
		t.Fatalf("tools/list after the hostile requests: %d %.300s", status, data)
	}
	status, data = procPost(t, p.URL, procserver.Call(`{"service":"api"}`, "", ""))
	if res, _ := procserver.Reply(t, "fresh call", data); status != http.StatusOK || res["requestState"] == nil {
		t.Fatalf("a fresh call after the hostile requests: %d %.300s", status, data)
	}
	time.Sleep(100 * time.Millisecond)
	if p.Exited() {
		t.Fatalf("the process exited: %s", p.Stderr())
	}
	if logs := p.Stderr(); strings.Contains(logs, "goroutine ") {
		t.Errorf("the server logged a goroutine dump:\n%s", logs)
	}
}

// procPadTo returns a tools/call of deploy that is exactly size bytes long,
// its service name padded.
func procPadTo(t *testing.T, size int) string {
	t.Helper()
	format := procserver.Call(`{"service":"%s"}`, "", "")
	n := size - len(fmt.Sprintf(format, ""))
	body := fmt.Sprintf(format, strings.Repeat("A", n))
	if len(body) != size {
		t.Fatalf("padded body is %d bytes, want %d", len(body), size)
	}
	return body
}

// TestStdioNoElicitation: over stdio, to a client that declares no
// elicitation, on both eras, the deploy command answers from the
// arguments: without the environment a tool error saying what is missing;
// with it the deploy; production's confirmation, which nobody can give
// here, a preview and a token, then the same call with the token, once.
func TestStdioNoElicitation(t *testing.T) {
	bin := procserver.Binary(t, "deploy")
	for _, era := range hosttest.Eras {
		t.Run(era, func(t *testing.T) {
			cs := hosttest.Connect(t, nil, "stdio", era, hosttest.Options{Command: func() *exec.Cmd { return exec.Command(bin, "-stdio") }})
			call := func(args map[string]any) (string, bool) {
				t.Helper()
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: args})
				if err != nil {
					t.Fatalf("deploy %v: %v", args, err)
				}
				return hosttest.Text(res), res.IsError
			}
			if got, isErr := call(map[string]any{"service": "api"}); !isErr || got != "environment is required: one of dev, staging, prod" {
				t.Fatalf("no environment: %q (error %v)", got, isErr)
			}
			if got, isErr := call(map[string]any{"service": "api", "environment": "staging"}); isErr || got != "Deploying api to staging." {
				t.Fatalf("staging from the arguments: %q (error %v)", got, isErr)
			}
			preview, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api", "environment": "prod"}})
			token := (&elicittest.Outcome{Result: preview}).PreviewToken()
			if err != nil || preview.IsError || token == "" || preview.Content[0].(*mcp.TextContent).Text != "Preview: this deploys api to production." {
				t.Fatalf("production's preview: %+v %v", preview, err)
			}
			confirmed := map[string]any{"service": "api", "environment": "prod", elicitrt.PreviewTokenArgument: token}
			if got, isErr := call(confirmed); isErr || got != "Deploying api to prod." {
				t.Fatalf("confirmed with the token: %q (error %v)", got, isErr)
			}
			if got, isErr := call(confirmed); !isErr || !strings.Contains(got, "new preview") {
				t.Fatalf("the token used again: %q (error %v)", got, isErr)
			}
		})
	}
}
