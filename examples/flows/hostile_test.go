package flows

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/serve"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// TestHostileAnswers sends, over HTTP, every kind of bad content a client
// could send for the Everything form. Each must be asked again with the
// reason naming the property: never a completed call, never a panic (a
// panic would drop the connection and fail the call).
func TestHostileAnswers(t *testing.T) {
	cs := hosttest.Connect(t, newServer, "http", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	first, err := callTool(cs, "strict", nil)
	if err != nil {
		t.Fatal(err)
	}
	key := hosttest.OnlyKey(t, first)
	valid := func() map[string]any { return map[string]any{"count": 5.0, "favorite": "red"} }
	huge := strings.Repeat("x", 200<<10) // under the HTTP body limit (DefaultMaxRequestBodyBytes)
	table := []struct {
		prop  string
		value any
	}{
		{"count", "5"}, {"count", 1.5}, {"count", 9007199254740993.0}, {"count", 201.0}, {"count", 256.0},
		{"count", -1.0}, {"count", nil}, {"count", map[string]any{}}, {"count", []any{}}, {"count", true}, {"count", 1e300},
		{"big", 1.5}, {"big", 9007199254740993.0}, {"big", -1e300}, {"big", "1"},
		{"ratio", 1e39}, {"ratio", "0.5"},
		{"favorite", "purple"}, {"favorite", 5.0}, {"favorite", nil}, {"favorite", []any{"red"}}, {"favorite", ""},
		{"picks", []any{"red", "red"}}, {"picks", []any{"purple"}}, {"picks", []any{"red", "green", "blue"}},
		{"picks", "red"}, {"picks", []any{1.0}}, {"picks", []any{nil}}, {"picks", map[string]any{"0": "red"}},
		{"day", "2026-02-30"}, {"day", "2026-13-01"}, {"day", "26-01-01"}, {"day", ""}, {"day", "2026-01-01T00:00:00Z"},
		{"at", "2026-01-01T00:00:00"}, {"at", "2026-01-01"}, {"at", "2026-01-01T25:00:00Z"},
		{"site", "example.com"}, {"site", "/path"}, {"site", "http://exa mple.com"}, {"site", ""},
		{"mail", "ada"}, {"mail", "<ada@example.com>"}, {"mail", "Ada <ada@example.com>"}, {"mail", "ada@"},
		{"note", huge}, {"note", 3.0},
		{"agree", "true"}, {"agree", 1.0},
	}
	for _, row := range table {
		content := valid()
		content[row.prop] = row.value
		res, err := callTool(cs, "strict", &mcp.CallToolParams{RequestState: first.RequestState,
			InputResponses: mcp.InputResponseMap{key: hosttest.Accept(content)}})
		name := fmt.Sprintf("%s=%.40v", row.prop, row.value)
		if err != nil {
			t.Errorf("%s: error %v", name, err)
			continue
		}
		if !res.NeedsInput() {
			t.Errorf("%s: completed: %s", name, hosttest.Text(res))
			continue
		}
		msg := res.InputRequests[hosttest.OnlyKey(t, res)].(*mcp.ElicitParams).Message
		if !strings.Contains(msg, row.prop+": ") {
			t.Errorf("%s: re-asked without naming the property: %q", name, msg)
		}
	}
	t.Logf("%d hostile answers, each asked again with the reason", len(table))

	// Edge values that are valid: negative zero is zero, 2^53-1 is safe.
	res, err := callTool(cs, "strict", &mcp.CallToolParams{RequestState: first.RequestState, InputResponses: mcp.InputResponseMap{
		key: hosttest.Accept(map[string]any{"count": math.Copysign(0, -1), "favorite": "red", "big": 9007199254740991.0})}})
	if err != nil || res.NeedsInput() || !strings.Contains(hosttest.Text(res), "Count:0 Big:9007199254740991") {
		t.Fatalf("valid edges: %+v %v", res, err)
	}

	// Answers that are not elicitation results, or no content at all.
	for name, resp := range map[string]mcp.InputResponse{
		//lint:ignore SA1019 a client may still send a (deprecated) sampling result
		"sampling result": &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: "hi"}, Model: "m", Role: "assistant"},
		//lint:ignore SA1019 or a (deprecated) roots result
		"roots result":       &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///"}}},
		"accept, no content": &mcp.ElicitResult{Action: "accept"},
		"unknown action":     &mcp.ElicitResult{Action: "maybe", Content: valid()},
	} {
		res, err := callTool(cs, "strict", &mcp.CallToolParams{RequestState: first.RequestState, InputResponses: mcp.InputResponseMap{key: resp}})
		if err != nil || !res.NeedsInput() {
			t.Errorf("%s: %+v %v", name, res, err)
		}
	}
}

// TestMalformedInputResponses posts raw requests whose inputResponses is
// not an object of results: a JSON-RPC error or a new input_required
// result, never a complete result.
func TestMalformedInputResponses(t *testing.T) {
	server := newServer()
	srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()
	for _, ir := range []string{`12345`, `"x"`, `[1,2]`, `null`, `{"everything":12345}`, `{"everything":null}`, `{"everything":{"action":7}}`, `{"everything":[]}`} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"strict","arguments":{"topic":"t"},"inputResponses":` + ir +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "strict"} {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		data := string(raw)
		if i := strings.Index(data, "data: "); i >= 0 {
			data = strings.TrimSpace(data[i+6:])
		}
		var msg struct {
			Result *struct {
				ResultType string `json:"resultType"`
			} `json:"result"`
			Error *struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &msg); err != nil {
			t.Errorf("inputResponses %s: unreadable response %q", ir, raw)
			continue
		}
		if msg.Error == nil && (msg.Result == nil || msg.Result.ResultType != "input_required") {
			t.Errorf("inputResponses %s: neither an error nor input_required: %s", ir, data)
		}
	}
}
