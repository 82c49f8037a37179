package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Probe, then initialize: hosts of the 2025-11-25 era that know of
// 2026-07-28 (Claude Code 2.1.280, GitHub Copilot CLI 1.0.8x) send
// server/discover first and then initialize anyway, on one connection
// (docs/results/hosts.md).

const (
	probeDiscover    = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
	probeInitialize  = `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"claude-code","version":"2.1.280"}}}`
	probeInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	probeCall        = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deploy","arguments":{"service":"api"}}}`
)

// stdioPeer is the deploy binary over stdio, spoken to line by line.
type stdioPeer struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan string
}

func startStdioPeer(t *testing.T) *stdioPeer {
	t.Helper()
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
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	p := &stdioPeer{t: t, stdin: stdin, lines: make(chan string)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	return p
}

func (p *stdioPeer) send(line string) { io.WriteString(p.stdin, line+"\n") }

// next returns the next message, decoded.
func (p *stdioPeer) next(what string) map[string]any {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		var msg map[string]any
		if !ok || json.Unmarshal([]byte(l), &msg) != nil {
			p.t.Fatalf("%s: output ended or not JSON: %q", what, l)
		}
		return msg
	case <-time.After(10 * time.Second):
		p.t.Fatalf("%s: no message within 10s", what)
	}
	return nil
}

// TestStdioProbeThenInitialize: on stdio, server/discover then initialize
// (2025-11-25) on one connection gives a 2025-11-25 session that asks
// deploy's form with elicitation/create and completes (before
// StdioTransport.Server: "duplicate initialize received", then
// input_required to a client that cannot read it); a client that only
// probes is still served 2026-07-28.
func TestStdioProbeThenInitialize(t *testing.T) {
	p := startStdioPeer(t)
	p.send(probeDiscover)
	if got := p.next("discover"); !strings.Contains(jsonText(got["result"]), `"2026-07-28"`) {
		t.Fatalf("discover: %v", got)
	}
	p.send(probeInitialize)
	got := p.next("initialize")
	if res, _ := got["result"].(map[string]any); res == nil || res["protocolVersion"] != "2025-11-25" {
		t.Fatalf("initialize after the probe: %v", got)
	}
	p.send(probeInitialized)
	p.send(probeCall)
	ask := p.next("the question")
	params, _ := ask["params"].(map[string]any)
	if ask["method"] != "elicitation/create" || params["message"] != "Which environment should I deploy to?" {
		t.Fatalf("want deploy's form asked with elicitation/create, got %v", ask)
	}
	id, _ := json.Marshal(ask["id"])
	p.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"accept","content":{"environment":"dev"}}}`)
	if got := jsonText(p.next("the result")); !strings.Contains(got, `"id":3`) || !strings.Contains(got, "Deploying api to dev without notifying.") {
		t.Fatalf("the call's result: %s", got)
	}

	modern := startStdioPeer(t)
	modern.send(probeDiscover)
	modern.next("discover")
	modern.send(procCall(`{"service":"api"}`, "", ""))
	if got := jsonText(modern.next("a 2026-07-28 call after the probe")); !strings.Contains(got, `"resultType":"input_required"`) {
		t.Fatalf("a client that only probes: %s", got)
	}
}

// TestHTTPProbeThenInitialize: over HTTP, server/discover then initialize
// on one keep-alive connection: the discover is answered statelessly and
// the initialize opens a 2025-11-25 session (Mcp-Session-Id), whose call
// asks with elicitation/create on its SSE stream and completes.
func TestHTTPProbeThenInitialize(t *testing.T) {
	srv := startProcServer(t)
	var dials atomic.Int32
	dialer := &net.Dialer{}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return dialer.DialContext(ctx, network, addr)
		}}}
	post := func(body, session string, headers ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post(probeDiscover, "", "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover")
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || !strings.Contains(string(b), `"2026-07-28"`) {
		t.Fatalf("discover: %d %s", resp.StatusCode, b)
	}
	resp.Body.Close()
	resp = post(probeInitialize, "")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" || !strings.Contains(string(b), `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize after the probe: %d %s", resp.StatusCode, b)
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("the probe and the initialize took %d connections, want one kept alive", n)
	}
	post(probeInitialized, session).Body.Close()
	stream := post(probeCall, session)
	defer stream.Body.Close()
	events := sseMessages(stream.Body)
	ask := <-events
	if ask["method"] != "elicitation/create" {
		t.Fatalf("want elicitation/create on the call's stream, got %v", ask)
	}
	id, _ := json.Marshal(ask["id"])
	post(`{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"action":"accept","content":{"environment":"dev"}}}`, session).Body.Close()
	if got := jsonText(<-events); !strings.Contains(got, "Deploying api to dev without notifying.") {
		t.Fatalf("the call's result: %s", got)
	}
}

// sseMessages decodes the data lines of an SSE stream, in order; the
// channel closes when the stream ends or holds something else.
func sseMessages(r io.Reader) <-chan map[string]any {
	out := make(chan map[string]any)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			var msg map[string]any
			if !ok || json.Unmarshal([]byte(data), &msg) != nil {
				continue
			}
			out <- msg
		}
	}()
	return out
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
