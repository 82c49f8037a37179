// Package procserver holds the server fixtures of the process-level
// tests of internal/transport, runtime/serve and internal/tasks: the tool
// "deploy" (Server) and the task tool "report" (ReportServer), written by
// hand as generated code would write them; their commands,
// procserver/deploy and procserver/report, which serve them as an
// example's main does (Serve), built by Binary and run by Start; and the
// raw 2026-07-28 requests the tests send.
package procserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
)

// The tool "deploy" (arguments service and, optionally, environment)
// asks one form step, target ({"environment": "dev" | "staging" |
// "prod", required}), prefilled from the arguments and answered by them
// for a client that cannot be asked, then, for prod only, a confirmation
// ({"confirm": boolean, required}) that only true answers, asked once
// a flow and previewed for a client that cannot be asked.

var (
	targetSchema  = json.RawMessage(`{"type":"object","properties":{"environment":{"type":"string","enum":["dev","staging","prod"]}},"required":["environment"]}`)
	confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)
	inputSchema   = json.RawMessage(`{"type":"object","properties":{"service":{"type":"string"},"environment":{"type":"string","enum":["dev","staging","prod"]},"confirmation_token":{"type":"string"}},"required":["service"]}`)
)

type target struct{ Environment string }

// DecodeElicit checks a target answer strictly, as a generated decoder
// does; unknown keys are ignored.
func (x *target) DecodeElicit(c map[string]any) error {
	s, ok := c["environment"].(string)
	if !ok || (s != "dev" && s != "staging" && s != "prod") {
		return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: "environment", Reason: "must be one of dev, staging, prod"}}}
	}
	x.Environment = s
	return nil
}

type confirmation struct{ Confirm bool }

func (x *confirmation) DecodeElicit(c map[string]any) error {
	b, ok := c["confirm"].(bool)
	if !ok {
		return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: "confirm", Reason: elicitimpl.ReasonBoolean}}}
	}
	x.Confirm = b
	return nil
}

type deployArgs struct {
	Service string `json:"service"`
}

func form(schema json.RawMessage) func(string) *mcp.ElicitParams {
	return func(msg string) *mcp.ElicitParams {
		return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
	}
}

// steps is the tool's step table.
func steps() []elicitimpl.Step {
	return []elicitimpl.Step{{
		Key: "target", Message: "Which environment should I deploy to?", Mode: elicitimpl.ModeForm,
		Missing: "environment is required: one of dev, staging, prod", Fallback: elicitimpl.FallbackArguments,
		Prefill: []string{"environment"}, PrefillNeeds: []string{"environment"},
		Params: form(targetSchema), Check: elicitimpl.Check[target],
	}, {
		Key: "confirm", Message: "Deploy to production now?", Mode: elicitimpl.ModeForm, Confirm: "confirm", Once: true,
		Missing: "confirm is required", Fallback: elicitimpl.FallbackPreview, Accept: map[string]any{"confirm": true},
		Params: form(confirmSchema), Check: elicitimpl.Check[confirmation],
	}}
}

// service is the service argument of a call.
func service(args any) string {
	a, _ := args.(deployArgs)
	return a.Service
}

// Server is an MCP server named deploy with the tool deploy.
func Server(opts *elicitrt.ToolOptions) *mcp.Server {
	m := elicitimpl.NewMachine("deploy", steps(), elicitimpl.Flow{
		Ask: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a elicitimpl.Answers) bool {
			t := elicitimpl.Decoded[target](a[0])
			return step != 1 || t != nil && t.Environment == "prod"
		},
		Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text(fmt.Sprintf("Deploying %s to %s.", service(args), elicitimpl.Decoded[target](a[0]).Environment)), nil
		},
		Ended: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text("Nothing was deployed: " + action + "."), nil
		},
		Preview: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, a elicitimpl.Answers) string {
			return "Preview: this deploys " + service(args) + " to production."
		},
	}, opts)
	server := mcp.NewServer(&mcp.Implementation{Name: "deploy", Version: "v0"}, nil)
	elicitimpl.AddTool[deployArgs](server, &mcp.Tool{Name: "deploy", InputSchema: inputSchema}, m)
	return server
}

// ModernMeta is the _meta of a 2026-07-28 request from a client that can
// be asked in form mode.
const ModernMeta = `"_meta":` + modernMetaValue

const modernMetaValue = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`

// ListTools is a 2026-07-28 tools/list request of id.
func ListTools(id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/list","params":{` + ModernMeta + `}}`
}

// Call is a 2026-07-28 tools/call of deploy (id 1) with args (raw JSON,
// kept as written, so that it may hold a %s to pad); state is left out
// when "", and responses (raw JSON) too.
func Call(args, state, responses string) string {
	params := map[string]any{"name": "deploy", "arguments": json.RawMessage(args), "_meta": json.RawMessage(modernMetaValue)}
	if state != "" {
		params["requestState"] = state
	}
	if responses != "" {
		params["inputResponses"] = json.RawMessage(responses)
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	if err != nil {
		panic("procserver.Call: " + err.Error()) // a test's malformed raw JSON
	}
	return string(body)
}
