package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// reporter implements ReportHandler. Writing is simulated: each section
// takes a share of the requested seconds.
type reporter struct{}

// sections are written in order; the salaries question comes after the
// first half.
var sections = []string{"Summary", "Revenue by region", "Costs", "Outlook"}

func (reporter) Run(ctx context.Context, _ *mcp.CallToolRequest, task ReportTask, args ReportArgs, answers ReportAnswers) (*mcp.CallToolResult, error) {
	topic := strings.TrimSpace(args.Topic)
	if topic == "" {
		return elicitrt.ToolError("topic is required"), nil
	}
	seconds := args.Seconds
	if seconds <= 0 {
		seconds = 8
	}
	seconds = min(seconds, 600)
	each := time.Duration(seconds) * time.Second / time.Duration(len(sections))
	written := []string{}
	total := len(sections)
	write := func(name string) error {
		if err := task.Progress(ctx, fmt.Sprintf("Writing %q (%d of %d sections done)", name, len(written), total)); err != nil {
			return err
		}
		select {
		case <-time.After(each):
		case <-ctx.Done():
			return ctx.Err() // tasks/cancel, or the task's TTL
		}
		written = append(written, name)
		return nil
	}
	half := len(sections) / 2
	for _, s := range sections[:half] {
		if err := write(s); err != nil {
			return nil, err
		}
	}
	// While it waits, the task's status message is the runtime's:
	// "Waiting for your answer: " and the question.
	choice, outcome, err := task.AskSalaries(ctx)
	if err != nil {
		return nil, err
	}
	if outcome == elicitrt.Cancelled {
		return elicitrt.Text(fmt.Sprintf("Report on %s stopped after %d sections: the salaries question was dismissed.", topic, len(written))), nil
	}
	salaries := outcome == elicitrt.Accepted && choice.Include
	rest := sections[half:]
	if salaries {
		rest = append([]string{"Salaries"}, rest...)
		total++
	}
	for _, s := range rest {
		if err := write(s); err != nil {
			return nil, err
		}
	}
	verdict := "left out"
	if salaries {
		verdict = "included"
	}
	if err := task.Progress(ctx, fmt.Sprintf("Done: %d sections written", len(written))); err != nil {
		return nil, err
	}
	return elicitrt.Text(fmt.Sprintf("Report on %s (%s): %d sections: %s; salaries %s.",
		topic, answers.Format.Format, len(written), strings.Join(written, ", "), verdict)), nil
}

func (reporter) Declined(_ context.Context, _ *mcp.CallToolRequest, args ReportArgs, _ ReportAnswers, step ReportStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text(fmt.Sprintf("No report on %s: you declined the %s question.", args.Topic, step)), nil
}

func (reporter) Cancelled(_ context.Context, _ *mcp.CallToolRequest, args ReportArgs, _ ReportAnswers, step ReportStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text(fmt.Sprintf("No report on %s: the %s question was dismissed.", args.Topic, step)), nil
}
