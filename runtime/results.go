package runtime

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/contract"
)

// Text is a complete tool result with one text content.
func Text(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// ToolError is a tool execution error result (isError) with text.
func ToolError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// PromptText is a complete prompt result: description, and one user
// message with text.
func PromptText(description, text string) *mcp.GetPromptResult {
	return &mcp.GetPromptResult{Description: description, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}
}

// ResourceText is a complete resource result: one text content of uri.
func ResourceText(uri, mimeType, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mimeType, Text: text}}}
}

// Principal is the user a tool call is made for: the user id of the
// request's verified bearer token, or "" for an anonymous call.
func Principal(req *mcp.CallToolRequest) string {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		return req.Extra.TokenInfo.UserID
	}
	return ""
}

// PrincipalFrom returns the principal the runtime bound the call to (see
// ToolOptions.Principal), for a handler that holds only the context of its
// call.
func PrincipalFrom(ctx context.Context) string {
	p, _ := ctx.Value(contract.PrincipalKey{}).(string)
	return p
}
