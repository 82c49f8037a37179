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
			sessions := []*mcp.ClientSession{cs, cs}
			b.ResetTimer()
			for i := range b.N {
				f, err := toConfirmation(ctx, sessions, i)
				if err != nil {
					b.Fatal(err)
				}
				if ok, err := f.completed(f.confirm(ctx, cs)); !ok || err != nil {
					b.Fatal(fmt.Errorf("%s: not completed (%v)", f.service, err))
				}
			}
		})
	}
}
