package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/redisstore"
	"github.com/elicitgen/elicitgen/runtime/redisstore/redistest"
)

// BenchmarkProductionDeployGuard is one production deploy (three rounds:
// call, target, confirmation, whose completion claims the flow) through
// the Go SDK client over the in-memory transport, with the in-memory
// replay guard and with the Redis guard (a local redis-server over
// loopback): what sharing the guard costs per flow.
func BenchmarkProductionDeployGuard(b *testing.B) {
	keys := elicitrt.RandomKeyring()
	guards := map[string]func(b *testing.B) backend.ReplayGuard{
		"memory": func(b *testing.B) backend.ReplayGuard { return &backend.MemoryReplayGuard{} },
		"redis": func(b *testing.B) backend.ReplayGuard {
			srv := redistest.Start(b)
			c, err := redisstore.NewClient(srv.URL)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { c.Close() })
			return redisstore.NewReplayGuard(c, nil)
		},
	}
	for _, name := range []string{"memory", "redis"} {
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			server := newServer(&elicitrt.ToolOptions{Keys: keys, Replay: guards[name](b)})
			st, ct := mcp.NewInMemoryTransports()
			ss, err := server.Connect(ctx, st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, &mcp.ClientOptions{
				MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}, ElicitationHandler: (&hosttest.User{}).Handle})
			cs, err := client.Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			b.ResetTimer()
			for i := range b.N {
				productionDeploy(b, ctx, cs, fmt.Sprintf("svc-%03d", i))
			}
		})
	}
}

// productionDeploy runs the three rounds of a production deploy of
// service by hand: the call, the target, the confirmation, which must
// complete it.
func productionDeploy(b *testing.B, ctx context.Context, cs *mcp.ClientSession, service string) {
	params := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": service}}
	for _, answer := range []map[string]any{{"environment": "prod"}, {"confirm": true}} {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			b.Fatal(err)
		}
		params.RequestState, params.InputResponses = res.RequestState, mcp.InputResponseMap{hosttest.OnlyKey(b, res): hosttest.Accept(answer)}
	}
	res, err := cs.CallTool(ctx, params)
	if want := "Deploying " + service + " to prod without notifying."; err != nil || hosttest.Text(res) != want {
		b.Fatalf("%s: not completed: %+v %v", service, res, err)
	}
}
