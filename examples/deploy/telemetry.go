package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"

	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/otelelicit"
)

// telemetry wires OpenTelemetry as a server of elicitgen would: metrics
// as Prometheus text at /metrics on metricsAddr (none when empty), traces
// to the exporter OTEL_TRACES_EXPORTER names (console: stderr, never
// stdout, which the stdio transport owns; otlp: OTLP over HTTP, to the
// OTEL_EXPORTER_OTLP_* endpoint; unset or none: no traces). With neither,
// it returns nil hooks: no telemetry, and no error. shutdown flushes.
func telemetry(ctx context.Context, metricsAddr string, logger *slog.Logger) (hooks elicitrt.Hooks, shutdown func(), err error) {
	var opts otelelicit.Options
	var stops []func(context.Context) error
	shutdown = func() {
		for _, stop := range stops {
			_ = stop(context.Background())
		}
	}
	if metricsAddr != "" {
		mp, err := serveMetrics(metricsAddr, logger)
		if err != nil {
			return nil, shutdown, err
		}
		opts.MeterProvider = mp
		stops = append(stops, mp.Shutdown)
	}
	exporter, err := traceExporter(ctx, os.Getenv("OTEL_TRACES_EXPORTER"))
	if err != nil {
		return nil, shutdown, err
	}
	if exporter != nil {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
		opts.TracerProvider = tp
		stops = append(stops, tp.Shutdown)
	}
	if opts.MeterProvider == nil && opts.TracerProvider == nil {
		return nil, shutdown, nil
	}
	h, err := otelelicit.New(&opts)
	return h, shutdown, err
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
// text at http://addr/metrics.
func serveMetrics(addr string, logger *slog.Logger) (*sdkmetric.MeterProvider, error) {
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
	logger.Info(fmt.Sprintf("deploy: serving metrics at http://%s/metrics", ln.Addr()))
	go func() {
		if err := elicitrt.NewHTTPServer(addr, mux).Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("deploy: metrics server", "err", err)
		}
	}()
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
