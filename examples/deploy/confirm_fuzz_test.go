package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// postDeploy posts one tools/call of deploy through the HTTP handler, with
// arguments and inputResponses spliced in as they are; it returns the
// JSON-RPC reply's result or error, or ok false when the body was not JSON.
func postDeploy(h http.Handler, args, state, inputResponses string) (res *mcp.CallToolResult, rpcErr map[string]any, ok bool) {
	params := `"name":"deploy","arguments":` + args
	if state != "" {
		params += `,"requestState":` + strconv.Quote(state)
	}
	if inputResponses != "" {
		params += `,"inputResponses":` + inputResponses
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + params + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}`
	req := httptest.NewRequest("POST", "/", strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "deploy"} {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	raw, _ := io.ReadAll(rec.Result().Body)
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  map[string]any  `json:"error"`
	}
	if json.Unmarshal(raw, &reply) != nil {
		return nil, nil, false
	}
	if reply.Error != nil {
		return nil, reply.Error, true
	}
	res = new(mcp.CallToolResult)
	if json.Unmarshal(reply.Result, res) != nil {
		return nil, nil, false
	}
	return res, nil, true
}

// FuzzConfirmOnce posts any inputResponses to deploy, with the two states
// of one production flow (round 1 asks the target, round 2 the
// confirmation) or none (the environment prefilled from the arguments),
// through the HTTP handler. Whatever arrives, the reply is a result or a
// JSON-RPC error; production is deployed only after an accepted
// confirmation under the key the round-2 state asked, and at most once for
// the flow, whichever state is replayed.
func FuzzConfirmOnce(f *testing.F) {
	server := newServer(&elicitrt.ToolOptions{Keys: keys, Replay: &elicitrt.MemoryReplayGuard{}})
	h := elicitrt.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, &elicitrt.HTTPOptions{JSONResponse: true})
	const args, prefilled = `{"service":"api"}`, `{"service":"api","environment":"prod"}`
	round1, _, _ := postDeploy(h, args, "", "")
	if round1 == nil || round1.RequestState == "" {
		f.Fatalf("round 1: %+v", round1)
	}
	round2, _, _ := postDeploy(h, args, round1.RequestState, `{"target":{"action":"accept","content":{"environment":"prod"}}}`)
	if round2 == nil || round2.RequestState == "" || round2.InputRequests["confirm"] == nil {
		f.Fatalf("round 2: %+v", round2)
	}
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
	deployed := 0
	f.Fuzz(func(t *testing.T, mode uint8, inputResponses string) {
		var res *mcp.CallToolResult
		var ok bool
		switch mode % 3 {
		case 0:
			res, _, ok = postDeploy(h, prefilled, "", inputResponses)
		case 1:
			res, _, ok = postDeploy(h, args, round1.RequestState, inputResponses)
		case 2:
			res, _, ok = postDeploy(h, args, round2.RequestState, inputResponses)
		}
		if !ok && json.Valid([]byte(`{"r":`+inputResponses+`}`)) {
			t.Fatalf("no JSON-RPC reply to inputResponses %.200q", inputResponses)
		}
		if res == nil || res.IsError || res.NeedsInput() || len(res.Content) == 0 {
			return
		}
		text, _ := res.Content[0].(*mcp.TextContent)
		if text == nil || !strings.HasPrefix(text.Text, "Deploying api to prod") {
			return
		}
		var responses mcp.InputResponseMap
		if err := json.Unmarshal([]byte(inputResponses), &responses); err != nil {
			t.Fatalf("deployed on inputResponses the SDK cannot read: %v", err)
		}
		answer, _ := responses["confirm"].(*mcp.ElicitResult)
		if mode%3 != 2 || answer == nil || answer.Action != "accept" || answer.Content["confirm"] != true {
			t.Fatalf("deployed to production without the asked confirmation (mode %d): %.200q", mode%3, inputResponses)
		}
		if deployed++; deployed > 1 {
			t.Fatalf("deployed to production %d times in one flow", deployed)
		}
	})
}
