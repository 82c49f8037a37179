package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// answerByMessage answers each question by its message, whatever the order
// a client shows a round's questions in.
func answerByMessage(replies map[string]map[string]any) func(*mcp.ElicitParams) *mcp.ElicitResult {
	return func(p *mcp.ElicitParams) *mcp.ElicitResult {
		if c, ok := replies[p.Message]; ok {
			return hosttest.Accept(c)
		}
		return &mcp.ElicitResult{Action: "cancel"}
	}
}

// TestScenarioFixtures runs the fixtures of the scenarios added for issue
// 15 through the Go SDK client, on both eras, in memory and over HTTP.
func TestScenarioFixtures(t *testing.T) {
	ctx := context.Background()
	for _, transport := range []string{"memory", "http"} {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cases := []struct {
					tool    string
					args    map[string]any
					replies map[string]map[string]any
					want    string
				}{
					{"test_input_required_result_capabilities", nil,
						map[string]map[string]any{"What is your name?": {"name": "Alice"}}, "Hello, Alice!"},
					{"test_input_required_result_multiple_inputs", nil, map[string]map[string]any{
						"What is your name?": {"name": "Alice"}, "What is your favorite color?": {"color": "blue"}, "Shall I greet you?": {"ok": true}},
						"Hello, Alice, who likes blue!"},
					{"test_elicitation", map[string]any{"message": "Please provide your information"},
						map[string]map[string]any{"Please provide your information": {"username": "testuser", "email": "test@example.com"}},
						`User response: action=accept, content={"email":"test@example.com","username":"testuser"}`},
					{"test_elicitation_sep1034_defaults", nil,
						map[string]map[string]any{"Please review your profile.": {"name": "Jane Smith", "age": 25, "score": 88, "status": "inactive", "verified": false}},
						`Elicitation completed: action=accept, content={"age":25,"name":"Jane Smith","score":88,"status":"inactive","verified":false}`},
					{"test_elicitation_sep1330_enums", nil, map[string]map[string]any{"Please choose.": {
						"untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
						"untitledMulti": []any{"option1", "option2"}, "titledMulti": []any{"value1", "value2"}}},
						`Elicitation completed: action=accept, content={"legacyEnum":"opt1","titledMulti":["value1","value2"],"titledSingle":"value1","untitledMulti":["option1","option2"],"untitledSingle":"option1"}`},
				}
				for _, c := range cases {
					u := &hosttest.User{Answer: answerByMessage(c.replies)}
					cs := connect(t, transport, era, hosttest.Options{User: u})
					if c.args == nil {
						c.args = map[string]any{}
					}
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
					if err != nil || hosttest.Text(res) != c.want || len(u.Asked) != len(c.replies) {
						t.Errorf("%s: %+v %v (asked %d)", c.tool, res, err, len(u.Asked))
					}
				}
			})
		}
	}
}

// TestMultipleInputsOneRound: the three questions of
// test_input_required_result_multiple_inputs come in one round, and one
// retry answers them.
func TestMultipleInputsOneRound(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, "http", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_multiple_inputs", Arguments: map[string]any{}})
	if err != nil || !first.NeedsInput() || len(first.InputRequests) != 3 || first.RequestState == "" {
		t.Fatalf("first round: %+v %v", first, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_multiple_inputs", Arguments: map[string]any{},
		RequestState: first.RequestState, InputResponses: mcp.InputResponseMap{
			"user_name": hosttest.Accept(map[string]any{"name": "Alice"}),
			"color":     hosttest.Accept(map[string]any{"color": "blue"}),
			"confirm":   hosttest.Accept(map[string]any{"ok": true})}})
	if err != nil || hosttest.Text(res) != "Hello, Alice, who likes blue!" {
		t.Errorf("retry: %+v %v", res, err)
	}
}

// TestCapabilityCheck: a client that declares no elicitation gets -32021
// naming form-mode elicitation (the spec's rule; the suite's scenario
// expects sampling requests instead: docs/design/conformance.md).
func TestCapabilityCheck(t *testing.T) {
	for _, era := range hosttest.Eras {
		cs := connect(t, "http", era, hosttest.Options{})
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "test_input_required_result_capabilities", Arguments: map[string]any{}})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(string(werr.Data), `"elicitation":{"form":{}}`) {
			t.Errorf("%s: %v", era, err)
		}
	}
}

// TestScenarioSchemas: the schemas the 2025-11-25 scenarios check.
func TestScenarioSchemas(t *testing.T) {
	var d struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(Defaults{}.ElicitSchema(), &d); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true} {
		if d.Properties[p]["default"] != want {
			t.Errorf("%s: default %v, want %v", p, d.Properties[p]["default"], want)
		}
	}
}
