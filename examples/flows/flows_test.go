package flows

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

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
