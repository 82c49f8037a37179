package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

func promptText(res *mcp.GetPromptResult) string {
	if res == nil || len(res.Messages) != 1 {
		return ""
	}
	tc, _ := res.Messages[0].Content.(*mcp.TextContent)
	if tc == nil {
		return ""
	}
	return tc.Text
}

func notesText(res *mcp.ReadResourceResult) string {
	if res == nil || len(res.Contents) != 1 {
		return ""
	}
	return res.Contents[0].Text
}

// TestPromptAndResource gets the generated prompt and reads the generated
// resource template through the Go SDK client, on both eras, over stdio,
// in memory and over HTTP: accepted, declined and cancelled.
func TestPromptAndResource(t *testing.T) {
	ctx := context.Background()
	for _, transport := range []string{"stdio", "memory", "http"} {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				u := &hosttest.User{Replies: []*mcp.ElicitResult{
					hosttest.Accept(map[string]any{"context": "test context"}), {Action: "decline"},
					hosttest.Accept(map[string]any{"context": "March"}), {Action: "decline"}, {Action: "cancel"},
				}}
				cs := connect(t, transport, era, hosttest.Options{User: u})
				for _, want := range []string{"Use this context: test context", "No context was given."} {
					res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
					if err != nil || promptText(res) != want {
						t.Errorf("prompt: %+v %v, want %q", res, err, want)
					}
				}
				for _, want := range []string{"Notes on March.", "The user_context question was declined.", "The user_context question was cancelled."} {
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://notes/7"})
					if err != nil || notesText(res) != want || res.Contents[0].URI != "test://notes/7" || res.Contents[0].MIMEType != "text/plain" {
						t.Errorf("resource: %+v %v, want %q", res, err, want)
					}
				}
				if len(u.Asked) != 5 {
					t.Errorf("asked %d questions", len(u.Asked))
				}
			})
		}
	}
}

// TestPromptRounds: the rounds of the scenario by hand on 2026-07-28 over
// HTTP: the first round's shape, an invalid answer asked again under its
// next key, a tampered state refused with -32602, then the messages.
func TestPromptRounds(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, "http", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	get := func(state string, answers mcp.InputResponseMap) (*mcp.GetPromptResult, error) {
		return cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt", RequestState: state, InputResponses: answers})
	}
	first, err := get("", nil)
	if err != nil || !first.NeedsInput() || first.RequestState == "" || len(first.InputRequests) != 1 {
		t.Fatalf("first round: %+v %v", first, err)
	}
	p, _ := first.InputRequests["user_context"].(*mcp.ElicitParams)
	if p == nil || p.Message != "What context should the prompt use?" {
		t.Fatalf("asked %+v", first.InputRequests)
	}
	again, err := get(first.RequestState, mcp.InputResponseMap{"user_context": hosttest.Accept(map[string]any{"context": 42})})
	if err != nil || !again.NeedsInput() || again.InputRequests["user_context.2"] == nil {
		t.Fatalf("invalid answer: %+v %v", again, err)
	}
	answer := mcp.InputResponseMap{"user_context.2": hosttest.Accept(map[string]any{"context": "test context"})}
	var werr *jsonrpc.Error
	if _, err := get(again.RequestState+"-TAMPERED", answer); !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("tampered: %v", err)
	}
	done, err := get(again.RequestState, answer)
	if err != nil || done.NeedsInput() || !strings.Contains(promptText(done), "test context") {
		t.Errorf("complete: %+v %v", done, err)
	}
}
