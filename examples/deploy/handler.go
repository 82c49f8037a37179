package main

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// deployer implements DeployHandler.
type deployer struct{}

var _ DeployHandler = deployer{}

func (deployer) Complete(ctx context.Context, req *mcp.CallToolRequest, args DeployArgs, answers DeployAnswers) (*mcp.CallToolResult, error) {
	t := answers.Target
	notify := "without notifying"
	if t.Notify {
		notify = "and posting in #deployments"
	}
	return elicitrt.Text(fmt.Sprintf("Deploying %s to %s %s.", args.Service, t.Environment, notify)), nil
}

// Declined also serves a confirmation answered no: the confirm step is
// declared confirm, so {"confirm": false} arrives here, never at Complete.
func (deployer) Declined(ctx context.Context, req *mcp.CallToolRequest, args DeployArgs, answers DeployAnswers, step DeployStep) (*mcp.CallToolResult, error) {
	if step == DeployStepConfirm {
		return elicitrt.Text(fmt.Sprintf("Nothing was deployed: %s to production was not confirmed.", args.Service)), nil
	}
	return elicitrt.Text(fmt.Sprintf("Nothing was deployed: the %s question was declined.", step)), nil
}

func (deployer) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args DeployArgs, answers DeployAnswers, step DeployStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text(fmt.Sprintf("Nothing was deployed: the %s question was cancelled.", step)), nil
}

func (deployer) ConfirmMessage(ctx context.Context, req *mcp.CallToolRequest, args DeployArgs, answers DeployAnswers) string {
	return fmt.Sprintf("Deploy %s to production now?", args.Service)
}

func (deployer) PreviewConfirm(ctx context.Context, req *mcp.CallToolRequest, args DeployArgs, answers DeployAnswers) string {
	notify := "without notifying"
	if answers.Target.Notify {
		notify = "and posting in #deployments"
	}
	return fmt.Sprintf("Preview: this deploys %s to production %s.", args.Service, notify)
}

func (deployer) AskConfirm(ctx context.Context, req *mcp.CallToolRequest, args DeployArgs, answers DeployAnswers) bool {
	return answers.Target != nil && answers.Target.Environment == Prod
}
