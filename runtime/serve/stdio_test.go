package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Helpers in this file are prefixed stdioT so they cannot clash with other
// test files of the package.

// stdioTServer is a go-sdk server with one tool, "echo", that returns its
// "text" argument.
func stdioTServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "stdiot", Version: "v0.0.1"}, nil)
	type echoArgs struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo:" + in.Text}}}, nil, nil
	})
	return s
}

// stdioTPeer is the raw client side of a server running on a
// [StdioTransport] over two pipes: it writes lines to the server and reads
// its answers line by line.
type stdioTPeer struct {
	t     *testing.T
	toSrv *io.PipeWriter
	lines chan string // the server's output lines
}

// stdioTRun runs srv on a StdioTransport over pipes (maxLine as
// MaxLineBytes) and returns the raw peer. The server session ends when the
// test does.
func stdioTRun(t *testing.T, srv *mcp.Server, maxLine int) *stdioTPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, &StdioTransport{In: inR, Out: outW, MaxLineBytes: maxLine}) }()
	p := &stdioTPeer{t: t, toSrv: inW, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		inW.Close() // end of input: the session ends
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop after its input ended")
		}
	})
	return p
}

// send writes s to the server as it is (the caller adds the newline).
func (p *stdioTPeer) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.toSrv, s); err != nil {
		p.t.Fatalf("write to server: %v", err)
	}
}

// next returns the server's next output line.
func (p *stdioTPeer) next() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("server output ended")
		}
		return l
	case <-time.After(5 * time.Second):
		p.t.Fatal("no answer from the server within 5s")
	}
	return ""
}

// stdioTListTools is a 2026-07-28 tools/list request line.
func stdioTListTools(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n", id)
}

// stdioTWantError checks that line is exactly a JSON-RPC error response
// with the given id (raw JSON) and code.
func stdioTWantError(t *testing.T, line, wantID string, wantCode int64) {
	t.Helper()
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
		Result  json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		t.Fatalf("answer %q is not JSON: %v", line, err)
	}
	if resp.JSONRPC != "2.0" || string(resp.ID) != wantID || resp.Error == nil || resp.Error.Code != wantCode || resp.Result != nil {
		t.Fatalf("answer %s, want a JSON-RPC error %d with id %s", line, wantCode, wantID)
	}
}

// stdioTWantTools checks that line is the result of tools/list id 1 naming
// the echo tool.
func stdioTWantTools(t *testing.T, line string, id int) {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage([]byte(line))
	if err != nil {
		t.Fatalf("answer %q: %v", line, err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || fmt.Sprint(resp.ID.Raw()) != fmt.Sprint(id) || !bytes.Contains(resp.Result, []byte(`"name":"echo"`)) {
		t.Fatalf("answer %s, want the tools list for id %d", line, id)
	}
}

// A line that is not JSON is answered -32700 with id null and the next
// request is served; so is every other kind of bad line, each with its own
// answer, and the session never ends.
func TestStdioBadLinesAreAnsweredAndSkipped(t *testing.T) {
	p := stdioTRun(t, stdioTServer(), 1024)

	p.send("{not json}\n")
	stdioTWantError(t, p.next(), "null", jsonrpc.CodeParseError)
	p.send(stdioTListTools(1))
	stdioTWantTools(t, p.next(), 1)

	cases := []struct {
		name, line, id string
		code           int64
	}{
		{"truncated", `{"jsonrpc":"2.0","id":2,"method":"tools/li`, "null", jsonrpc.CodeParseError},
		{"two values on a line", `{"jsonrpc":"2.0","id":3,"method":"ping"} {"x":1}`, "null", jsonrpc.CodeParseError},
		{"not UTF-8 JSON", "\xff\xfe{}", "null", jsonrpc.CodeParseError},
		{"wrong version tag", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, "7", jsonrpc.CodeInvalidRequest},
		{"string id kept", `{"jsonrpc":"1.0","id":"abc","method":"ping"}`, `"abc"`, jsonrpc.CodeInvalidRequest},
		{"object id is not echoed", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", jsonrpc.CodeInvalidRequest},
		{"method not a string", `{"jsonrpc":"2.0","id":8,"method":5}`, "8", jsonrpc.CodeInvalidRequest},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, "null", jsonrpc.CodeInvalidRequest},
		{"a number", `42`, "null", jsonrpc.CodeInvalidRequest},
		{"batch", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, "null", jsonrpc.CodeInvalidRequest},
		{"empty batch", `[]`, "null", jsonrpc.CodeInvalidRequest},
		{"line over the limit", `{"jsonrpc":"2.0","id":10,"method":"ping","params":{"pad":"` + strings.Repeat("A", 5000) + `"}}`, "null", jsonrpc.CodeInvalidRequest},
	}
	for i, c := range cases {
		p.send(c.line + "\n")
		stdioTWantError(t, p.next(), c.id, c.code)
		p.send(stdioTListTools(100 + i)) // served after every kind of bad line
		stdioTWantTools(t, p.next(), 100+i)
	}

	// Blank lines are ignored, CRLF is accepted, and a line exactly at the
	// limit is served.
	p.send("\n  \n\r\n")
	p.send(strings.TrimSuffix(stdioTListTools(200), "\n") + "\r\n")
	stdioTWantTools(t, p.next(), 200)
	call := `{"jsonrpc":"2.0","id":201,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	pad := 1024 - len(fmt.Sprintf(call, ""))
	line := fmt.Sprintf(call, strings.Repeat("B", pad))
	if len(line) != 1024 {
		t.Fatalf("test line is %d bytes, want 1024", len(line))
	}
	p.send(line + "\n")
	if got := p.next(); !strings.Contains(got, `"echo:BBB`) {
		t.Fatalf("line at the limit: %s", got)
	}
	p.send(line + "C\n") // one byte over
	stdioTWantError(t, p.next(), "null", jsonrpc.CodeInvalidRequest)
}

// A real go-sdk client and server, both eras: garbage injected into the
// server's input between two calls is answered -32700 (taken off the
// client's stream by a tap, since the go-sdk client would end its session on
// an id-null response) and the session goes on.
func TestStdioRealClientSurvivesGarbage(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("version="+version, func(t *testing.T) {
			inR, inW := io.Pipe()   // client and test -> server
			outR, outW := io.Pipe() // server -> tap
			tapR, tapW := io.Pipe() // tap -> client
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- stdioTServer().Run(ctx, &StdioTransport{In: inR, Out: outW}) }()

			nullAnswers := make(chan string, 4)
			go func() {
				defer tapW.Close()
				sc := bufio.NewScanner(outR)
				for sc.Scan() {
					if strings.Contains(sc.Text(), `"id":null`) {
						nullAnswers <- sc.Text()
						continue
					}
					if _, err := tapW.Write(append(sc.Bytes(), '\n')); err != nil {
						return
					}
				}
			}()

			client := mcp.NewClient(&mcp.Implementation{Name: "stdiot-client", Version: "v0"}, nil)
			cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: tapR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			echo := func(text string) {
				t.Helper()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
				if err != nil {
					t.Fatalf("echo %q: %v", text, err)
				}
				if got := res.Content[0].(*mcp.TextContent).Text; got != "echo:"+text {
					t.Fatalf("echo %q = %q", text, got)
				}
			}
			echo("before")
			if _, err := io.WriteString(inW, "{not json\n"); err != nil {
				t.Fatal(err)
			}
			select {
			case l := <-nullAnswers:
				stdioTWantError(t, l, "null", jsonrpc.CodeParseError)
			case <-ctx.Done():
				t.Fatal("no -32700 answer")
			}
			echo("after")
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatalf("tools/list after garbage: %v", err)
			}
			cs.Close()
			select {
			case <-done:
			case <-ctx.Done():
				t.Fatal("server did not stop after the client closed")
			}
		})
	}
}

// stdioTConn connects a StdioTransport over the given streams.
func stdioTConn(t *testing.T, in io.Reader, out io.Writer, maxLine int) mcp.Connection {
	t.Helper()
	conn, err := (&StdioTransport{In: in, Out: out, MaxLineBytes: maxLine}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// The mcp.Connection contract: Close unblocks a pending Read (even with a
// writer blocked on Out), Close is idempotent and concurrent, Reads end with
// io.EOF at the end of input (once the calls read are answered) and after
// Close, a cancelled context ends Read,
// Write fails after Close once Out is closed, and SessionID is "".
func TestStdioConnContract(t *testing.T) {
	t.Run("close unblocks read and a blocked write", func(t *testing.T) {
		inR, _ := io.Pipe()
		_, outW := io.Pipe() // nobody reads: a write blocks
		conn := stdioTConn(t, inR, outW, 0)
		if id := conn.SessionID(); id != "" {
			t.Errorf("SessionID = %q, want empty", id)
		}
		readErr := make(chan error, 1)
		go func() { _, err := conn.Read(context.Background()); readErr <- err }()
		writeErr := make(chan error, 1)
		go func() {
			req, _ := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/x"}`))
			writeErr <- conn.Write(context.Background(), req)
		}()
		time.Sleep(50 * time.Millisecond)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() { defer wg.Done(); conn.Close() }()
		}
		wg.Wait()
		for name, ch := range map[string]chan error{"Read": readErr, "Write": writeErr} {
			select {
			case err := <-ch:
				if err == nil {
					t.Errorf("%s after Close: nil error", name)
				}
				if name == "Read" && !errors.Is(err, io.EOF) {
					t.Errorf("Read after Close: %v, want io.EOF", err)
				}
			case <-time.After(2 * time.Second):
				t.Fatalf("%s still blocked 2s after Close", name)
			}
		}
		if _, err := conn.Read(context.Background()); !errors.Is(err, io.EOF) {
			t.Errorf("second Read after Close: %v, want io.EOF", err)
		}
		req, _ := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/x"}`))
		if err := conn.Write(context.Background(), req); err == nil {
			t.Error("Write after Close succeeded")
		}
	})

	t.Run("end of input and context", func(t *testing.T) {
		conn := stdioTConn(t, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), io.Discard, 0) // no final newline
		defer conn.Close()
		msg, err := conn.Read(context.Background())
		if req, ok := msg.(*jsonrpc.Request); err != nil || !ok || req.Method != "ping" {
			t.Fatalf("Read = %v, %v; want the ping request", msg, err)
		}
		// The end of input waits for the ping's answer.
		eof := make(chan error, 1)
		go func() { _, err := conn.Read(context.Background()); eof <- err }()
		select {
		case err := <-eof:
			t.Fatalf("Read reported the end of input (%v) before the call read was answered", err)
		case <-time.After(100 * time.Millisecond):
		}
		if err := conn.Write(context.Background(), &jsonrpc.Response{ID: msg.(*jsonrpc.Request).ID, Result: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-eof:
			if !errors.Is(err, io.EOF) {
				t.Fatalf("Read at end of input: %v, want io.EOF", err)
			}
		case <-time.After(time.Second):
			t.Fatal("Read still waiting 1s after the last call was answered")
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := conn.Read(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("Read with a cancelled context: %v", err)
		}
		if err := conn.Write(ctx, &jsonrpc.Request{Method: "x"}); !errors.Is(err, context.Canceled) {
			t.Fatalf("Write with a cancelled context: %v", err)
		}
	})

	t.Run("concurrent writes are whole lines", func(t *testing.T) {
		var out bytes.Buffer
		var mu sync.Mutex
		conn := stdioTConn(t, strings.NewReader(""), stdioTLocked{&mu, &out}, 0)
		defer conn.Close()
		const n = 64
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id, _ := jsonrpc.MakeID(float64(i))
				resp := &jsonrpc.Response{ID: id, Result: json.RawMessage(`{"pad":"` + strings.Repeat("x", 10000) + `"}`)}
				if err := conn.Write(context.Background(), resp); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != n {
			t.Fatalf("%d lines, want %d", len(lines), n)
		}
		for _, l := range lines {
			if _, err := jsonrpc.DecodeMessage([]byte(l)); err != nil {
				t.Fatalf("interleaved output: %v", err)
			}
		}
	})
}

// stdioTLocked is a writer that locks mu around each write to w: the
// transport's own lock is what keeps lines whole, this only keeps the race
// detector from flagging the buffer.
type stdioTLocked struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l stdioTLocked) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// stdioTEndless yields n bytes of 'A' and then a newline, without ever
// holding them: the input of the memory test.
type stdioTEndless struct{ n int }

func (r *stdioTEndless) Read(p []byte) (int, error) {
	if r.n < 0 {
		return 0, io.EOF
	}
	if r.n == 0 {
		p[0] = '\n'
		r.n = -1
		return 1, nil
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = 'A'
	}
	r.n -= k
	return k, nil
}

// A 64 MiB line with a 1 MiB limit is answered -32600 and skipped without
// being buffered: the bytes allocated while reading it stay far below its
// size, and the message after it is read.
func TestStdioLongLineIsNotBuffered(t *testing.T) {
	const lineLen, limit = 64 << 20, 1 << 20
	in := io.MultiReader(&stdioTEndless{n: lineLen}, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"))
	var out bytes.Buffer
	var mu sync.Mutex
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	conn := stdioTConn(t, in, stdioTLocked{&mu, &out}, limit)
	defer conn.Close()
	msg, err := conn.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if req, ok := msg.(*jsonrpc.Request); !ok || req.Method != "ping" {
		t.Fatalf("message after the long line: %v", msg)
	}
	mu.Lock()
	answer := strings.TrimSpace(out.String())
	mu.Unlock()
	stdioTWantError(t, answer, "null", jsonrpc.CodeInvalidRequest)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d KiB while skipping a %d MiB line (limit %d MiB)", allocated>>10, lineLen>>20, limit>>20)
	if allocated > 8*limit {
		t.Errorf("allocated %d bytes while skipping the line, want < %d", allocated, 8*limit)
	}
}

// Input that ends right after its requests (printf '...' | server) still
// gets every answer: the connection holds back the end of input until the
// calls it has read are answered. (The SDK's own stdio transport loses such
// answers about half the time, as its session cancels calls in flight at the
// end of input.) Twenty runs, so a race would show.
func TestStdioAnswersCallsReadBeforeEndOfInput(t *testing.T) {
	input := stdioTListTools(1) + "{not json}\n" + stdioTListTools(2) + stdioTListTools(3)
	for run := range 20 {
		var out bytes.Buffer
		var mu sync.Mutex
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := stdioTServer().Run(ctx, &StdioTransport{In: strings.NewReader(input), Out: stdioTLocked{&mu, &out}})
		cancel()
		if err != nil {
			t.Fatalf("run %d: Run: %v", run, err)
		}
		mu.Lock()
		got := out.String()
		mu.Unlock()
		for _, want := range []string{`"id":null,"error":{"code":-32700`, `"id":1,"result"`, `"id":2,"result"`, `"id":3,"result"`} {
			if !strings.Contains(got, want) {
				t.Fatalf("run %d: output lacks %s:\n%s", run, want, got)
			}
		}
	}
}

// TestStdioSessionKeepsSlimInitialize: an initialize of about 200 kB
// (capabilities.experimental, a 50 kB client name) read from stdio
// initializes at 2025-11-25, and the session keeps under 512 bytes of it:
// the elicitation modes and the name cut to 64 bytes, no experimental
// capabilities. Without the slimming it keeps all of it.
func TestStdioSessionKeepsSlimInitialize(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "stdiot", Version: "v0.0.1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "kept"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		kept, _ := json.Marshal(req.Session.InitializeParams())
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(kept)}}}, nil, nil
	})
	p := stdioTRun(t, s, 0)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{` +
		`"elicitation":{"form":{},"url":{}},"experimental":{"big":"` + strings.Repeat("x", 150_000) + `"}},` +
		`"clientInfo":{"name":"` + strings.Repeat("n", 50_000) + `","version":"1"}}}` + "\n")
	if line := p.next(); !strings.Contains(line, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %.300s", line)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"kept","arguments":{}}}` + "\n")
	var res struct {
		Result mcp.CallToolResult `json:"result"`
	}
	line := p.next()
	if err := json.Unmarshal([]byte(line), &res); err != nil || len(res.Result.Content) != 1 {
		t.Fatalf("tools/call: %v %.300s", err, line)
	}
	kept := res.Result.Content[0].(*mcp.TextContent).Text
	var params mcp.InitializeParams
	if err := json.Unmarshal([]byte(kept), &params); err != nil || len(kept) > 512 {
		t.Fatalf("the session keeps %d bytes of its initialize, want at most 512: %.300s", len(kept), kept)
	}
	if c := params.Capabilities; c == nil || c.Experimental != nil || c.Elicitation == nil || c.Elicitation.Form == nil || c.Elicitation.URL == nil {
		t.Errorf("the session keeps capabilities %s, want both elicitation modes, no experimental", kept)
	}
	if i := params.ClientInfo; i == nil || len(i.Name) > 64 || !strings.HasPrefix(i.Name, "nnn") || i.Version != "1" {
		t.Errorf("the session keeps clientInfo %+v, want the name cut to 64 bytes", i)
	}
}
