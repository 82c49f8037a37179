package machine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// Tests of issue 29's runtime items, over the real SDK: a task-only
// tool's era message, argument errors in the form decoder's words, and
// the defaults a form is asked with (a partial prefill, a re-ask).

type taskOnlyArgs struct {
	Size string `json:"size,omitempty"`
}

// taskOnlyServer has one tool, "brew", that runs only as a task.
func taskOnlyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "newuser", Version: "v0"}, nil)
	flow := elicitimpl.Flow{
		Tasks: elicitimpl.TaskRequired,
		Run: func(context.Context, *machine.Task, *mcp.CallToolRequest, any, elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text("brewed"), nil
		},
	}
	elicitimpl.AddTool[taskOnlyArgs](s, &mcp.Tool{Name: "brew", InputSchema: json.RawMessage(`{"type":"object","properties":{"size":{"type":"string"}}}`)},
		elicitimpl.NewMachine("brew", nil, flow, nil))
	return s
}

// TestTaskOnlyToolOnOldProtocol: a 2025-11-25 client that declared the
// tasks extension gets -32021 saying that tasks need protocol 2026-07-28,
// not that it should declare what it declared.
func TestTaskOnlyToolOnOldProtocol(t *testing.T) {
	caps := &mcp.ClientCapabilities{Extensions: map[string]any{machine.TasksExtension: map[string]any{}}}
	for _, transport := range hosttest.Transports {
		t.Run(transport, func(t *testing.T) {
			cs := hosttest.Connect(t, taskOnlyServer, transport, "legacy", hosttest.Options{Capabilities: caps})
			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "brew", Arguments: map[string]any{}})
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingRequiredClientCapabilities {
				t.Fatalf("want -32021, got %v", err)
			}
			if !strings.Contains(rpcErr.Message, "tasks need protocol 2026-07-28") || !strings.Contains(rpcErr.Message, "2025-11-25") {
				t.Errorf("message %q does not say that tasks need protocol 2026-07-28", rpcErr.Message)
			}
		})
	}
	// On 2026-07-28, a client without the extension is still asked to
	// declare it.
	cs := hosttest.Connect(t, taskOnlyServer, "memory", "modern", hosttest.Options{})
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "brew", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "needs the client to support the "+machine.TasksExtension) {
		t.Errorf("modern client without the extension: %v", err)
	}
}

// formServer has the tool "form": one form step (key "form") with
// properties ok (boolean, required), note (string) and email (string,
// an email address), prefilled from the arguments but for ok; confirm
// makes ok its confirming boolean. Complete writes the answer.
func formServer(confirm bool) func() *mcp.Server {
	return func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "newuser", Version: "v0"}, nil)
		schema := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"},"note":{"type":"string"},"email":{"type":"string","format":"email"}},"required":["ok"]}`)
		step := elicitimpl.Step{Key: "form", Mode: elicitimpl.ModeForm, Message: "Well?",
			Params: func(msg string) *mcp.ElicitParams {
				return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
			},
			Check: checkForm}
		prefill := json.RawMessage(nil)
		if confirm {
			step.Confirm = "ok"
		} else {
			step.Prefill, step.PrefillNeeds = []string{"note", "email"}, []string{"note", "email"}
			prefill = json.RawMessage(`{"note":{"type":"string"},"email":{"type":"string","format":"email"}}`)
		}
		flow := elicitimpl.Flow{
			Complete: func(_ context.Context, _ *mcp.CallToolRequest, _ any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
				b, _ := json.Marshal(a[0])
				return elicitrt.Text(string(b)), nil
			},
			Ended: func(context.Context, *mcp.CallToolRequest, any, int, string, elicitimpl.Answers) (*mcp.CallToolResult, error) {
				return elicitrt.Text("ended"), nil
			},
		}
		elicitimpl.AddTool[taskOnlyArgs](s, &mcp.Tool{Name: "form", InputSchema: elicitimpl.MustInputSchema("form", map[string]any{"type": "object"}, nil, prefill)},
			elicitimpl.NewMachine("form", []elicitimpl.Step{step}, flow, nil))
		return s
	}
}

// checkForm is formServer's form decoder.
func checkForm(content map[string]any) error {
	var bad []elicitrt.FieldError
	if _, ok := content["ok"].(bool); !ok {
		reason := elicitimpl.ReasonBoolean
		if _, present := content["ok"]; !present {
			reason = elicitimpl.ReasonRequired
		}
		bad = append(bad, elicitrt.FieldError{Property: "ok", Reason: reason})
	}
	if v, present := content["note"]; present {
		if _, ok := v.(string); !ok {
			bad = append(bad, elicitrt.FieldError{Property: "note", Reason: elicitimpl.ReasonString})
		}
	}
	if v, present := content["email"]; present {
		if s, ok := v.(string); !ok || !elicitimpl.IsEmail(s) {
			bad = append(bad, elicitrt.FieldError{Property: "email", Reason: elicitimpl.ReasonEmail})
		}
	}
	if bad != nil {
		return &elicitrt.ContentError{Fields: bad}
	}
	return nil
}

// schemaDefault returns the default of property name in p's schema.
func schemaDefault(t *testing.T, p *mcp.ElicitParams, name string) (any, bool) {
	t.Helper()
	raw, _ := json.Marshal(p.RequestedSchema)
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	v, ok := schema.Properties[name]["default"]
	return v, ok
}

// TestConfirmNeverDefaultsToYes: a confirmation asked again after an
// invalid answer carries that answer's other valid properties as
// defaults, never its yes; and an answer that leaves the yes out is not
// a yes.
func TestConfirmNeverDefaultsToYes(t *testing.T) {
	for _, transport := range hosttest.Transports {
		t.Run(transport, func(t *testing.T) {
			cs := hosttest.Connect(t, formServer(true), transport, "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
			first, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "form", Arguments: map[string]any{}})
			if err != nil || hosttest.OnlyKey(t, first) != "form" {
				t.Fatalf("first: %+v %v", first, err)
			}
			again, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "form", Arguments: map[string]any{}, RequestState: first.RequestState,
				InputResponses: mcp.InputResponseMap{"form": hosttest.Accept(map[string]any{"ok": true, "note": "hi", "email": "nope"})}})
			if err != nil || hosttest.OnlyKey(t, again) != "form.2" {
				t.Fatalf("again: %+v %v", again, err)
			}
			p := again.InputRequests["form.2"].(*mcp.ElicitParams)
			if v, ok := schemaDefault(t, p, "ok"); ok {
				t.Errorf("the confirmation asked again with a default yes: %v", v)
			}
			if v, ok := schemaDefault(t, p, "email"); ok {
				t.Errorf("the invalid email asked again as a default: %v", v)
			}
			if v, _ := schemaDefault(t, p, "note"); v != "hi" {
				t.Errorf("note asked again with default %v, want the valid answer hi", v)
			}
			third, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "form", Arguments: map[string]any{}, RequestState: again.RequestState,
				InputResponses: mcp.InputResponseMap{"form.2": hosttest.Accept(map[string]any{"email": "a@example.com"})}})
			if err != nil || hosttest.OnlyKey(t, third) != "form.3" {
				t.Fatalf("an answer without the yes: %+v %v, want it asked again", third, err)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "form", Arguments: map[string]any{}, RequestState: third.RequestState,
				InputResponses: mcp.InputResponseMap{"form.3": hosttest.Accept(map[string]any{"ok": true})}})
			if err != nil || hosttest.Text(res) != `{"email":"a@example.com","note":"hi","ok":true}` {
				t.Fatalf("yes: %+v %v", res, err)
			}
		})
	}
}

// TestPartialPrefillCheckedByTheDecoder: a prefilled value that does not
// answer the step is checked by the form's decoder all the same (here a
// format the input schema's validator does not check), and refused in
// its words; a valid one becomes the form's default.
func TestPartialPrefillCheckedByTheDecoder(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				u := &hosttest.User{Replies: []*mcp.ElicitResult{hosttest.Accept(map[string]any{"ok": true})}}
				cs := hosttest.Connect(t, formServer(false), transport, era, hosttest.Options{User: u})
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "form", Arguments: map[string]any{"email": "nope"}})
				if err != nil || !res.IsError || hosttest.Text(res) != "invalid arguments: email: must be an email address" {
					t.Fatalf("invalid email: %+v %v", res, err)
				}
				res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "form", Arguments: map[string]any{"email": "a@example.com"}})
				if err != nil || hosttest.Text(res) != `{"email":"a@example.com","ok":true}` {
					t.Fatalf("valid email: %+v %v", res, err)
				}
				if v, _ := schemaDefault(t, u.Asked[0], "email"); v != "a@example.com" {
					t.Errorf("email asked with default %v", v)
				}
			})
		}
	}
}

type nestedArgs struct {
	Target struct {
		Env string `json:"env"`
	} `json:"target"`
	Count int `json:"count,omitempty"`
}

// TestNestedArgumentErrorsInFormWords: a tool whose argument struct the
// SDK decodes (not flat) words the SDK's schema failures as the raw path
// does, in schema order.
func TestNestedArgumentErrorsInFormWords(t *testing.T) {
	newServer := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "newuser", Version: "v0"}, nil)
		flow := elicitimpl.Flow{Complete: func(_ context.Context, _ *mcp.CallToolRequest, args any, _ elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text("env " + args.(nestedArgs).Target.Env), nil
		}}
		schema := json.RawMessage(`{"type":"object","properties":{"target":{"type":"object","properties":{"env":{"type":"string"}}},"count":{"type":"integer","minimum":1,"maximum":9}},"required":["target"],"additionalProperties":false}`)
		elicitimpl.AddTool[nestedArgs](s, &mcp.Tool{Name: "nested", InputSchema: schema}, elicitimpl.NewMachine("nested", nil, flow, nil))
		return s
	}
	cases := []struct {
		args any
		want string
	}{
		{map[string]any{"count": 12}, "invalid arguments: target: is required; count: must be an integer from 1 to 9"},
		{map[string]any{"target": "dev", "count": 1.5}, "invalid arguments: target: must be an object; count: must be a whole number"},
		{map[string]any{"target": map[string]any{}, "x": 1, "y": 2}, "invalid arguments: x: is not an argument of this tool (it takes target, count); y: is not an argument of this tool (it takes target, count)"},
		{map[string]any{"target": map[string]any{"env": "dev"}}, "env dev"},
	}
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cs := hosttest.Connect(t, newServer, transport, era, hosttest.Options{})
				for _, c := range cases {
					res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nested", Arguments: c.args})
					if err != nil || hosttest.Text(res) != c.want || res.IsError != strings.HasPrefix(c.want, "invalid") {
						t.Errorf("%v: got %+v %v, want %q", c.args, res, err, c.want)
					}
				}
			})
		}
	}
}

// TestPartialPrefillAnswersFallbackDefaults: a step answered by its
// defaults, for a client that cannot show it (fallback=defaults), takes
// the model's prefilled values first, as the form would have shown them.
func TestPartialPrefillAnswersFallbackDefaults(t *testing.T) {
	newServer := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "newuser", Version: "v0"}, nil)
		schema := json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"},"flag":{"type":"boolean","default":false}}}`)
		step := elicitimpl.Step{Key: "opt", Mode: elicitimpl.ModeForm, Message: "Options?", Fallback: elicitimpl.FallbackDefaults,
			Prefill: []string{"note", "flag"}, PrefillNeeds: []string{"note"},
			Params: func(msg string) *mcp.ElicitParams {
				return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
			},
			Check: func(c map[string]any) error {
				if _, ok := c["flag"].(bool); !ok && c["flag"] != nil {
					return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: "flag", Reason: elicitimpl.ReasonBoolean}}}
				}
				return nil
			}}
		flow := elicitimpl.Flow{Complete: func(_ context.Context, _ *mcp.CallToolRequest, _ any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			b, _ := json.Marshal(a[0])
			return elicitrt.Text(string(b)), nil
		}}
		prefill := json.RawMessage(`{"note":{"type":"string"},"flag":{"type":"boolean","default":false}}`)
		elicitimpl.AddTool[taskOnlyArgs](s, &mcp.Tool{Name: "opt", InputSchema: elicitimpl.MustInputSchema("opt", map[string]any{"type": "object"}, nil, prefill)},
			elicitimpl.NewMachine("opt", []elicitimpl.Step{step}, flow, nil))
		return s
	}
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cs := hosttest.Connect(t, newServer, transport, era, hosttest.Options{})
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "opt", Arguments: map[string]any{"flag": true}})
				if err != nil || hosttest.Text(res) != `{"flag":true}` {
					t.Fatalf("got %+v %v, want the prefilled flag", res, err)
				}
			})
		}
	}
}
