package main

import (
	"context"
	"testing"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/otelelicit"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/oteltest"
)

// BenchmarkRoundTripHooks is BenchmarkRoundTrip's deploy to staging with
// no hooks (ToolOptions.Hooks nil: what every server without telemetry
// runs), with otelelicit over the global providers, which are no-ops
// until an SDK is configured, and with the SDK recording every span and
// metric in memory.
func BenchmarkRoundTripHooks(b *testing.B) {
	answer := accept(map[string]any{"environment": "staging", "notify": true})
	noop, err := otelelicit.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		hooks func(b *testing.B) backend.Hooks
	}{
		{"none", func(*testing.B) backend.Hooks { return nil }},
		{"otel-noop", func(*testing.B) backend.Hooks { return noop }},
		{"otel-sdk", func(b *testing.B) backend.Hooks { return oteltest.New(b).Hooks }},
	} {
		b.Run(c.name, func(b *testing.B) {
			opts := &elicitrt.ToolOptions{Keys: keys, Replay: &backend.MemoryReplayGuard{}, Hooks: c.hooks(b)}
			cs := connectBench(b, newServer(opts), answer)
			params := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api"}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
