package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

type prompt struct{}

func (prompt) Complete(ctx context.Context, req *mcp.GetPromptRequest, args struct{}, a PromptAnswers) (*mcp.GetPromptResult, error) {
	return elicitrt.PromptText("A prompt written with the context the user gave", "Use this context: "+a.UserContext.Context), nil
}
func (prompt) Declined(ctx context.Context, req *mcp.GetPromptRequest, args struct{}, a PromptAnswers, s PromptStep) (*mcp.GetPromptResult, error) {
	return elicitrt.PromptText("A prompt without context", "No context was given."), nil
}
func (prompt) Cancelled(ctx context.Context, req *mcp.GetPromptRequest, args struct{}, a PromptAnswers, s PromptStep) (*mcp.GetPromptResult, error) {
	return elicitrt.PromptText("A prompt without context", "No context was given."), nil
}

type notes struct{}

func (notes) Complete(ctx context.Context, req *mcp.ReadResourceRequest, a NotesAnswers) (*mcp.ReadResourceResult, error) {
	return elicitrt.ResourceText(req.Params.URI, "text/plain", "Notes on "+a.UserContext.Context+"."), nil
}
func (notes) Declined(ctx context.Context, req *mcp.ReadResourceRequest, a NotesAnswers, s NotesStep) (*mcp.ReadResourceResult, error) {
	return elicitrt.ResourceText(req.Params.URI, "text/plain", "The "+s.String()+" question was declined."), nil
}
func (notes) Cancelled(ctx context.Context, req *mcp.ReadResourceRequest, a NotesAnswers, s NotesStep) (*mcp.ReadResourceResult, error) {
	return elicitrt.ResourceText(req.Params.URI, "text/plain", "The "+s.String()+" question was cancelled."), nil
}
