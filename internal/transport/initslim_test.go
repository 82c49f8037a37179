package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
)

// hugeInitSeen is what a tool saw of its 2025-11-25 session.
type hugeInitSeen struct {
	kept      []byte // JSON of req.Session.InitializeParams()
	params    *mcp.InitializeParams
	caps      *mcp.ClientCapabilities // req.ClientCapabilities()
	form, url error                   // of the session's Elicit in each mode
}

// hugeInitTool registers "seen", which records what its session keeps and
// asks the client once in form mode and once in URL mode.
func hugeInitTool(mu *sync.Mutex, seen *hugeInitSeen) func(*mcp.Server) {
	return func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "seen"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			p := req.Session.InitializeParams()
			kept, _ := json.Marshal(p)
			_, form := req.Session.Elicit(ctx, httpTAsk("Proceed?"))
			_, url := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/x", ElicitationID: "e1"})
			mu.Lock()
			*seen = hugeInitSeen{kept: kept, params: p, caps: req.ClientCapabilities(), form: form, url: url}
			mu.Unlock()
			return httpTText("ok"), nil, nil
		})
	}
}

// hugeClient is a 2025-11-25 go-sdk client whose initialize carries about
// 240 kB, under the default body limit: in capabilities.experimental,
// another extension's settings, clientInfo's name, title, version and
// website; it declares form and URL elicitation and the tasks extension.
func hugeClient(asked *httpTAsked) (*mcp.Client, *mcp.ClientOptions) {
	pad := func(n int) string { return strings.Repeat("x", n) }
	caps := &mcp.ClientCapabilities{
		Experimental: map[string]any{"a": pad(60_000), "b": map[string]any{"c": pad(60_000)}},
		Elicitation:  &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		//lint:ignore SA1019 a 2025-11-25 client may still declare roots
		RootsV2: &mcp.RootCapabilities{ListChanged: true},
	}
	caps.AddExtension(machine.TasksExtension, map[string]any{"note": pad(20_000)})
	caps.AddExtension("example.com/other", map[string]any{"big": pad(30_000)})
	impl := &mcp.Implementation{Name: "huge-" + pad(40_000), Title: pad(10_000), Version: "1." + pad(10_000), WebsiteURL: "https://" + pad(5_000)}
	opts := &mcp.ClientOptions{Capabilities: caps, ElicitationHandler: asked.handle}
	return mcp.NewClient(impl, opts), opts
}

// TestHTTPHandlerSessionKeepsSlimInitialize: a 2025-11-25 session keeps
// only what the server reads of its initialize. A go-sdk client whose
// initialize carries about 240 kB (experimental capabilities, another
// extension's settings, a 40 kB client name...) still initializes at
// 2025-11-25 over HTTP on 127.0.0.1; in the tool its session's
// InitializeParams hold under 512 bytes: no experimental capabilities,
// the tasks extension alone (as an empty object), the roots capability,
// the client's name and version cut as the log cuts them; the request
// still reads both elicitation modes, and the SDK's Elicit succeeds in
// form and in URL mode. Without the slimming the session keeps all 240 kB.
func TestHTTPHandlerSessionKeepsSlimInitialize(t *testing.T) {
	var mu sync.Mutex
	var seen hugeInitSeen
	url := httpTServe(t, nil, nil, hugeInitTool(&mu, &seen))
	asked := &httpTAsked{}
	client, _ := hugeClient(asked)
	cs, err := client.Connect(httpt.Ctx(t), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("huge initialize: %v", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Fatalf("negotiated %q, want 2025-11-25", got)
	}
	if _, err := cs.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "seen"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	p := seen.params
	if p == nil || len(seen.kept) > 512 {
		t.Fatalf("the session keeps %d bytes of its initialize, want at most 512: %.300s", len(seen.kept), seen.kept)
	}
	c := p.Capabilities
	//lint:ignore SA1019 the session keeps the roots capability
	roots := c != nil && c.RootsV2 != nil && c.RootsV2.ListChanged
	if c == nil || c.Experimental != nil || len(c.Extensions) != 1 || !machine.DeclaresTasks(c) || !roots {
		t.Errorf("the session keeps capabilities %s, want the tasks extension alone, roots, no experimental", seen.kept)
	}
	if i := p.ClientInfo; i == nil || len(i.Name) > SessionClientNameBytes || !strings.HasPrefix(i.Name, "huge-xxx") ||
		len(i.Version) > SessionClientVersionBytes || !strings.HasPrefix(i.Version, "1.xx") || i.Title != "" || i.WebsiteURL != "" {
		t.Errorf("the session keeps clientInfo %+v, want the name and version cut, nothing else", i)
	}
	if c := seen.caps; c == nil || c.Elicitation == nil || c.Elicitation.Form == nil || c.Elicitation.URL == nil {
		t.Errorf("the request reads capabilities %+v, want form and URL elicitation", c)
	}
	if seen.form != nil || seen.url != nil || len(asked.all()) != 2 {
		t.Errorf("Elicit: form %v, url %v, client asked %d times; want both asked", seen.form, seen.url, len(asked.all()))
	}
}

// TestHTTPHandlerSlimsBatchedInitialize: a POST without a version header
// counts as 2025-03-26, where the SDK accepts a JSON-RPC batch; an
// initialize in one is slimmed too (its session keeps no experimental
// capabilities), and a batch whose nesting the SDK refuses is left as it
// is (the SDK answers 400, no session).
func TestHTTPHandlerSlimsBatchedInitialize(t *testing.T) {
	srv := httpt.NewServer()
	ts := httpt.Serve(t, NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil, Hooks{}), nil)
	init := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-03-26",` +
		`"capabilities":{"experimental":{"big":"` + strings.Repeat("y", 100_000) + `"},"elicitation":{}},"clientInfo":{"name":"batch","version":"1"}}}`
	status, header, body := httpt.Post(t, ts, nil, "["+init+"]")
	if status != http.StatusOK || header.Get(httpSessionHeader) == "" || !strings.Contains(string(body), `"id":7`) {
		t.Fatalf("batched initialize: HTTP %d, session %q: %.300s", status, header.Get(httpSessionHeader), body)
	}
	for ss := range srv.Sessions() {
		p := ss.InitializeParams()
		if p == nil || p.Capabilities == nil || p.Capabilities.Experimental != nil || p.Capabilities.Elicitation == nil {
			t.Errorf("the batch's session keeps %+v, want elicitation and no experimental capabilities", p)
		}
	}
	// An initialize nested as deep as the SDK reads a message, in a batch
	// one deeper: the SDK reads the initialize alone, not the batch.
	deep := strings.Repeat("[", sdkMaxDepth-4) + strings.Repeat("]", sdkMaxDepth-4)
	deepInit := strings.Replace(init, `"experimental":{`, `"experimental":{"d":`+deep+`,`, 1)
	if nestedDeeper([]byte(deepInit), sdkMaxDepth) || !nestedDeeper([]byte("["+deepInit+"]"), sdkMaxDepth) {
		t.Fatal("the deep initialize is not as deep as the SDK reads")
	}
	if status, _, _ := httpt.Post(t, ts, nil, "["+deepInit+"]"); status != http.StatusBadRequest {
		t.Errorf("a batch nested deeper than the SDK reads: HTTP %d, want its 400", status)
	}
}

// TestHTTPHandlerSetLevelBounded: the SDK keeps the level a session sets
// for the session's life, unchecked; the router answers a
// logging/setLevel of a level MCP does not name with 400 and -32602, and
// lets a named one through.
func TestHTTPHandlerSetLevelBounded(t *testing.T) {
	srv := httpt.NewServer()
	ts := httpt.Serve(t, NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil, Hooks{}), nil)
	_, header, _ := httpt.Post(t, ts, nil, legacyInitialize)
	h := map[string]string{httpSessionHeader: header.Get(httpSessionHeader), httpVersionHeader: "2025-11-25"}
	setLevel := func(level string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"` + level + `"}}`
	}
	if status, _, body := httpt.Post(t, ts, h, setLevel(strings.Repeat("z", 200_000))); status != http.StatusBadRequest ||
		!strings.Contains(string(body), "-32602") {
		t.Errorf("a 200 kB level: HTTP %d %.200s, want 400 with -32602", status, body)
	}
	if status, _, body := httpt.Post(t, ts, h, setLevel("warning")); status != http.StatusOK || strings.Contains(string(body), "error") {
		t.Errorf("level warning: HTTP %d %.200s, want 200", status, body)
	}
}
