package main

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
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

// TestAcceptedNoIsADecline: a production confirmation accepted with
// {"confirm": false} is the confirm step's decline (Declined, nothing
// deployed, not asked again), never Complete, in memory and over HTTP, on
// both protocol eras, whether the target was asked or prefilled; true
// deploys once.
func TestAcceptedNoIsADecline(t *testing.T) {
	target := accept(map[string]any{"environment": "prod"})
	cases := []struct {
		name    string
		args    map[string]any
		replies []*mcp.ElicitResult
		want    string
		deploys int32
	}{
		{"no", map[string]any{"service": "api"},
			[]*mcp.ElicitResult{target, accept(map[string]any{"confirm": false})},
			"Nothing was deployed: api to production was not confirmed.", 0},
		{"no, prefilled", map[string]any{"service": "api", "environment": "prod"},
			[]*mcp.ElicitResult{accept(map[string]any{"confirm": false})},
			"Nothing was deployed: api to production was not confirmed.", 0},
		{"no, with more", map[string]any{"service": "api", "environment": "prod"},
			[]*mcp.ElicitResult{accept(map[string]any{"confirm": false, "sure": true})},
			"Nothing was deployed: api to production was not confirmed.", 0},
		{"yes", map[string]any{"service": "api"},
			[]*mcp.ElicitResult{target, accept(map[string]any{"confirm": true})},
			"Deploying api to prod without notifying.", 1},
	}
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				for _, c := range cases {
					var deploys atomic.Int32
					newServer := func() *mcp.Server {
						server := mcp.NewServer(&mcp.Implementation{Name: "deploy", Version: "v1.0.0"}, nil)
						RegisterDeploy(server, countingDeployer{deploys: &deploys}, &elicitrt.ToolOptions{Keys: keys})
						return server
					}
					u := &user{Replies: c.replies}
					cs := hosttest.Connect(t, newServer, transport, era, hosttest.Options{User: u})
					got, res, err := call(t, cs, c.args)
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					if got != c.want || res.IsError {
						t.Errorf("%s: got %q (isError %v), want %q", c.name, got, res.IsError, c.want)
					}
					if n := deploys.Load(); n != c.deploys {
						t.Errorf("%s: Complete ran %d times, want %d", c.name, n, c.deploys)
					}
					if len(u.Asked) != len(c.replies) {
						t.Errorf("%s: asked %d times, want %d (a no is not asked again)", c.name, len(u.Asked), len(c.replies))
					}
				}
			})
		}
	}
}
