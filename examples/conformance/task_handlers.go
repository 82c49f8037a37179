package main

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// sleep waits d, or until the task is cancelled.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type greet struct{}

func (greet) Complete(_ context.Context, _ *mcp.CallToolRequest, args GreetArgs, _ GreetAnswers) (*mcp.CallToolResult, error) {
	return elicitrt.Text("Hello, " + args.Name + "!"), nil
}

type slowCompute struct{}

func (slowCompute) Run(ctx context.Context, _ *mcp.CallToolRequest, task SlowComputeTask, args SlowComputeArgs, _ SlowComputeAnswers) (*mcp.CallToolResult, error) {
	d := time.Duration(min(max(args.Seconds, 0), 3600) * float64(time.Second))
	if err := task.Progress(ctx, fmt.Sprintf("computing for %s", d)); err != nil {
		return nil, err
	}
	if err := sleep(ctx, d); err != nil {
		return nil, err
	}
	return elicitrt.Text(fmt.Sprintf("Computed %q in %s.", args.Label, d)), nil
}

type failingJob struct{}

func (failingJob) Run(ctx context.Context, _ *mcp.CallToolRequest, _ FailingJobTask, _ NoArgs, _ FailingJobAnswers) (*mcp.CallToolResult, error) {
	if err := sleep(ctx, time.Second); err != nil {
		return nil, err
	}
	return elicitrt.ToolError("the job failed, as it always does"), nil
}

type protocolErrorJob struct{}

func (protocolErrorJob) Run(context.Context, *mcp.CallToolRequest, ProtocolErrorJobTask, NoArgs, ProtocolErrorJobAnswers) (*mcp.CallToolResult, error) {
	panic("protocol_error_job: a deliberate crash, which fails the task with an internal error")
}

type confirmDelete struct{}

func (confirmDelete) Run(ctx context.Context, _ *mcp.CallToolRequest, task ConfirmDeleteTask, args DeleteArgs, _ ConfirmDeleteAnswers) (*mcp.CallToolResult, error) {
	answer, outcome, err := task.AskConfirm(ctx)
	if err != nil {
		return nil, err
	}
	if outcome != elicitrt.Accepted || !answer.Confirm {
		return elicitrt.Text("Kept " + args.Filename + "."), nil
	}
	return elicitrt.Text("Deleted " + args.Filename + "."), nil
}

type multiInput struct{}

func (multiInput) Run(ctx context.Context, _ *mcp.CallToolRequest, task MultiInputTask, _ NoArgs, _ MultiInputAnswers) (*mcp.CallToolResult, error) {
	name, confirm, outcome, err := task.AskName(ctx)
	if err != nil {
		return nil, err
	}
	if outcome != elicitrt.Accepted {
		return elicitrt.Text("No record: " + string(outcome) + "."), nil
	}
	return elicitrt.Text(fmt.Sprintf("Record %q, confirmed: %v.", name.Name, confirm.Confirm)), nil
}

type toolWithTask struct{}

func (toolWithTask) Run(ctx context.Context, _ *mcp.CallToolRequest, task ToolWithTaskTask, _ NoArgs, answers ToolWithTaskAnswers) (*mcp.CallToolResult, error) {
	if err := task.Progress(ctx, "greeting"); err != nil {
		return nil, err
	}
	if err := sleep(ctx, 200*time.Millisecond); err != nil {
		return nil, err
	}
	return elicitrt.Text("Hello, " + answers.UserName.Name + "!"), nil
}

func (toolWithTask) Declined(context.Context, *mcp.CallToolRequest, NoArgs, ToolWithTaskAnswers, ToolWithTaskStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("Not greeting anyone."), nil
}

func (toolWithTask) Cancelled(context.Context, *mcp.CallToolRequest, NoArgs, ToolWithTaskAnswers, ToolWithTaskStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text("Cancelled."), nil
}
