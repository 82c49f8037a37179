package otelelicit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/asktest"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/oteltest"
)

// TestTelemetryPromptAndResource: a prompt's rounds are spans "prompts/get
// summarize" with gen_ai.prompt.name, a resource template's "resources/read
// notes://{id}" with the template as mcp.resource.uri (never the URI read),
// and their answers count under those names; the free-text answers, the
// argument and the URI read appear nowhere in the telemetry.
func TestTelemetryPromptAndResource(t *testing.T) {
	ctx := context.Background()
	rec := oteltest.New(t)
	u := &hosttest.User{Replies: []*mcp.ElicitResult{
		hosttest.Accept(map[string]any{"context": "ctx-k3v9q"}), hosttest.Accept(map[string]any{"context": "note-w8m2d"}),
	}}
	cs := hosttest.Connect(t, func() *mcp.Server { return asktest.Server(&elicitrt.ToolOptions{Hooks: rec.Hooks}) }, "http", "modern", hosttest.Options{User: u})
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"project": "proj-x5t1r"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "notes://id-q7z4p"}); err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, s := range rec.Ended() {
		names[s.Name()]++
		a := oteltest.SpanAttrs(s)
		switch s.Name() {
		case "prompts/get summarize":
			if a["gen_ai.prompt.name"] != "summarize" || a["mcp.method.name"] != "prompts/get" {
				t.Errorf("prompt span %v", a)
			}
		case "resources/read notes://{id}":
			if a["mcp.resource.uri"] != "notes://{id}" || a["mcp.method.name"] != "resources/read" {
				t.Errorf("resource span %v", a)
			}
		}
	}
	if names["prompts/get summarize"] != 2 || names["resources/read notes://{id}"] != 2 {
		t.Errorf("spans %v, want two rounds of each", names)
	}
	pts := rec.Points(t)
	if got := oteltest.Count(pts, "elicitgen.elicitation.responses", map[string]string{
		"gen_ai.prompt.name": "summarize", "elicitgen.step": "user_context", "elicitgen.outcome": "accept"}); got != 1 {
		t.Errorf("prompt responses: %v", got)
	}
	if got := oteltest.Count(pts, "elicitgen.elicitation.responses", map[string]string{
		"mcp.resource.uri": "notes://{id}", "elicitgen.step": "note_context", "elicitgen.outcome": "accept"}); got != 1 {
		t.Errorf("resource responses: %v", got)
	}
	text := rec.Text(t)
	for _, secret := range []string{"ctx-k3v9q", "note-w8m2d", "proj-x5t1r", "id-q7z4p"} {
		if strings.Contains(text, secret) {
			t.Errorf("%q appears in the telemetry:\n%s", secret, text)
		}
	}
}
