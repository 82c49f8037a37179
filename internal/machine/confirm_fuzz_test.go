package machine_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/serve"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// postDeploy posts one tools/call of deploy through the HTTP handler h,
// on 2026-07-28 from a client that can show forms, with args and
// inputResponses written into the body as they are, so that any bytes
// reach the server. It returns the call's result (nil for a JSON-RPC
// error), and ok false when the reply is neither a result nor an error.
func postDeploy(h http.Handler, args, state, inputResponses string) (res *mcp.CallToolResult, ok bool) {
	var body strings.Builder
	body.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":` + args)
	if state != "" {
		quoted, _ := json.Marshal(state)
		body.WriteString(`,"requestState":` + string(quoted))
	}
	if inputResponses != "" {
		body.WriteString(`,"inputResponses":` + inputResponses)
	}
	body.WriteString(`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}`)
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body.String()))
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"deploy"}}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var reply struct {
		Result *mcp.CallToolResult `json:"result"`
		Error  json.RawMessage     `json:"error"`
	}
	if json.Unmarshal(rec.Body.Bytes(), &reply) != nil {
		return nil, false
	}
	return reply.Result, reply.Result != nil || reply.Error != nil
}

// FuzzConfirmOnce posts any inputResponses to deploy, with the two states
// of one production flow (round 1 asks the target, round 2 the
// confirmation) or none (the environment prefilled from the arguments),
// through the HTTP handler. Whatever arrives, the reply is a result or a
// JSON-RPC error; production is deployed only after an accepted
// confirmation under the key the round-2 state asked, and at most once for
// the flow, whichever state is replayed.
//
// Each exec has a flow and a replay guard of its own: with one shared
// guard the first input that deployed would make every later wrongly
// accepted one a refused replay, which could hide it. The server is built
// once per process (execs run one at a time); its guard is swapped for a
// new one at each exec.
func FuzzConfirmOnce(f *testing.F) {
	const args, prefilled = `{"service":"api"}`, `{"service":"api","environment":"prod"}`
	guard := &execGuard{}
	server := deployServer(&elicitrt.ToolOptions{Keys: deployKeys, Replay: guard}, deployer{})
	h := serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, &elicitrt.HTTPOptions{JSONResponse: true})
	// flow gives the server a new guard, starts a production flow and
	// returns its two states.
	flow := func(tb testing.TB) [2]string {
		guard.g.Store(&backend.MemoryReplayGuard{})
		round1, _ := postDeploy(h, args, "", "")
		if round1 == nil || round1.RequestState == "" {
			tb.Fatalf("round 1: %+v", round1)
		}
		round2, _ := postDeploy(h, args, round1.RequestState, `{"target":{"action":"accept","content":{"environment":"prod"}}}`)
		if round2 == nil || round2.RequestState == "" || round2.InputRequests["confirm"] == nil {
			tb.Fatalf("round 2: %+v", round2)
		}
		return [2]string{round1.RequestState, round2.RequestState}
	}
	flow(f) // fail early, before any input, when the flow itself is broken
	for _, seed := range []string{
		`{"confirm":{"action":"accept","content":{"confirm":true}}}`,
		`{"confirm":{"action":"accept","content":{"confirm":false}}}`,
		`{"confirm":{"action":"accept","content":{"confirm":true,"pad":"` + strings.Repeat("A", 600) + `"}}}`,
		`{"target":{"action":"accept","content":{"environment":"prod"}},"confirm":{"action":"accept","content":{"confirm":true}}}`,
		`{"confirm.2":{"action":"accept","content":{"confirm":true}}}`,
		`{"confirm":{"action":"` + strings.Repeat("x", 500) + `"}}`,
		`{"confirm":{"action":"decline"}}`, `{}`, `null`,
	} {
		for mode := range 3 {
			f.Add(uint8(mode), seed)
		}
	}
	f.Fuzz(func(t *testing.T, mode uint8, inputResponses string) {
		states := flow(t)
		// post sends the input with the exec's state of this mode (none
		// for mode 0) and reports whether production was deployed.
		post := func(mode uint8) bool {
			var res *mcp.CallToolResult
			var ok bool
			switch mode {
			case 0:
				res, ok = postDeploy(h, prefilled, "", inputResponses)
			default:
				res, ok = postDeploy(h, args, states[mode-1], inputResponses)
			}
			if !ok && json.Valid([]byte(`{"r":`+inputResponses+`}`)) {
				t.Fatalf("no JSON-RPC reply to inputResponses %.200q", inputResponses)
			}
			if res == nil || res.IsError || res.NeedsInput() || len(res.Content) == 0 {
				return false
			}
			text, _ := res.Content[0].(*mcp.TextContent)
			return text != nil && strings.HasPrefix(text.Text, "Deploying api to prod")
		}
		mode %= 3
		if !post(mode) {
			return
		}
		var responses mcp.InputResponseMap
		if err := json.Unmarshal([]byte(inputResponses), &responses); err != nil {
			t.Fatalf("deployed on inputResponses the SDK cannot read: %v", err)
		}
		answer, _ := responses["confirm"].(*mcp.ElicitResult)
		if mode != 2 || answer == nil || answer.Action != "accept" || answer.Content["confirm"] != true {
			t.Fatalf("deployed to production without the asked confirmation (mode %d): %.200q", mode, inputResponses)
		}
		// The flow is done: neither of its states completes again.
		for _, again := range []uint8{2, 1} {
			if post(again) {
				t.Fatalf("deployed to production twice in one flow (replayed the state of round %d): %.200q", again, inputResponses)
			}
		}
	})
}

// execGuard is FuzzConfirmOnce's replay guard: the MemoryReplayGuard of the
// current exec.
type execGuard struct {
	g atomic.Pointer[backend.MemoryReplayGuard]
}

func (e *execGuard) Claim(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	return e.g.Load().Claim(ctx, id, ttl)
}
