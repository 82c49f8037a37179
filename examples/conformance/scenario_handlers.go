package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// completed is the text the 2025-11-25 scenarios ask for: the action and
// the content.
func completed(prefix, action string, content any) *mcp.CallToolResult {
	b, err := json.Marshal(content)
	if err != nil || content == nil {
		b = []byte("{}")
	}
	return elicitrt.Text(fmt.Sprintf("%s: action=%s, content=%s", prefix, action, b))
}

type capabilities struct{}

func (capabilities) Complete(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a CapabilitiesAnswers) (*mcp.CallToolResult, error) {
	return elicitrt.Text("Hello, " + a.UserName.Name + "!"), nil
}
func (capabilities) Declined(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a CapabilitiesAnswers, s CapabilitiesStep) (*mcp.CallToolResult, error) {
	return ended(s, "declined")
}
func (capabilities) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a CapabilitiesAnswers, s CapabilitiesStep) (*mcp.CallToolResult, error) {
	return ended(s, "cancelled")
}

type multipleInputs struct{}

func (multipleInputs) Complete(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a MultipleInputsAnswers) (*mcp.CallToolResult, error) {
	if !a.Confirm.OK {
		return elicitrt.Text("Not greeting " + a.UserName.Name + "."), nil
	}
	return elicitrt.Text(fmt.Sprintf("Hello, %s, who likes %s!", a.UserName.Name, a.Color.Color)), nil
}
func (multipleInputs) Declined(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a MultipleInputsAnswers, s MultipleInputsStep) (*mcp.CallToolResult, error) {
	return ended(s, "declined")
}
func (multipleInputs) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a MultipleInputsAnswers, s MultipleInputsStep) (*mcp.CallToolResult, error) {
	return ended(s, "cancelled")
}

type toolsCallElicitation struct{}

func (toolsCallElicitation) UserInfoMessage(ctx context.Context, req *mcp.CallToolRequest, args ElicitationArgs, a ToolsCallElicitationAnswers) string {
	return args.Message
}
func (toolsCallElicitation) Complete(ctx context.Context, req *mcp.CallToolRequest, args ElicitationArgs, a ToolsCallElicitationAnswers) (*mcp.CallToolResult, error) {
	return completed("User response", "accept", map[string]string{"username": a.UserInfo.Username, "email": a.UserInfo.Email}), nil
}
func (toolsCallElicitation) Declined(ctx context.Context, req *mcp.CallToolRequest, args ElicitationArgs, a ToolsCallElicitationAnswers, s ToolsCallElicitationStep) (*mcp.CallToolResult, error) {
	return completed("User response", "decline", nil), nil
}
func (toolsCallElicitation) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args ElicitationArgs, a ToolsCallElicitationAnswers, s ToolsCallElicitationStep) (*mcp.CallToolResult, error) {
	return completed("User response", "cancel", nil), nil
}

type sep1034Defaults struct{}

func (sep1034Defaults) Complete(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a SEP1034DefaultsAnswers) (*mcp.CallToolResult, error) {
	d := a.Defaults
	return completed("Elicitation completed", "accept", map[string]any{
		"name": d.Name, "age": d.Age, "score": d.Score, "status": d.Status, "verified": d.Verified}), nil
}
func (sep1034Defaults) Declined(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a SEP1034DefaultsAnswers, s SEP1034DefaultsStep) (*mcp.CallToolResult, error) {
	return completed("Elicitation completed", "decline", nil), nil
}
func (sep1034Defaults) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a SEP1034DefaultsAnswers, s SEP1034DefaultsStep) (*mcp.CallToolResult, error) {
	return completed("Elicitation completed", "cancel", nil), nil
}

type sep1330Enums struct{}

func (sep1330Enums) Complete(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a SEP1330EnumsAnswers) (*mcp.CallToolResult, error) {
	e := a.Enums
	return completed("Elicitation completed", "accept", map[string]any{
		"untitledSingle": e.UntitledSingle, "titledSingle": e.TitledSingle, "legacyEnum": e.LegacyEnum,
		"untitledMulti": e.UntitledMulti, "titledMulti": e.TitledMulti}), nil
}
func (sep1330Enums) Declined(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a SEP1330EnumsAnswers, s SEP1330EnumsStep) (*mcp.CallToolResult, error) {
	return completed("Elicitation completed", "decline", nil), nil
}
func (sep1330Enums) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a SEP1330EnumsAnswers, s SEP1330EnumsStep) (*mcp.CallToolResult, error) {
	return completed("Elicitation completed", "cancel", nil), nil
}
