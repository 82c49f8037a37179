package procserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
)

// The task tool "report" (arguments topic and seconds), restartable, as
// generated code would write it: a form step before the task, format
// ({"format": "markdown" | "html" | "text", required}), then a task that
// works half its seconds, asks salaries ({"include": boolean, required})
// while it runs, and works the other half.

var (
	formatSchema   = json.RawMessage(`{"type":"object","properties":{"format":{"type":"string","enum":["markdown","html","text"]}},"required":["format"]}`)
	salariesSchema = json.RawMessage(`{"type":"object","properties":{"include":{"type":"boolean"}},"required":["include"]}`)
	reportSchema   = json.RawMessage(`{"type":"object","properties":{"topic":{"type":"string"},"seconds":{"type":"integer"}},"required":["topic"]}`)
)

type formatChoice struct{ Format string }

func (x *formatChoice) DecodeElicit(c map[string]any) error {
	s, ok := c["format"].(string)
	if !ok || (s != "markdown" && s != "html" && s != "text") {
		return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: "format", Reason: "must be one of markdown, html, text"}}}
	}
	x.Format = s
	return nil
}

type salariesChoice struct{ Include bool }

func (x *salariesChoice) DecodeElicit(c map[string]any) error {
	b, ok := c["include"].(bool)
	if !ok {
		return &elicitrt.ContentError{Fields: []elicitrt.FieldError{{Property: "include", Reason: elicitimpl.ReasonBoolean}}}
	}
	x.Include = b
	return nil
}

type reportArgs struct {
	Topic   string `json:"topic"`
	Seconds int    `json:"seconds,omitempty"`
}

type reportAnswers struct {
	Format   *formatChoice
	Salaries *salariesChoice
}

func reportAnswersOf(a elicitimpl.Answers) reportAnswers {
	return reportAnswers{Format: elicitimpl.Decoded[formatChoice](a[0]), Salaries: elicitimpl.Decoded[salariesChoice](a[1])}
}

// work waits d, or until ctx ends (tasks/cancel, the task's TTL).
func work(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func runReport(ctx context.Context, req *mcp.CallToolRequest, t elicitrt.Task, args reportArgs, a reportAnswers) (*mcp.CallToolResult, error) {
	half := time.Duration(min(max(args.Seconds, 1), 600)) * time.Second / 2
	if err := work(ctx, half); err != nil {
		return nil, err
	}
	r, err := t.Ask(ctx, 1)
	if err != nil {
		return nil, err
	}
	if err := work(ctx, half); err != nil {
		return nil, err
	}
	include := r.Outcome == elicitrt.Accepted && elicitimpl.Decoded[salariesChoice](r.Content(1)).Include
	return elicitrt.Text(fmt.Sprintf("Report on %s (%s); salaries included: %v.", args.Topic, a.Format.Format, include)), nil
}

func reportEnded(ctx context.Context, req *mcp.CallToolRequest, args reportArgs, a reportAnswers, step int) (*mcp.CallToolResult, error) {
	return elicitrt.Text("No report on " + args.Topic + "."), nil
}

// ReportServer is an MCP server named report with the task tool report.
func ReportServer(opts *elicitrt.ToolOptions) *mcp.Server {
	m := elicitimpl.NewMachine("report", []elicitimpl.Step{{
		Key: "format", Message: "Which format should the report be in?", Mode: elicitimpl.ModeForm,
		Missing: "format is required: one of markdown, html, text", Fallback: elicitimpl.FallbackError,
		Params: form(formatSchema), Check: elicitimpl.Check[formatChoice],
	}, {
		Key: "salaries", Message: "The report found salary data. Include the salaries section?", Mode: elicitimpl.ModeForm,
		During: true, Missing: "include is required", Fallback: elicitimpl.FallbackError,
		Params: form(salariesSchema), Check: elicitimpl.Check[salariesChoice],
	}}, elicitimpl.Typed[reportArgs, reportAnswers, int]{
		Answers: reportAnswersOf, Run: runReport, Restartable: true, Tasks: elicitimpl.TaskOptional,
		Declined: reportEnded, Cancelled: reportEnded,
	}.Flow(), opts)
	server := mcp.NewServer(&mcp.Implementation{Name: "report", Version: "v0"}, nil)
	elicitimpl.AddTool[reportArgs](server, &mcp.Tool{Name: "report", InputSchema: reportSchema}, m)
	return server
}
