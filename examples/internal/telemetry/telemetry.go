// Package telemetry wires the example servers' telemetry as a server of
// elicitgen would (docs/observability.md): -log json, -metrics ADDR
// (Prometheus text at /metrics) and OTEL_TRACES_EXPORTER, one wiring for
// every example.
package telemetry

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/elicitgen/elicitgen/runtime/serve"

	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/elicitgen/elicitgen/runtime/otelelicit"
)

// Flags are the telemetry flags of a server.
type Flags struct {
	// Metrics is the address of /metrics; "" means no metrics.
	Metrics string
	// Log is the log format, text or json.
	Log string
}

// Register adds -metrics and -log to fs.
func Register(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.Metrics, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics (none: no metrics)")
	fs.StringVar(&f.Log, "log", "text", "log format: text or json")
	return f
}

// Telemetry is what the flags and OTEL_TRACES_EXPORTER set up.
type Telemetry struct {
	// Logger is the server's logger (ToolOptions.Logger).
	Logger *slog.Logger
	// Hooks are the server's hooks (ToolOptions.Hooks); nil without
	// metrics and traces.
	Hooks backend.Hooks
	// MetricsURL is where the metrics are served, "" without.
	MetricsURL string
	stops      []func(context.Context) error
}

// Shutdown flushes the traces and stops serving the metrics.
func (t *Telemetry) Shutdown() {
	for _, stop := range t.stops {
		_ = stop(context.Background())
	}
}

// Start sets up the logger (-log), then metrics as Prometheus text at
// /metrics on f.Metrics (none when empty) and traces to the exporter
// OTEL_TRACES_EXPORTER names (console: stderr, never stdout, which the
// stdio transport owns; otlp: OTLP over HTTP, to the
// OTEL_EXPORTER_OTLP_* endpoint; unset or none: no traces). With neither,
// Hooks is nil: no telemetry. name prefixes the server's log lines.
func Start(ctx context.Context, name string, f *Flags) (*Telemetry, error) {
	logger, err := newLogger(f.Log)
	if err != nil {
		return nil, err
	}
	t := &Telemetry{Logger: logger}
	var opts otelelicit.Options
	if f.Metrics != "" {
		mp, err := t.serveMetrics(name, f.Metrics)
		if err != nil {
			return nil, err
		}
		opts.MeterProvider = mp
		t.stops = append(t.stops, mp.Shutdown)
	}
	exporter, err := traceExporter(ctx, os.Getenv("OTEL_TRACES_EXPORTER"))
	if err != nil {
		t.Shutdown()
		return nil, err
	}
	if exporter != nil {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
		opts.TracerProvider = tp
		t.stops = append(t.stops, tp.Shutdown)
	}
	if opts.MeterProvider == nil && opts.TracerProvider == nil {
		return t, nil
	}
	if t.Hooks, err = otelelicit.New(&opts); err != nil {
		t.Shutdown()
		return nil, err
	}
	return t, nil
}

// traceExporter is the span exporter OTEL_TRACES_EXPORTER names.
func traceExporter(ctx context.Context, name string) (sdktrace.SpanExporter, error) {
	switch name {
	case "", "none":
		return nil, nil
	case "console":
		return stdouttrace.New(stdouttrace.WithWriter(os.Stderr))
	case "otlp":
		return otlptracehttp.New(ctx)
	}
	return nil, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: want otlp, console or none", name)
}

// serveMetrics serves the metrics of a new meter provider as Prometheus
// text at http://addr/metrics, until Shutdown.
func (t *Telemetry) serveMetrics(name, addr string) (*sdkmetric.MeterProvider, error) {
	reg := promclient.NewRegistry()
	exporter, err := prometheus.New(prometheus.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.MetricsURL = fmt.Sprintf("http://%s/metrics", ln.Addr())
	t.Logger.Info(fmt.Sprintf("%s: serving metrics at %s", name, t.MetricsURL))
	srv := serve.NewHTTPServer(addr, mux)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Logger.Error(name+": metrics server", "err", err)
		}
	}()
	t.stops = append(t.stops, srv.Shutdown)
	return sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter)), nil
}

// newLogger is the server's logger: slog's default (the log package's
// text on stderr), or JSON on stderr with -log json, which then becomes
// slog's (and the log package's) default.
func newLogger(format string) (*slog.Logger, error) {
	switch format {
	case "", "text":
		return slog.Default(), nil
	case "json":
		logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
		slog.SetDefault(logger)
		return logger, nil
	}
	return nil, fmt.Errorf("-log %q: want text or json", format)
}
