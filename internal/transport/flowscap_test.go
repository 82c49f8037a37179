package transport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/serve"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// capPollArgs are the poll's arguments.
type capPollArgs struct {
	Topic string `json:"topic"`
}

// capPollName is the poll's form: a name, required.
type capPollName struct{ Name string }

func (x *capPollName) DecodeElicit(content map[string]any) error {
	s, ok := content["name"].(string)
	if !ok || s == "" {
		return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: "name", Reason: "must have 1 to 40 characters"}}}
	}
	x.Name = s
	return nil
}

// capPollServer serves "poll", written by hand as generated code would
// write it: one form step, name, whose fallback is an error (-32021 for a
// client that cannot show forms).
func capPollServer(opts *elicitrt.ToolOptions) *mcp.Server {
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":1,"maxLength":40}},"required":["name"]}`)
	steps := []elicitimpl.Step{{
		Key: "name", Digest: "cap-poll-name", Mode: elicitimpl.ModeForm, Message: "What is your name?",
		Fallback: elicitimpl.FallbackError, Missing: "name is required",
		Params: func(msg string) *mcp.ElicitParams {
			return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
		},
		Check: elicitimpl.Check[capPollName],
	}}
	type answers struct{ Name *capPollName }
	end := func(context.Context, *mcp.CallToolRequest, capPollArgs, answers, int) (*mcp.CallToolResult, error) {
		return elicitrt.Text("poll ended"), nil
	}
	m := elicitimpl.NewMachine("poll", steps, elicitimpl.Typed[capPollArgs, answers, int]{
		Answers: func(a elicitimpl.Answers) answers { return answers{Name: elicitimpl.Decoded[capPollName](a[0])} },
		Complete: func(_ context.Context, _ *mcp.CallToolRequest, _ capPollArgs, a answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text("poll: " + a.Name.Name), nil
		},
		Declined: end, Cancelled: end,
	}.Flow(), opts)
	server := mcp.NewServer(&mcp.Implementation{Name: "flows", Version: "v0"}, nil)
	base, err := jsonschema.For[capPollArgs](nil)
	elicitimpl.AddTool[capPollArgs](server, &mcp.Tool{Name: "poll", InputSchema: elicitimpl.MustInputSchema("poll", base, err, nil)}, m)
	return server
}

// TestMissingCapabilityIsHTTP400 posts a raw 2026-07-28 tools/call that
// declares no elicitation to the poll tool over HTTP: the machine's
// -32021 naming form mode is HTTP 400, with the JSON-RPC error as its
// body.
func TestMissingCapabilityIsHTTP400(t *testing.T) {
	server := capPollServer(&elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring()})
	url := httpt.Serve(t, serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil), nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"poll","arguments":{"topic":"tea"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	status, _, raw := httpt.Post(t, url, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "poll"}, body)
	if status != http.StatusBadRequest || !bytes.Contains(raw, []byte(`"code":-32021`)) ||
		!bytes.Contains(raw, []byte(`"requiredCapabilities":{"elicitation":{"form":{}}}`)) {
		t.Fatalf("status %d, body %s", status, raw)
	}
}
