package procserver

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// Keys is a well-formed ELICITGEN_STATE_KEYS value.
var Keys = base64.StdEncoding.EncodeToString([]byte("process-test-key-0123456789abcde"))

// commands is the import path of the commands' directory: go build takes
// an import path from any directory of the module.
const commands = "github.com/elicitgen/elicitgen/internal/testkit/procserver/"

var built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]string
}

// Binary is the command name of this package (deploy, report) built with
// hosttest.BuildBinary, so that the mutation tool's cache and overlay
// apply: once a test process, into a directory that Main removes.
func Binary(tb testing.TB, name string) string {
	tb.Helper()
	built.mu.Lock()
	defer built.mu.Unlock()
	if bin, ok := built.bins[name]; ok {
		return bin
	}
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "procserver-")
		if err != nil {
			tb.Fatal(err)
		}
		built.dir, built.bins = dir, map[string]string{}
	}
	bin, err := hosttest.BuildBinary(commands+name, filepath.Join(built.dir, name))
	if err != nil {
		tb.Fatal(err)
	}
	built.bins[name] = bin
	return bin
}

// Main is the TestMain body of a package whose tests use Binary.
func Main(m *testing.M) int {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	return code
}

// Process is a command serving HTTP on 127.0.0.1, on a port of its
// choosing, until the test ends.
type Process struct {
	Cmd  *exec.Cmd
	URL  string        // the MCP endpoint
	done chan struct{} // closed when the process has exited
	log  hosttest.LogBuffer
}

// Start runs the command name with -http 127.0.0.1:0, flags and Keys,
// and reads the address it logs.
func Start(tb testing.TB, name string, flags ...string) *Process {
	tb.Helper()
	cmd := exec.Command(Binary(tb, name), append([]string{"-http", "127.0.0.1:0"}, flags...)...)
	p := &Process{Cmd: cmd, done: make(chan struct{})}
	p.Cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS="+Keys)
	errPipe, err := p.Cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := p.Cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		serving := regexp.MustCompile(`serving MCP at (http://127\.0\.0\.1:\d+/mcp)`)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			p.log.Write(append(sc.Bytes(), '\n'))
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		p.Cmd.Wait()
		close(p.done)
	}()
	tb.Cleanup(func() {
		p.Cmd.Process.Kill()
		<-p.done
	})
	select {
	case p.URL = <-urls:
	case <-p.done:
		tb.Fatalf("the server exited at start: %s", p.Stderr())
	case <-time.After(10 * time.Second):
		tb.Fatalf("the server did not log its address within 10s: %s", p.Stderr())
	}
	return p
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stderr is what the process wrote on its standard error so far.
func (p *Process) Stderr() string { return p.log.String() }

// Headers are the HTTP headers of a 2026-07-28 POST of body: Mcp-Method
// tools/list, or tools/call with Mcp-Name deploy.
func Headers(body string) map[string]string {
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "deploy"}
	if strings.Contains(body, `"method":"tools/list"`) {
		h["Mcp-Method"] = "tools/list"
		delete(h, "Mcp-Name")
	}
	return h
}

// Reply decodes a JSON-RPC reply, failing the test unless it is one.
func Reply(tb testing.TB, what, data string) (result, rpcErr map[string]any) {
	tb.Helper()
	var msg struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal([]byte(data), &msg); err != nil || (msg.Result == nil && msg.Error == nil) {
		tb.Fatalf("%s: reply is not a JSON-RPC result or error: %.300s", what, data)
	}
	return msg.Result, msg.Error
}
