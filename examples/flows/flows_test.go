package flows

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/serve"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

var keys = func() *elicitrt.Keyring {
	k, err := elicitrt.NewKeyring([]byte("flows-test-key-0123456789abcdef!"))
	if err != nil {
		panic(err)
	}
	return k
}()

func newServer() *mcp.Server { return NewServer(&elicitrt.ToolOptions{Keys: keys}) }

func callTool(cs *mcp.ClientSession, tool string, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if p == nil {
		p = &mcp.CallToolParams{}
	}
	p.Name = tool
	if p.Arguments == nil {
		p.Arguments = map[string]any{"topic": "tea"}
	}
	return cs.CallTool(context.Background(), p)
}

// TestSurveyThreeRounds runs the three-step survey, on every transport and
// era, to each of its ends.
func TestSurveyThreeRounds(t *testing.T) {
	colors := hosttest.Accept(map[string]any{"favorite": "blue", "also": []any{"red"}})
	rating := hosttest.Accept(map[string]any{"stars": 4.0})
	name := hosttest.Accept(map[string]any{"name": "Ada"})
	cases := []struct {
		name    string
		replies []*mcp.ElicitResult
		want    string
		isError bool
	}{
		{"accept all", []*mcp.ElicitResult{colors, rating, name}, "tea: Ada likes blue (also [red]), 4 stars", false},
		{"decline third", []*mcp.ElicitResult{colors, rating, {Action: "decline"}}, "no survey: declined at name", false},
		{"cancel first", []*mcp.ElicitResult{{Action: "cancel"}}, "no survey: cancelled at colors", false},
		{"decline second", []*mcp.ElicitResult{colors, {Action: "decline"}}, "no survey: declined at rating", false},
	}
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				for _, c := range cases {
					u := &hosttest.User{Replies: c.replies}
					cs := hosttest.Connect(t, newServer, transport, era, hosttest.Options{User: u})
					res, err := callTool(cs, "survey", nil)
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					if got := hosttest.Text(res); got != c.want || res.IsError != c.isError {
						t.Errorf("%s: got %q (isError %v), want %q", c.name, got, res.IsError, c.want)
					}
					if len(u.Asked) != len(c.replies) {
						t.Errorf("%s: asked %d times, want %d", c.name, len(u.Asked), len(c.replies))
					}
					if len(u.Asked) > 0 && u.Asked[0].Message != "Which colours go with tea?" {
						t.Errorf("%s: computed message %q", c.name, u.Asked[0].Message)
					}
				}
			})
		}
	}
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
					cs := hosttest.Connect(t, newServer, transport, era, o)
					// colors: fallback=defaults fills the form; rating:
					// fallback=handler reaches Unavailable with those answers.
					res, err := callTool(cs, "survey", nil)
					if err != nil || !res.IsError || hosttest.Text(res) != "the survey needs a person for rating (colors so far: green)" {
						t.Fatalf("survey: %+v %v", res, err)
					}
					// poll: fallback=error is -32021 naming form mode.
					_, err = callTool(cs, "poll", nil)
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

// TestMissingCapabilityIsHTTP400 posts a raw 2026-07-28 tools/call that
// declares no elicitation to the poll tool over HTTP.
func TestMissingCapabilityIsHTTP400(t *testing.T) {
	server := newServer()
	srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"poll","arguments":{"topic":"tea"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "poll")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(raw, []byte(`"code":-32021`)) ||
		!bytes.Contains(raw, []byte(`"requiredCapabilities":{"elicitation":{"form":{}}}`)) {
		t.Fatalf("status %d, body %s", resp.StatusCode, raw)
	}
}

// TestStateOfAnotherTool replays the poll's state on the survey, which has
// the same arguments: rejected.
func TestStateOfAnotherTool(t *testing.T) {
	cs := hosttest.Connect(t, newServer, "http", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	res, err := callTool(cs, "poll", nil)
	if err != nil {
		t.Fatal(err)
	}
	key := hosttest.OnlyKey(t, res)
	_, err = callTool(cs, "survey", &mcp.CallToolParams{RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{key: hosttest.Accept(map[string]any{"name": "Ada"})}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("want -32602, got %v", err)
	}
	done, err := callTool(cs, "poll", &mcp.CallToolParams{RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{key: hosttest.Accept(map[string]any{"name": "Ada"})}})
	if err != nil || hosttest.Text(done) != "poll: Ada" {
		t.Fatalf("own tool: %+v %v", done, err)
	}
}

// TestNonElicitationAnswerIsReasked answers a form with a roots result.
func TestNonElicitationAnswerIsReasked(t *testing.T) {
	cs := hosttest.Connect(t, newServer, "memory", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	res, err := callTool(cs, "poll", nil)
	if err != nil {
		t.Fatal(err)
	}
	key := hosttest.OnlyKey(t, res)
	//lint:ignore SA1019 a client may still send a (deprecated) roots result
	roots := &mcp.ListRootsResult{Roots: []*mcp.Root{}}
	again, err := callTool(cs, "poll", &mcp.CallToolParams{RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{key: roots}})
	if err != nil {
		t.Fatal(err)
	}
	if k := hosttest.OnlyKey(t, again); k != "name.2" {
		t.Fatalf("re-ask key %q", k)
	}
}

// TestRegistration checks the tools' annotations and input schemas.
func TestRegistration(t *testing.T) {
	cs := hosttest.Connect(t, newServer, "memory", "modern", hosttest.Options{})
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		tools[tool.Name] = tool
	}
	s, p := tools["survey"], tools["poll"]
	if s == nil || p == nil {
		t.Fatalf("tools: %v", tools)
	}
	if a := s.Annotations; a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint != nil || a.OpenWorldHint != nil {
		t.Errorf("survey annotations %+v", s.Annotations)
	}
	if a := p.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
		t.Errorf("poll annotations %+v", p.Annotations)
	}
	schema, _ := json.Marshal(s.InputSchema)
	if !bytes.Contains(schema, []byte(`"topic"`)) || s.Description != "Asks three questions in three rounds." {
		t.Errorf("survey schema %s, description %q", schema, s.Description)
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
				cs := hosttest.Connect(t, newServer, transport, era, hosttest.Options{User: u})
				res, err := callTool(cs, "poll", nil)
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
