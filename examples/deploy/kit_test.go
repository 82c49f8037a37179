package main

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest"
)

// The deploy tool's conversations, written with the public test kit
// (docs/guide/testing.md): each runs in memory over the real SDK on both
// protocol eras, the person's answers typed as the generated forms.

var (
	kitArgs = map[string]any{"service": "api"}
	kitProd = map[string]any{"service": "api", "environment": "prod"}
)

const (
	kitTargetMessage  = "Which environment should I deploy to?"
	kitConfirmMessage = "Deploy api to production now?"
	kitNotConfirmed   = "Nothing was deployed: api to production was not confirmed."
)

// countingDeployer is the example's handler with its effect counted: every
// call of Complete is a deploy.
type countingDeployer struct {
	deployer
	deploys *atomic.Int32
}

func (d countingDeployer) Complete(ctx context.Context, req *mcp.CallToolRequest, args DeployArgs, answers DeployAnswers) (*mcp.CallToolResult, error) {
	d.deploys.Add(1)
	return d.deployer.Complete(ctx, req, args, answers)
}

// kitStart connects a client on era to the deploy server with the
// counting handler: deploys counts the calls of Complete.
func kitStart(t *testing.T, era elicittest.Era, deploys *atomic.Int32, o elicittest.Options) *elicittest.Client {
	t.Helper()
	o.Era = era
	return elicittest.Start(t, func(opts *elicitrt.ToolOptions) *mcp.Server {
		server := mcp.NewServer(&mcp.Implementation{Name: "deploy", Version: "v1.0.0"}, nil)
		RegisterDeploy(server, countingDeployer{deploys: deploys}, opts)
		return server
	}, &o)
}

// kitEras runs f on each era, with a fresh count of deploys.
func kitEras(t *testing.T, f func(t *testing.T, era elicittest.Era, deploys *atomic.Int32)) {
	for _, era := range elicittest.Eras {
		t.Run(era.String(), func(t *testing.T) { f(t, era, new(atomic.Int32)) })
	}
}

func wantDeploys(t *testing.T, deploys *atomic.Int32, want int32) {
	t.Helper()
	if n := deploys.Load(); n != want {
		t.Errorf("Complete ran %d times, want %d", n, want)
	}
}

// TestKitAccept: the target form as shown, accepted for staging (no
// confirmation), and for production, confirmed.
func TestKitAccept(t *testing.T) {
	kitEras(t, func(t *testing.T, era elicittest.Era, deploys *atomic.Int32) {
		c := kitStart(t, era, deploys, elicittest.Options{})
		c.Call("deploy", kitArgs,
			elicittest.Accept(DeployStepTarget, Target{Environment: Staging, Notify: true}).
				Message(kitTargetMessage).Fields("environment", "notify").
				Title("environment", "Environment").Default("notify", false),
		).WantText(t, "Deploying api to staging and posting in #deployments.")
		c.Call("deploy", kitArgs,
			elicittest.Accept(DeployStepTarget, Target{Environment: Prod}),
			elicittest.Accept(DeployStepConfirm, Confirmation{Confirm: true}).Message(kitConfirmMessage).Fields("confirm"),
		).WantText(t, "Deploying api to prod without notifying.")
		wantDeploys(t, deploys, 2)
	})
}

// TestKitDeclineAtConfirmation: a declined or cancelled confirmation
// deploys nothing.
func TestKitDeclineAtConfirmation(t *testing.T) {
	kitEras(t, func(t *testing.T, era elicittest.Era, deploys *atomic.Int32) {
		c := kitStart(t, era, deploys, elicittest.Options{})
		c.Call("deploy", kitArgs,
			elicittest.Accept(DeployStepTarget, Target{Environment: Prod}),
			elicittest.Decline(DeployStepConfirm).Message(kitConfirmMessage),
		).WantText(t, kitNotConfirmed)
		c.Call("deploy", kitProd, elicittest.Cancel(DeployStepConfirm)).
			WantText(t, "Nothing was deployed: the confirm question was cancelled.")
		wantDeploys(t, deploys, 0)
	})
}

// TestKitConfirmFalse: {"confirm": false} is the confirmation's decline,
// never Complete, and is not asked again (the script has no step for a
// second asking), whether the target was asked or prefilled.
func TestKitConfirmFalse(t *testing.T) {
	kitEras(t, func(t *testing.T, era elicittest.Era, deploys *atomic.Int32) {
		c := kitStart(t, era, deploys, elicittest.Options{})
		c.Call("deploy", kitArgs,
			elicittest.Accept(DeployStepTarget, Target{Environment: Prod}),
			elicittest.Accept(DeployStepConfirm, Confirmation{Confirm: false}),
		).WantText(t, kitNotConfirmed)
		c.Call("deploy", kitProd, elicittest.Accept(DeployStepConfirm, Confirmation{})).WantText(t, kitNotConfirmed)
		wantDeploys(t, deploys, 0)
	})
}

// TestKitInvalidTargetIsAskedAgain: an environment outside the enum,
// scripted raw, is asked again with the reason in the form's words.
func TestKitInvalidTargetIsAskedAgain(t *testing.T) {
	kitEras(t, func(t *testing.T, era elicittest.Era, deploys *atomic.Int32) {
		c := kitStart(t, era, deploys, elicittest.Options{})
		out := c.Call("deploy", kitArgs,
			elicittest.Accept(DeployStepTarget, map[string]any{"environment": "moon"}),
			elicittest.Accept(DeployStepTarget, Target{Environment: Dev}).
				Message(kitTargetMessage).Reason("environment: must be one of Development, Staging, Production"),
		)
		out.WantText(t, "Deploying api to dev without notifying.")
		if len(out.Questions) != 2 || out.Questions[1].Key != "target.2" {
			t.Errorf("questions: %v", out.Questions)
		}
	})
}

// TestKitPreviewThenConfirm: a client that cannot ask gets a preview and a
// confirmation token; the same call with the token deploys, once.
func TestKitPreviewThenConfirm(t *testing.T) {
	kitEras(t, func(t *testing.T, era elicittest.Era, deploys *atomic.Int32) {
		c := kitStart(t, era, deploys, elicittest.Options{Capabilities: elicittest.NoElicitation()})
		preview := c.Call("deploy", kitProd)
		if preview.IsError() || len(preview.Result.Content) != 2 ||
			preview.Result.Content[0].(*mcp.TextContent).Text != "Preview: this deploys api to production without notifying." {
			t.Fatalf("preview: %s", preview)
		}
		if f := preview.Fallbacks(); len(f) != 1 || f[0] != "confirm: preview" {
			t.Errorf("fallbacks: %q", f)
		}
		wantDeploys(t, deploys, 0)
		token := preview.PreviewToken()
		if token == "" {
			t.Fatalf("no token in %s", preview)
		}
		confirmed := map[string]any{"service": "api", "environment": "prod", elicitrt.PreviewTokenArgument: token}
		c.Call("deploy", confirmed).WantText(t, "Deploying api to prod without notifying.")
		c.Call("deploy", confirmed).WantToolError(t, "new preview")
		wantDeploys(t, deploys, 1)
	})
}

// TestKitReplayedConfirmation: the retry that confirmed a production
// deploy, sent again, is refused (-32602): Complete runs once. Only
// 2026-07-28 has retries; on 2025-11-25 the confirmation is answered
// inside the call, and the same call again asks again.
func TestKitReplayedConfirmation(t *testing.T) {
	deploys := new(atomic.Int32)
	c := kitStart(t, elicittest.Modern, deploys, elicittest.Options{})
	c.Call("deploy", kitProd, elicittest.Accept(DeployStepConfirm, Confirmation{Confirm: true})).
		WantText(t, "Deploying api to prod without notifying.")
	replay := c.Replay()
	replay.WantCode(t, -32602)
	if replay.ErrorMessage() != "requestState already used" {
		t.Errorf("replay: %s", replay)
	}
	wantDeploys(t, deploys, 1)

	legacy := kitStart(t, elicittest.Legacy, deploys, elicittest.Options{})
	for range 2 {
		legacy.Call("deploy", kitProd, elicittest.Accept(DeployStepConfirm, Confirmation{Confirm: true})).
			WantText(t, "Deploying api to prod without notifying.")
	}
	wantDeploys(t, deploys, 3)
}
