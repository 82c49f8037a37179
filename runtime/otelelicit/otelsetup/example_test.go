package otelsetup_test

import (
	"context"
	"flag"
	"log"

	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup"
)

// A server's main: -metrics and -log on its command line, traces as the
// OTEL_* environment says (OTEL_TRACES_EXPORTER=otlp and
// OTEL_EXPORTER_OTLP_ENDPOINT, say), and the hooks and logger handed to
// the runtime (elicitrt.ToolOptions{Hooks: tel.Hooks, Logger:
// tel.Logger}).
func Example() {
	var config otelsetup.Config
	config.RegisterFlags(flag.CommandLine)
	flag.Parse()
	tel, err := otelsetup.Start(context.Background(), &config)
	if err != nil {
		log.Fatal(err)
	}
	defer tel.Shutdown(context.Background()) // exports the spans still queued, stops /metrics
	tel.Logger.Info("serving", "telemetry", tel.Hooks != nil)
}
