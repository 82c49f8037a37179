package elicittest_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest"
)

// A destructive tool, written by hand as generated code would write it:
// "launch" asks one confirmation (confirm, asked once), previewed for a
// client that cannot show forms; it says "launched", or the action.

var confirm = elicittest.Key("confirm")

func launchServer(opts *elicitrt.ToolOptions) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "launch", Version: "v0"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)
	m := elicitimpl.NewMachine("launch", []elicitimpl.Step{{
		Key: "confirm", Message: "Launch?", Once: true, Confirm: "confirm", Fallback: elicitimpl.FallbackPreview,
		Accept: map[string]any{"confirm": true},
		Params: func(msg string) *mcp.ElicitParams {
			return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
		},
		Check: func(c map[string]any) error {
			if _, ok := c["confirm"].(bool); !ok {
				return errors.New("invalid content: confirm: must be a boolean")
			}
			return nil
		},
	}}, elicitimpl.Flow{
		Complete: func(context.Context, *mcp.CallToolRequest, any, elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text("launched"), nil
		},
		Ended: func(_ context.Context, _ *mcp.CallToolRequest, _ any, _ int, action string, _ elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text(action), nil
		},
		Preview: func(context.Context, *mcp.CallToolRequest, any, int, elicitimpl.Answers) string {
			return "This will launch."
		},
	}, opts)
	elicitimpl.AddTool[map[string]any](server, &mcp.Tool{Name: "launch", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"confirmation_token":{"type":"string"}}}`)}, m)
	return server
}

// TestPreviewToken: a client that cannot ask gets the preview, whose
// token (Outcome.PreviewToken) confirms the same call once; a result that
// is no preview has no token.
func TestPreviewToken(t *testing.T) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) {
			c := elicittest.Start(t, launchServer, &elicittest.Options{Era: era, Capabilities: elicittest.NoElicitation()})
			preview := c.Call("launch", nil)
			token := preview.PreviewToken()
			if token == "" || preview.Result == nil || preview.Result.Content[0].(*mcp.TextContent).Text != "This will launch." {
				t.Fatalf("preview %s: token %q", preview, token)
			}
			confirmed := map[string]any{elicitrt.PreviewTokenArgument: token}
			c.Call("launch", confirmed).WantText(t, "launched")
			again := c.Call("launch", confirmed)
			again.WantToolError(t, "new preview")
			if again.PreviewToken() != "" {
				t.Errorf("a tool error has a token: %q", again.PreviewToken())
			}
			asked := elicittest.Start(t, launchServer, &elicittest.Options{Era: era})
			if out := asked.Call("launch", nil, elicittest.Accept(confirm, map[string]any{"confirm": true})); out.Text() != "launched" || out.PreviewToken() != "" {
				t.Errorf("asked: %s, token %q", out, out.PreviewToken())
			}
			asked.Call("launch", nil, elicittest.Accept(confirm, map[string]any{"confirm": false})).WantText(t, "decline")
		})
	}
}
