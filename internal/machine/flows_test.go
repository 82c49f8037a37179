package machine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/serve"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/elicittest/rawrpc"
)

// TestHostileAnswers sends, over HTTP, every kind of bad content a client
// could send for the Everything form. Each must be asked again with the
// reason naming the property: never a completed call, never a panic (a
// panic would drop the connection and fail the call).
func TestHostileAnswers(t *testing.T) {
	cs, first, key := flowsFirst(t, "strict")
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
		res, err := flowsCall(cs, "strict", first.RequestState, mcp.InputResponseMap{key: hosttest.Accept(content)})
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
	res, err := flowsCall(cs, "strict", first.RequestState, mcp.InputResponseMap{
		key: hosttest.Accept(map[string]any{"count": math.Copysign(0, -1), "favorite": "red", "big": 9007199254740991.0})})
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
		res, err := flowsCall(cs, "strict", first.RequestState, mcp.InputResponseMap{key: resp})
		if err != nil || !res.NeedsInput() {
			t.Errorf("%s: %+v %v", name, res, err)
		}
	}
}

// TestMalformedInputResponses posts raw requests whose inputResponses is
// not an object of results, without a state and with the first round's:
// over HTTP (through the handler's header checks) and in memory (straight
// to the SDK's decode and the machine), each is a JSON-RPC error or a new
// input_required result, never a complete result.
func TestMalformedInputResponses(t *testing.T) {
	server := newFlowsServer()
	srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()
	conn := rawrpc.Memory(t, newFlowsServer())
	for _, state := range []string{"", flowsFirstState(t, flowsHandler(), "strict")} {
		for _, ir := range []string{`12345`, `"x"`, `[1,2]`, `null`, `{"everything":12345}`, `{"everything":null}`, `{"everything":{"action":7}}`, `{"everything":[]}`} {
			params := flowsCallBody("strict", state, ir)
			req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(params))
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
			flowsErrorOrAsked(t, "http", state != "", ir, []byte(data))

			var msg struct {
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal([]byte(params), &msg); err != nil {
				t.Fatal(err)
			}
			result, rpcErr, err := conn.Call("tools/call", msg.Params)
			if err != nil {
				t.Fatalf("memory: inputResponses %s: %v", ir, err)
			}
			if rpcErr == nil {
				flowsErrorOrAsked(t, "memory", state != "", ir, []byte(`{"result":`+string(result)+`}`))
			}
		}
	}
}

// flowsErrorOrAsked fails the test unless data, a JSON-RPC response, is an
// error or an input_required result.
func flowsErrorOrAsked(t *testing.T, transport string, withState bool, ir string, data []byte) {
	t.Helper()
	var msg struct {
		Result *struct {
			ResultType string `json:"resultType"`
		} `json:"result"`
		Error *struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		t.Errorf("%s, state %v: inputResponses %s: unreadable response %q", transport, withState, ir, data)
		return
	}
	if msg.Error == nil && (msg.Result == nil || msg.Result.ResultType != "input_required") {
		t.Errorf("%s, state %v: inputResponses %s: neither an error nor input_required: %s", transport, withState, ir, data)
	}
}

// TestStateOfAnotherTool replays the poll's state on the survey, which has
// the same arguments: rejected.
func TestStateOfAnotherTool(t *testing.T) {
	cs, res, key := flowsFirst(t, "poll")
	_, err := flowsCall(cs, "survey", res.RequestState, mcp.InputResponseMap{key: hosttest.Accept(map[string]any{"name": "Ada"})})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("want -32602, got %v", err)
	}
	done, err := flowsCall(cs, "poll", res.RequestState, mcp.InputResponseMap{key: hosttest.Accept(map[string]any{"name": "Ada"})})
	if err != nil || hosttest.Text(done) != "poll: Ada" {
		t.Fatalf("own tool: %+v %v", done, err)
	}
}

// TestInvalidAnswerReasked answers the poll with an address that passes the
// SDK client's schema check (it ignores formats) but not the generated
// decoder: the machine asks again with the reason, on both eras.
func TestInvalidAnswerReasked(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				u := &hosttest.User{Replies: []*mcp.ElicitResult{
					hosttest.Accept(map[string]any{"name": "Ada", "email": "not-an-address"}),
					hosttest.Accept(map[string]any{"name": "Ada", "email": "ada@example.com"}),
				}}
				cs := hosttest.Connect(t, newFlowsServer, transport, era, hosttest.Options{User: u})
				res, err := flowsCall(cs, "poll", "", nil)
				if err != nil || hosttest.Text(res) != "poll: Ada" {
					t.Fatalf("%+v %v", res, err)
				}
				if len(u.Asked) != 2 || !strings.Contains(u.Asked[1].Message, "email: must be an email address") {
					t.Fatalf("asked %d times; second message %q", len(u.Asked), u.Asked[len(u.Asked)-1].Message)
				}
			})
		}
	}
}

// flowsCall calls tool on cs with the arguments {"topic":"tea"}, state
// and responses.
func flowsCall(cs *mcp.ClientSession, tool, state string, responses mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"topic": "tea"},
		RequestState: state, InputResponses: responses})
}

// flowsFirst connects a client that answers by hand, over HTTP on
// 2026-07-28, and calls tool: the session, the first round and its one
// question's key.
func flowsFirst(t *testing.T, tool string) (cs *mcp.ClientSession, first *mcp.CallToolResult, key string) {
	t.Helper()
	cs = hosttest.Connect(t, newFlowsServer, "http", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	first, err := flowsCall(cs, tool, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, first, hosttest.OnlyKey(t, first)
}

// TestFallbacks calls the tools from clients that cannot show forms.
func TestFallbacks(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				for _, caps := range []*mcp.ClientCapabilities{
					nil, // no elicitation handler: nothing declared
					{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}, // url mode only
				} {
					o := hosttest.Options{Capabilities: caps}
					if caps != nil {
						o.User = &hosttest.User{} // never asked: form mode was not declared
					}
					cs := hosttest.Connect(t, newFlowsServer, transport, era, o)
					// colors: fallback=defaults fills the form; rating:
					// fallback=handler reaches Unavailable with those answers.
					res, err := flowsCall(cs, "survey", "", nil)
					if err != nil || !res.IsError || hosttest.Text(res) != "the survey needs a person for rating (colors so far: green)" {
						t.Fatalf("survey: %+v %v", res, err)
					}
					// poll: fallback=error is -32021 naming form mode.
					_, err = flowsCall(cs, "poll", "", nil)
					var werr *jsonrpc.Error
					if !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities ||
						string(werr.Data) != `{"requiredCapabilities":{"elicitation":{"form":{}}}}` {
						t.Fatalf("poll: want -32021, got %v", err)
					}
					if o.User != nil && len(o.User.Asked) != 0 {
						t.Fatalf("asked a client that did not declare form mode")
					}
				}
			})
		}
	}
}
