package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/tasks"
	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
)

// Helpers in this file are prefixed httpT so they cannot clash with other
// test files of the package.

const httpTSchema = `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`

// httpTSeen is what a tool handler observed on one invocation.
type httpTSeen struct {
	ProtocolVersion string // req.ProtocolVersion()
	InitVersion     string // req.Session.InitializeParams().ProtocolVersion
	SessionID       string // req.Session.ID()
	Caps            string // JSON of req.ClientCapabilities()
	Responses       int    // len(req.Params.InputResponses)
	RequestState    string
	User            string // req.Extra.TokenInfo.UserID
	Err             string // error from whatever the handler tried
}

type httpTRecorder struct {
	mu   sync.Mutex
	seen []httpTSeen
}

func (r *httpTRecorder) add(req *mcp.CallToolRequest, err error) {
	s := httpTSeen{
		ProtocolVersion: req.ProtocolVersion(),
		SessionID:       req.Session.ID(),
		Responses:       len(req.Params.InputResponses),
		RequestState:    req.Params.RequestState,
	}
	if p := req.Session.InitializeParams(); p != nil {
		s.InitVersion = p.ProtocolVersion
	}
	if c := req.ClientCapabilities(); c != nil {
		b, _ := json.Marshal(c)
		s.Caps = string(b)
	}
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		s.User = req.Extra.TokenInfo.UserID
	}
	if err != nil {
		s.Err = err.Error()
	}
	r.mu.Lock()
	r.seen = append(r.seen, s)
	r.mu.Unlock()
}

func (r *httpTRecorder) all() []httpTSeen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]httpTSeen(nil), r.seen...)
}

// httpTAccepted reports whether responses[key] is an accepted elicitation
// with ok=true.
func httpTAccepted(responses mcp.InputResponseMap, key string) bool {
	res, ok := responses[key].(*mcp.ElicitResult)
	return ok && res.Action == "accept" && res.Content["ok"] == true
}

func httpTAsk(msg string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: json.RawMessage(httpTSchema)}
}

func httpTText(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// httpTConfirmTool registers "confirm": input_required on the first call,
// done once InputResponses["k1"] is an accepted ok=true.
func httpTConfirmTool(rec *httpTRecorder) func(*mcp.Server) {
	return func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "confirm"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			rec.add(req, nil)
			if httpTAccepted(req.Params.InputResponses, "k1") {
				return httpTText("confirmed, state " + req.Params.RequestState), nil, nil
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"k1": httpTAsk("Proceed?")},
				RequestState:  "x",
			}, nil, nil
		})
	}
}

// httpTServe starts the router on 127.0.0.1 with one server and returns its
// URL. wrap, if set, wraps the router (for auth middleware).
func httpTServe(t *testing.T, opts *elicitrt.HTTPOptions, wrap func(http.Handler) http.Handler, setup ...func(*mcp.Server)) string {
	t.Helper()
	srv := httpt.NewServer(setup...)
	h := NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts, Hooks{Listen: tasks.ServeListen})
	return httpt.Serve(t, h, wrap)
}

// httpTAsked is a client elicitation handler that accepts with ok=true and
// remembers what it was asked.
type httpTAsked struct {
	mu     sync.Mutex
	params []*mcp.ElicitParams
}

func (a *httpTAsked) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	a.params = append(a.params, req.Params)
	a.mu.Unlock()
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
}

func (a *httpTAsked) all() []*mcp.ElicitParams {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*mcp.ElicitParams(nil), a.params...)
}

// httpTConnect connects a go-sdk client over streamable HTTP. version ""
// means the SDK default (2026-07-28).
func httpTConnect(t *testing.T, url, version string, hc *http.Client, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "httpt-client", Version: "v0.0.1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("Connect(version %q): %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func httpTResultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result content = %d blocks, want 1 (result %+v)", len(res.Content), res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("result content is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

// httpTModernCall is a tools/call request of protocol 2026-07-28 with the
// given client capabilities, and the headers SEP-2575 requires with it.
func httpTModernCall(tool, caps string) (map[string]string, string) {
	header := map[string]string{
		"Mcp-Protocol-Version": "2026-07-28",
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             tool,
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}}}`, tool, caps)
	return header, body
}

// (a) A go-sdk client on 2026-07-28 (the default) completes the
// input_required round through its ElicitationHandler, over the modern
// route.
func TestHTTPHandlerModernClientCompletesElicitation(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("JSONResponse=%v", jsonResponse), func(t *testing.T) {
			rec := &httpTRecorder{}
			url := httpTServe(t, &elicitrt.HTTPOptions{JSONResponse: jsonResponse}, nil, httpTConfirmTool(rec))
			asked := &httpTAsked{}
			cs := httpTConnect(t, url, "", nil, &mcp.ClientOptions{ElicitationHandler: asked.handle})
			if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
				t.Fatalf("negotiated %q, want 2026-07-28", got)
			}
			if cs.ID() != "" {
				t.Errorf("modern client got session id %q, want none", cs.ID())
			}

			res, err := cs.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "confirm"})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := httpTResultText(t, res), "confirmed, state x"; got != want {
				t.Errorf("result %q, want %q", got, want)
			}

			seen := rec.all()
			if len(seen) != 2 {
				t.Fatalf("tool ran %d times, want 2: %+v", len(seen), seen)
			}
			for i, s := range seen {
				if s.ProtocolVersion != "2026-07-28" || s.InitVersion != "2026-07-28" || s.SessionID != "" {
					t.Errorf("call %d saw %+v, want modern (2026-07-28, no session)", i, s)
				}
			}
			if seen[0].Responses != 0 || seen[1].Responses != 1 || seen[1].RequestState != "x" {
				t.Errorf("rounds saw %+v, want no responses then k1 with state x", seen)
			}
			if got := seen[0].Caps; !strings.Contains(got, `"elicitation":{"form":{}}`) {
				t.Errorf("ClientCapabilities() = %s, want elicitation form", got)
			}

			params := asked.all()
			if len(params) != 1 {
				t.Fatalf("client asked %d times, want 1", len(params))
			}
			if params[0].Mode != "form" || params[0].Message != "Proceed?" {
				t.Errorf("client was asked %+v", params[0])
			}
			if schema, _ := json.Marshal(params[0].RequestedSchema); !bytes.Contains(schema, []byte(`"required":["ok"]`)) {
				t.Errorf("schema reached client as %s", schema)
			}
		})
	}
}

// (b) A go-sdk client forced to 2025-11-25 gets a stateful session on the
// legacy route, and the SDK's legacy shim turns the input_required result
// into a real elicitation/create request on that session, then reinvokes the
// tool once with the answer.
func TestHTTPHandlerLegacyClientCompletesElicitation(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("JSONResponse=%v", jsonResponse), func(t *testing.T) {
			rec := &httpTRecorder{}
			url := httpTServe(t, &elicitrt.HTTPOptions{JSONResponse: jsonResponse}, nil, httpTConfirmTool(rec))
			asked := &httpTAsked{}
			cs := httpTConnect(t, url, "2025-11-25", nil, &mcp.ClientOptions{ElicitationHandler: asked.handle})
			if got := cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
				t.Fatalf("negotiated %q, want 2025-11-25", got)
			}
			if cs.ID() == "" {
				t.Fatal("legacy client got no Mcp-Session-Id")
			}

			res, err := cs.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "confirm"})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := httpTResultText(t, res), "confirmed, state x"; got != want {
				t.Errorf("result %q, want %q", got, want)
			}

			seen := rec.all()
			if len(seen) != 2 {
				t.Fatalf("tool ran %d times, want 2: %+v", len(seen), seen)
			}
			for i, s := range seen {
				if s.ProtocolVersion != "2025-11-25" || s.InitVersion != "2025-11-25" || s.SessionID != cs.ID() {
					t.Errorf("call %d saw %+v, want legacy 2025-11-25 on session %s", i, s, cs.ID())
				}
			}
			if seen[0].Responses != 0 || seen[1].Responses != 1 || seen[1].RequestState != "x" {
				t.Errorf("rounds saw %+v, want no responses then k1 with state x", seen)
			}
			if len(asked.all()) != 1 {
				t.Errorf("client asked %d times, want 1", len(asked.all()))
			}
		})
	}
}

// (c) A 2026 request from a client without the elicitation capability,
// answered by a tool that returns an unwrapped *jsonrpc.Error -32021, gets
// HTTP 400 with the JSON-RPC error as body, through the router.
func TestHTTPHandlerMissingCapabilityIs400(t *testing.T) {
	needsElicitation := func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "needs-elicitation"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if c := req.ClientCapabilities(); c == nil || c.Elicitation == nil {
				data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{
					RequiredCapabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
				})
				return nil, nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "elicitation required", Data: data}
			}
			return httpTText("ok"), nil, nil
		})
	}
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("JSONResponse=%v", jsonResponse), func(t *testing.T) {
			url := httpTServe(t, &elicitrt.HTTPOptions{JSONResponse: jsonResponse}, nil, needsElicitation)

			header, body := httpTModernCall("needs-elicitation", `{}`)
			status, respHeader, msg := httpt.Post(t, url, header, body)
			if status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400 (body %s)", status, msg)
			}
			if ct := respHeader.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			var resp struct {
				Error *jsonrpc.Error `json:"error"`
			}
			if err := json.Unmarshal(msg, &resp); err != nil || resp.Error == nil {
				t.Fatalf("body %s: not a JSON-RPC error (%v)", msg, err)
			}
			if resp.Error.Code != -32021 || !bytes.Contains(resp.Error.Data, []byte(`"requiredCapabilities"`)) {
				t.Errorf("error = %+v (data %s)", resp.Error, resp.Error.Data)
			}

			// The same call from a client that declares elicitation succeeds.
			header, body = httpTModernCall("needs-elicitation", `{"elicitation":{"form":{}}}`)
			if status, _, msg := httpt.Post(t, url, header, body); status != http.StatusOK || !bytes.Contains(msg, []byte(`"text":"ok"`)) {
				t.Errorf("with capability: status %d body %s", status, msg)
			}
		})
	}
}

// (d) Routing rules, one case per rule and the edges between them. Each case
// also checks that the body the inner handler will read is the original.
func TestHTTPHandlerRoute(t *testing.T) {
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
		initBatch  = `[{"jsonrpc":"2.0","method":"notifications/initialized"},` + initialize + `]`
		discover   = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		modernCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		oldMeta    = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`
		plainCall  = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}`
		answer     = `{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"ok":true}}}`
		positional = `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1,2]}`
	)
	cases := []struct {
		name    string
		method  string
		version string // Mcp-Protocol-Version
		session string // Mcp-Session-Id
		body    string
		want    HTTPRoute
	}{
		{"GET with session", http.MethodGet, "2025-11-25", "s1", "", RouteLegacy},
		{"GET without session", http.MethodGet, "", "", "", RouteLegacy},
		{"DELETE with session", http.MethodDelete, "2025-11-25", "s1", "", RouteLegacy},
		{"PUT", http.MethodPut, "", "", "", RouteLegacy},
		{"initialize", http.MethodPost, "", "", initialize, RouteLegacy},
		{"initialize with old header", http.MethodPost, "2025-06-18", "", initialize, RouteLegacy},
		{"initialize in batch", http.MethodPost, "", "", initBatch, RouteLegacy},
		{"initialize with modern header", http.MethodPost, "2026-07-28", "", initialize, RouteModern},
		{"discover with header", http.MethodPost, "2026-07-28", "", discover, RouteModern},
		{"discover without header", http.MethodPost, "", "", discover, RouteModern},
		{"modern header", http.MethodPost, "2026-07-28", "", modernCall, RouteModern},
		{"later modern header", http.MethodPost, "2027-01-01", "", plainCall, RouteModern},
		{"modern header beats session", http.MethodPost, "2026-07-28", "s1", modernCall, RouteModern},
		{"modern _meta without header", http.MethodPost, "", "", modernCall, RouteModern},
		{"modern _meta beats session", http.MethodPost, "", "s1", modernCall, RouteModern},
		{"session with old header", http.MethodPost, "2025-11-25", "s1", plainCall, RouteLegacy},
		{"session without header (2025-03-26)", http.MethodPost, "", "s1", plainCall, RouteLegacy},
		{"session with old _meta", http.MethodPost, "2025-11-25", "s1", oldMeta, RouteLegacy},
		{"session answering elicitation", http.MethodPost, "2025-11-25", "s1", answer, RouteLegacy},
		{"session with positional params", http.MethodPost, "2025-11-25", "s1", positional, RouteLegacy},
		{"sessionless with old header", http.MethodPost, "2025-11-25", "", plainCall, RouteModern},
		{"sessionless without header", http.MethodPost, "", "", plainCall, RouteModern},
		{"not JSON", http.MethodPost, "", "", "{nope", RouteModern},
		{"empty body", http.MethodPost, "", "", "", RouteModern},
	}
	h := NewHTTPHandler(func(*http.Request) *mcp.Server { return nil }, nil, Hooks{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, "/mcp", strings.NewReader(c.body))
			if c.version != "" {
				r.Header.Set("Mcp-Protocol-Version", c.version)
			}
			if c.session != "" {
				r.Header.Set("Mcp-Session-Id", c.session)
			}
			got, reason, err := h.route(r)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("route = %v (%s), want %v", got, reason, c.want)
			}
			rest, err := io.ReadAll(r.Body)
			if err != nil || string(rest) != c.body {
				t.Errorf("body after routing = %q, %v; want %q", rest, err, c.body)
			}
		})
	}
}

// Rule 6 and rule 5 over HTTP: a POST naming no session and carrying no
// modern marker is served one-shot by the stateless handler with made-up
// legacy state (no capabilities, so nobody can be asked); an unknown session
// id gets the stateful handler's 404.
func TestHTTPHandlerSessionlessAndUnknownSession(t *testing.T) {
	rec := &httpTRecorder{}
	url := httpTServe(t, nil, nil, httpTConfirmTool(rec))

	status, _, msg := httpt.Post(t, url, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if status != http.StatusOK || !bytes.Contains(msg, []byte(`"name":"confirm"`)) {
		t.Errorf("sessionless tools/list: %d %s", status, msg)
	}

	status, _, msg = httpt.Post(t, url, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{}}}`)
	if status != http.StatusOK || !bytes.Contains(msg, []byte(`client does not support elicitation`)) {
		t.Errorf("sessionless tools/call: %d %s", status, msg)
	}
	if seen := rec.all(); len(seen) != 1 || seen[0].ProtocolVersion != "2025-03-26" || seen[0].Caps != "" || seen[0].SessionID != "" {
		t.Errorf("sessionless call saw %+v, want 2025-03-26, no capabilities, no session", seen)
	}

	status, _, msg = httpt.Post(t, url, map[string]string{"Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": "gone"}, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if status != http.StatusNotFound {
		t.Errorf("unknown session: %d %s, want 404", status, msg)
	}
}

// The body limit applies to the router's own read.
func TestHTTPHandlerBodyLimit(t *testing.T) {
	url := httpTServe(t, &elicitrt.HTTPOptions{MaxRequestBodyBytes: 64}, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + strings.Repeat("a", 100) + `"}}`
	if status, _, msg := httpt.Post(t, url, nil, body); status != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d (%s), want 413", status, msg)
	}
}

// The bearer token's TokenInfo reaches tool handlers of both routes as
// req.Extra.TokenInfo when auth middleware wraps the router.
func TestHTTPHandlerTokenInfoBothEras(t *testing.T) {
	rec := &httpTRecorder{}
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "tok-alice" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(time.Hour)}, nil
	}
	url := httpTServe(t, nil, func(h http.Handler) http.Handler {
		return auth.RequireBearerToken(verify, nil)(h)
	}, httpTConfirmTool(rec))
	hc := &http.Client{Transport: httpTBearer{"tok-alice"}}
	for _, version := range []string{"", "2025-11-25"} {
		cs := httpTConnect(t, url, version, hc, &mcp.ClientOptions{ElicitationHandler: (&httpTAsked{}).handle})
		if _, err := cs.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "confirm"}); err != nil {
			t.Fatalf("version %q: %v", version, err)
		}
	}
	seen := rec.all()
	if len(seen) != 4 {
		t.Fatalf("tool ran %d times, want 4", len(seen))
	}
	for i, s := range seen {
		if s.User != "alice" {
			t.Errorf("call %d (%s): TokenInfo.UserID = %q, want alice", i, s.ProtocolVersion, s.User)
		}
	}
}

type httpTBearer struct{ token string }

func (b httpTBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// ---- SDK behaviour the state machine design depends on (docs/design/sdk-notes.md).
// These pin go-sdk v1.8.0; a failure after an SDK upgrade means the notes
// need revisiting.

// A handler that asks twice: on a legacy session the shim does round 1 with
// elicitation/create, reinvokes once, and sends round 2's input_required
// result as it is, with no resultType and "content":[]. A go-sdk legacy
// client's own MRTR middleware then still answers round 2 (it looks at
// inputRequests, not resultType); a client without that middleware sees an
// empty success.
func TestSDKLegacyShimSecondRound(t *testing.T) {
	rec := &httpTRecorder{}
	twice := func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "twice"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			rec.add(req, nil)
			r := req.Params.InputResponses
			switch {
			case httpTAccepted(r, "k2") && req.Params.RequestState == "after-k1":
				return httpTText("both answered"), nil, nil
			case httpTAccepted(r, "k1"):
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"k2": httpTAsk("Really?")}, RequestState: "after-k1"}, nil, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"k1": httpTAsk("Proceed?")}, RequestState: "start"}, nil, nil
		})
	}
	var wire httpTWire
	url := httpTServe(t, nil, nil, twice)

	t.Run("client MRTR middleware on", func(t *testing.T) {
		asked := &httpTAsked{}
		cs := httpTConnect(t, url, "2025-11-25", nil, &mcp.ClientOptions{ElicitationHandler: asked.handle})
		res, err := cs.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "twice"})
		if err != nil {
			t.Fatal(err)
		}
		if got := httpTResultText(t, res); got != "both answered" {
			t.Errorf("result %q", got)
		}
		if n := len(asked.all()); n != 2 {
			t.Errorf("client asked %d times, want 2", n)
		}
		if n := len(rec.all()); n != 3 {
			t.Errorf("tool ran %d times, want 3 (shim round + client retry)", n)
		}
	})

	t.Run("client MRTR middleware off", func(t *testing.T) {
		asked := &httpTAsked{}
		hc := &http.Client{Transport: &wire}
		cs := httpTConnect(t, url, "2025-11-25", hc, &mcp.ClientOptions{
			ElicitationHandler: asked.handle,
			MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		})
		res, err := cs.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "twice"})
		if err != nil {
			t.Fatal(err)
		}
		if res.NeedsInput() || res.IsError || len(res.Content) != 0 {
			t.Errorf("result = %+v, want a plain success with no content", res)
		}
		if _, ok := res.InputRequests["k2"]; !ok || res.RequestState != "after-k1" {
			t.Errorf("result carries inputRequests %v, state %q", res.InputRequests, res.RequestState)
		}
		if n := len(asked.all()); n != 1 {
			t.Errorf("client asked %d times, want 1", n)
		}
		w := wire.find(`"after-k1"`)
		if !strings.Contains(w, `"content":[]`) || strings.Contains(w, `resultType`) {
			t.Errorf("round-2 reply on the wire: %s", w)
		}
	})
}

// httpTWire records the POST response bodies it passes through, as the
// client reads them (SSE streams stay live).
type httpTWire struct {
	mu     sync.Mutex
	bodies []*bytes.Buffer
}

func (w *httpTWire) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost {
		return resp, err
	}
	buf := new(bytes.Buffer)
	w.mu.Lock()
	w.bodies = append(w.bodies, buf)
	w.mu.Unlock()
	resp.Body = httpTTee{io.TeeReader(resp.Body, httpTLocked{&w.mu, buf}), resp.Body}
	return resp, nil
}

func (w *httpTWire) find(substr string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range w.bodies {
		if strings.Contains(b.String(), substr) {
			return b.String()
		}
	}
	return ""
}

type httpTTee struct {
	io.Reader
	io.Closer
}

type httpTLocked struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (l httpTLocked) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// req.Session.Elicit inside a tool handler: works, any number of times, on a
// legacy stateful session; fails at once on a modern request.
func TestSDKSessionElicitInToolHandler(t *testing.T) {
	rec := &httpTRecorder{}
	direct := func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "direct"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			for round := range 2 {
				res, err := req.Session.Elicit(ctx, httpTAsk(fmt.Sprintf("round %d", round)))
				if err != nil {
					rec.add(req, err)
					return nil, nil, err
				}
				if res.Action != "accept" {
					return httpTText("declined"), nil, nil
				}
			}
			rec.add(req, nil)
			return httpTText("asked twice"), nil, nil
		})
	}
	url := httpTServe(t, nil, nil, direct)

	asked := &httpTAsked{}
	legacy := httpTConnect(t, url, "2025-11-25", nil, &mcp.ClientOptions{ElicitationHandler: asked.handle})
	res, err := legacy.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "direct"})
	if err != nil {
		t.Fatal(err)
	}
	if got := httpTResultText(t, res); got != "asked twice" || len(asked.all()) != 2 {
		t.Errorf("legacy: result %q after %d questions", got, len(asked.all()))
	}

	modern := httpTConnect(t, url, "", nil, &mcp.ClientOptions{ElicitationHandler: asked.handle})
	res, err = modern.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "direct"})
	if err != nil {
		t.Fatal(err)
	}
	seen := rec.all()
	if !res.IsError || len(seen) != 2 || !strings.Contains(seen[1].Err, "cannot be sent while serving a request on protocol version 2026-07-28") {
		t.Errorf("modern: result %+v, seen %+v", res, seen)
	}
}

// Load shedding: InputRequests: {} goes out on a modern request as
// resultType input_required with inputRequests {}; on a legacy session the
// shim turns it into a tool error "the server is busy, retry later".
func TestSDKLoadShedding(t *testing.T) {
	busy := func(s *mcp.Server) {
		mcp.AddTool(s, &mcp.Tool{Name: "busy"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}, RequestState: "s"}, nil, nil
		})
	}
	url := httpTServe(t, nil, nil, busy)

	header, body := httpTModernCall("busy", `{}`)
	status, _, msg := httpt.Post(t, url, header, body)
	var resp struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(msg, &resp); err != nil || status != http.StatusOK {
		t.Fatalf("status %d body %s", status, msg)
	}
	if got := string(resp.Result["resultType"]) + " " + string(resp.Result["inputRequests"]) + " " + string(resp.Result["requestState"]); got != `"input_required" {} "s"` {
		t.Errorf("modern wire result: %s", msg)
	}
	if c := string(resp.Result["content"]); c != "null" {
		t.Errorf(`modern input_required result has "content":%s, want null`, c)
	}

	legacy := httpTConnect(t, url, "2025-11-25", nil, nil)
	_, err := legacy.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "busy"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || !strings.Contains(werr.Message, "the server is busy, retry later") {
		t.Errorf("legacy: err = %v", err)
	}
}

// In-memory transports run modern by default (the client's server/discover
// succeeds, the transport claims every version) and legacy when the client
// asks for 2025-11-25.
func TestSDKInMemoryEra(t *testing.T) {
	for _, c := range []struct{ ask, want string }{{"", "2026-07-28"}, {"2025-11-25", "2025-11-25"}} {
		rec := &httpTRecorder{}
		srv := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "v0"}, nil)
		httpTConfirmTool(rec)(srv)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, &mcp.ClientOptions{ElicitationHandler: (&httpTAsked{}).handle})
		cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: c.ask})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "confirm"}); err != nil {
			t.Errorf("ask %q: %v", c.ask, err)
		}
		if got := cs.InitializeResult().ProtocolVersion; got != c.want {
			t.Errorf("ask %q: negotiated %q, want %q", c.ask, got, c.want)
		}
		if seen := rec.all(); len(seen) != 2 || seen[0].ProtocolVersion != c.want {
			t.Errorf("ask %q: tool saw %+v", c.ask, seen)
		}
		cs.Close()
		ss.Wait()
	}
}

// ---- Hardening: body limit, Origin allow-list, server timeouts.

// httpTSizeTool registers "size", which answers the length of its "pad"
// argument.
func httpTSizeTool(s *mcp.Server) {
	type sizeArgs struct {
		Pad string `json:"pad"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "size"}, func(_ context.Context, _ *mcp.CallToolRequest, in sizeArgs) (*mcp.CallToolResult, any, error) {
		return httpTText(fmt.Sprintf("pad %d", len(in.Pad))), nil, nil
	})
}

// httpTPadded returns format (with one %s) filled with as many "A"s as make
// it exactly size bytes.
func httpTPadded(t *testing.T, format string, size int) string {
	t.Helper()
	n := size - len(fmt.Sprintf(format, ""))
	if n < 0 {
		t.Fatalf("size %d is below the request's own length", size)
	}
	body := fmt.Sprintf(format, strings.Repeat("A", n))
	if len(body) != size {
		t.Fatalf("padded body is %d bytes, want %d", len(body), size)
	}
	return body
}

// With default options, a body of exactly DefaultMaxRequestBodyBytes is
// served and one byte more gets 413 without reaching the tool, on each path
// a body takes: read by the SDK's stateless handler alone (modern version
// header), read by the router first (modern _meta without the header, then
// the stateless handler), and read by the router for the stateful handler
// (an initialize).
func TestHTTPHandlerDefaultBodyLimit(t *testing.T) {
	if DefaultMaxRequestBodyBytes != 256<<10 {
		t.Fatalf("DefaultMaxRequestBodyBytes = %d, documented as 256 KiB", DefaultMaxRequestBodyBytes)
	}
	url := httpTServe(t, nil, nil, httpTSizeTool)
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"size","arguments":{"pad":"%s"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	const legacyCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"size","arguments":{"pad":"%s"}}}`
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{},"clientInfo":{"name":"%s","version":"v0"}}}`
	modernHeader := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "size"}
	cases := []struct {
		name   string
		header map[string]string
		format string
		served string // in the reply to the body at the limit
	}{
		{"modern (the SDK reads)", modernHeader, call, `pad `},
		{"sessionless 2025-11-25 (the router reads, then the SDK)", map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, legacyCall, `pad `},
		{"initialize (the router reads, then the stateful SDK handler)", nil, initialize, `"protocolVersion":"2025-11-25"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			at := httpTPadded(t, c.format, DefaultMaxRequestBodyBytes)
			status, _, msg := httpt.Post(t, url, c.header, at)
			if status != http.StatusOK || !bytes.Contains(msg, []byte(c.served)) {
				t.Fatalf("at the limit: %d %.300s, want 200 with %s", status, msg, c.served)
			}
			if strings.Contains(c.format, "tools/call") {
				want := fmt.Sprintf("pad %d", DefaultMaxRequestBodyBytes-len(fmt.Sprintf(c.format, "")))
				if !bytes.Contains(msg, []byte(want)) {
					t.Fatalf("at the limit the tool did not see the whole pad: %.300s, want %q", msg, want)
				}
			}
			status, _, msg = httpt.Post(t, url, c.header, httpTPadded(t, c.format, DefaultMaxRequestBodyBytes+1))
			if status != http.StatusRequestEntityTooLarge {
				t.Fatalf("one byte over: %d %.300s, want 413", status, msg)
			}
		})
	}
}

// AllowedOrigins: a listed Origin (any case, trailing slash in the list
// ignored) and a request without Origin are served; any other Origin,
// "null", or two Origin headers get 403 on every method before the tool runs.
// Without the option the same foreign Origin is served (the control).
func TestHTTPHandlerAllowedOrigins(t *testing.T) {
	rec := &httpTRecorder{}
	url := httpTServe(t, &elicitrt.HTTPOptions{AllowedOrigins: []string{"https://app.example.com", "http://localhost:5173/"}}, nil, httpTConfirmTool(rec))
	open := httpTServe(t, nil, nil, httpTConfirmTool(&httpTRecorder{}))
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	send := func(url, method string, origins ...string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(list))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		for _, o := range origins {
			req.Header.Add("Origin", o)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, origins := range [][]string{nil, {"https://app.example.com"}, {"HTTPS://APP.Example.com"}, {"http://localhost:5173"}} {
		if status, body := send(url, http.MethodPost, origins...); status != http.StatusOK || !strings.Contains(body, `"confirm"`) {
			t.Errorf("Origin %q: %d %.200s, want 200 with the tools", origins, status, body)
		}
	}
	refused := [][]string{{"https://evil.example"}, {"https://app.example.com.evil.example"}, {"http://app.example.com"},
		{"https://app.example.com:8443"}, {"null"}, {""}, {"https://app.example.com", "https://evil.example"}}
	for _, origins := range refused {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			if status, body := send(url, method, origins...); status != http.StatusForbidden {
				t.Errorf("%s with Origin %q: %d %.200s, want 403", method, origins, status, body)
			}
		}
	}
	// A tools/call from a refused origin never reaches the tool.
	header, body := httpTModernCall("confirm", `{"elicitation":{}}`)
	header["Origin"] = "https://evil.example"
	if status, _, msg := httpt.Post(t, url, header, body); status != http.StatusForbidden {
		t.Errorf("tools/call from a foreign origin: %d %s, want 403", status, msg)
	}
	if n := len(rec.all()); n != 0 {
		t.Errorf("the tool ran %d times for refused origins", n)
	}
	if status, body := send(open, http.MethodPost, "https://evil.example"); status != http.StatusOK {
		t.Errorf("control, no AllowedOrigins: %d %.200s, want 200", status, body)
	}
}

// NewHTTPServer sets the documented limits; its header timeout drops a
// client that trickles its headers, and its read timeout does not cut a
// legacy SSE response that waits longer than it for a person's answer (the
// reason there is no WriteTimeout). The timeouts are shortened here, with
// the same mechanism.
func TestNewHTTPServerTimeouts(t *testing.T) {
	srv := NewHTTPServer("127.0.0.1:0", http.NotFoundHandler())
	if srv.ReadHeaderTimeout != 10*time.Second || srv.ReadTimeout != 30*time.Second || srv.IdleTimeout != 120*time.Second ||
		srv.WriteTimeout != 0 || srv.MaxHeaderBytes != 64<<10 || srv.Addr != "127.0.0.1:0" {
		t.Fatalf("NewHTTPServer = %+v, not as documented", srv)
	}

	mcpServer := mcp.NewServer(&mcp.Implementation{Name: "httpt", Version: "v0.0.1"}, nil)
	httpTConfirmTool(&httpTRecorder{})(mcpServer)
	srv = NewHTTPServer("", NewHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer }, nil, Hooks{}))
	srv.ReadHeaderTimeout = 200 * time.Millisecond
	srv.ReadTimeout = 300 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	url := "http://" + ln.Addr().String()

	// Slow headers: the server closes the connection after ReadHeaderTimeout.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\n", ln.Addr())
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = io.ReadAll(conn) // a 408 and EOF, or a reset, once the server gives up
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("a client trickling its headers was not dropped within 5s")
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Fatalf("slow headers dropped after %v, want about 200ms", waited)
	}

	// A legacy question answered after 1s (> ReadTimeout) still completes.
	slow := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		time.Sleep(time.Second)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
	}
	cs := httpTConnect(t, url, "2025-11-25", nil, &mcp.ClientOptions{ElicitationHandler: slow})
	res, err := cs.CallTool(httpt.Ctx(t), &mcp.CallToolParams{Name: "confirm"})
	if err != nil {
		t.Fatalf("legacy call with a slow answer: %v", err)
	}
	if got := httpTResultText(t, res); got != "confirmed, state x" {
		t.Fatalf("legacy call with a slow answer: %q", got)
	}
}
