package main

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// ended is the complete result of a declined or cancelled question.
func ended(step fmt.Stringer, action string) (*mcp.CallToolResult, error) {
	return elicitrt.Text(fmt.Sprintf("The %s question was %s.", step, action)), nil
}

type elicitation struct{}

func (elicitation) Complete(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a ElicitationAnswers) (*mcp.CallToolResult, error) {
	return elicitrt.Text("Hello, " + a.UserName.Name + "!"), nil
}
func (elicitation) Declined(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a ElicitationAnswers, s ElicitationStep) (*mcp.CallToolResult, error) {
	return ended(s, "declined")
}
func (elicitation) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a ElicitationAnswers, s ElicitationStep) (*mcp.CallToolResult, error) {
	return ended(s, "cancelled")
}

type multiRound struct{}

func (multiRound) Complete(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a MultiRoundAnswers) (*mcp.CallToolResult, error) {
	return elicitrt.Text(fmt.Sprintf("%s likes %s.", a.Step1.Name, a.Step2.Color)), nil
}
func (multiRound) Declined(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a MultiRoundAnswers, s MultiRoundStep) (*mcp.CallToolResult, error) {
	return ended(s, "declined")
}
func (multiRound) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a MultiRoundAnswers, s MultiRoundStep) (*mcp.CallToolResult, error) {
	return ended(s, "cancelled")
}

type requestState struct{}

// Complete runs only after the machine opened and verified the sealed
// state of the first round: hence state-ok.
func (requestState) Complete(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a RequestStateAnswers) (*mcp.CallToolResult, error) {
	return elicitrt.Text(fmt.Sprintf("state-ok: confirmed=%t", a.Confirm.OK)), nil
}
func (requestState) Declined(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a RequestStateAnswers, s RequestStateStep) (*mcp.CallToolResult, error) {
	return ended(s, "declined")
}
func (requestState) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a RequestStateAnswers, s RequestStateStep) (*mcp.CallToolResult, error) {
	return ended(s, "cancelled")
}

type tamperedState struct{}

func (tamperedState) Complete(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a TamperedStateAnswers) (*mcp.CallToolResult, error) {
	return elicitrt.Text(fmt.Sprintf("state-ok: confirmed=%t", a.Confirm.OK)), nil
}
func (tamperedState) Declined(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a TamperedStateAnswers, s TamperedStateStep) (*mcp.CallToolResult, error) {
	return ended(s, "declined")
}
func (tamperedState) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a TamperedStateAnswers, s TamperedStateStep) (*mcp.CallToolResult, error) {
	return ended(s, "cancelled")
}
