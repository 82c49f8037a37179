// Package otelsetup sets up a server's telemetry from the standard OTEL_*
// environment in one call: traces through the OpenTelemetry SDK to the
// exporters OTEL_TRACES_EXPORTER names (OTLP over HTTP or gRPC, the console),
// metrics as Prometheus text at an address the operator names, with the
// Go runtime's and the process's collectors, a logger, and the hooks of
// runtime/otelelicit for ToolOptions.Hooks.
//
//	tel, err := otelsetup.Start(ctx, nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer tel.Shutdown(context.Background())
//	opts := &elicitrt.ToolOptions{Keys: keys, Hooks: tel.Hooks, Logger: tel.Logger}
//
// It is opt-in: runtime/otelelicit links the OpenTelemetry API only, and
// this package is what links the SDK, the exporters and the Prometheus
// client (docs/guide/observability.md#telemetry-in-five-lines-otelsetup).
//
// It logs the endpoints it serves and the exporters it chose, by name:
// never an OTLP endpoint or header, which may carry a token. A metrics
// address beyond loopback (":9464", "0.0.0.0:9464", a host name other
// than localhost) is logged at Warn, naming it.
package otelsetup

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	promclient "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/otelelicit"
)

// DefaultPrometheusPort is the port of /metrics with
// OTEL_METRICS_EXPORTER=prometheus and no OTEL_EXPORTER_PROMETHEUS_PORT,
// the OpenTelemetry specification's.
const DefaultPrometheusPort = "9464"

// DefaultShutdownTimeout bounds Shutdown when its context has no
// deadline and Config.ShutdownTimeout is 0: time for a reachable
// collector to take the last spans.
const DefaultShutdownTimeout = 5 * time.Second

// Config is what a server decides beside the environment. The zero
// Config (or nil) takes everything from the environment.
type Config struct {
	// MetricsAddr, when set, is where Prometheus text is served, at
	// http://MetricsAddr/metrics, whatever OTEL_METRICS_EXPORTER says.
	// Empty: OTEL_METRICS_EXPORTER decides.
	MetricsAddr string
	// LogFormat is the logger's format: "text" (or empty: slog's
	// default) or "json" (JSON on Output, which becomes slog's default).
	LogFormat string
	// ServiceName is service.name when neither OTEL_SERVICE_NAME nor
	// OTEL_RESOURCE_ATTRIBUTES names one; empty: unknown_service:
	// followed by the executable's name, as the specification says.
	ServiceName string
	// ShutdownTimeout bounds Shutdown when its context has no deadline;
	// 0: DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Output is where the console exporter's spans and a JSON or a text
	// logger write; nil: os.Stderr (never stdout, which the stdio
	// transport owns). With Output set, a text logger is a new one on it
	// instead of slog's default.
	Output io.Writer
}

// RegisterFlags adds -metrics (MetricsAddr) and -log (LogFormat) to fs.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.MetricsAddr, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics (default: as OTEL_METRICS_EXPORTER says, none when unset)")
	fs.StringVar(&c.LogFormat, "log", "text", "log format: text or json")
}

// Telemetry is what Start set up.
type Telemetry struct {
	// Hooks are the server's hooks (ToolOptions.Hooks): the runtime's
	// events as spans and metrics. Nil with neither traces nor metrics,
	// so that the server reports nothing.
	Hooks backend.Hooks
	// Logger is the server's logger (ToolOptions.Logger).
	Logger *slog.Logger
	// MetricsURL is where the metrics are served, "" without metrics.
	MetricsURL string
	// TracerProvider is the SDK's tracer provider for the server's own
	// spans; a no-op one without traces.
	TracerProvider trace.TracerProvider
	// MeterProvider is the SDK's meter provider for the server's own
	// instruments; a no-op one without metrics.
	MeterProvider metric.MeterProvider

	stops   []func(context.Context) error
	timeout time.Duration
	once    sync.Once
	err     error
}

// Shutdown ends the telemetry: the tracer provider exports every span
// still queued (so none is lost to the batch interval), then the metrics
// stop being served. It waits until ctx is done, or for
// Config.ShutdownTimeout when ctx has no deadline, so that a collector
// out of reach does not hold the process; spans not exported by then are
// lost and the error says so. Calls after the first return the first's
// error.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	t.once.Do(func() {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, t.timeout)
			defer cancel()
		}
		var errs []error
		for _, stop := range t.stops {
			errs = append(errs, stop(ctx))
		}
		t.err = errors.Join(errs...)
	})
	return t.err
}

// Start sets up the telemetry c and the OTEL_* environment describe
// (docs/guide/observability.md#telemetry-in-five-lines-otelsetup): the logger,
// then metrics as Prometheus text (c.MetricsAddr, or
// OTEL_METRICS_EXPORTER=prometheus at OTEL_EXPORTER_PROMETHEUS_HOST and
// _PORT), with the Go runtime's and the process's collectors, and traces
// to the exporters OTEL_TRACES_EXPORTER names: otlp (OTLP over HTTP, or
// gRPC when OTEL_EXPORTER_OTLP_PROTOCOL says so, configured by the
// OTEL_EXPORTER_OTLP_* variables), console (JSON on
// c.Output) or none. A value it does not know fails Start, naming it.
// The caller calls Shutdown when the server stops. c may be nil.
func Start(ctx context.Context, c *Config) (*Telemetry, error) {
	if c == nil {
		c = &Config{}
	}
	out := c.Output
	if out == nil {
		out = os.Stderr
	}
	logger, err := newLogger(c.LogFormat, c.Output, out)
	if err != nil {
		return nil, err
	}
	t := &Telemetry{Logger: logger, TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider(), timeout: c.ShutdownTimeout}
	if t.timeout <= 0 {
		t.timeout = DefaultShutdownTimeout
	}
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		logger.Info("otelsetup: OTEL_SDK_DISABLED=true: no traces and no metrics")
		return t, nil
	}
	addr, err := metricsAddr(c.MetricsAddr)
	if err != nil {
		return nil, err
	}
	exporters, names, err := traceExporters(ctx, out)
	if err != nil {
		return nil, err
	}
	if len(exporters) == 0 && addr == "" {
		return t, nil
	}
	res, err := newResource(ctx, c.ServiceName)
	if errors.Is(err, resource.ErrPartialResource) {
		// A malformed OTEL_RESOURCE_ATTRIBUTES: the SDK keeps what it
		// could read; the values are not repeated here.
		logger.Warn("otelsetup: OTEL_RESOURCE_ATTRIBUTES is malformed: some attributes are left out")
	} else if err != nil {
		for _, e := range exporters {
			_ = e.Shutdown(ctx)
		}
		return nil, err
	}
	if err := t.providers(res, exporters, names, addr); err != nil {
		_ = t.Shutdown(ctx)
		return nil, err
	}
	return t, nil
}

// providers makes the tracer provider of exporters (named names) and the
// meter provider serving Prometheus at addr ("": none), both of res, and
// the hooks over them.
func (t *Telemetry) providers(res *resource.Resource, exporters []sdktrace.SpanExporter, names []string, addr string) error {
	var opts otelelicit.Options
	if len(exporters) > 0 {
		topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
		for _, e := range exporters {
			topts = append(topts, sdktrace.WithBatcher(e))
		}
		tp := sdktrace.NewTracerProvider(topts...)
		t.Logger.Info("otelsetup: traces to " + strings.Join(names, ", "))
		t.stops = append(t.stops, tp.Shutdown)
		opts.TracerProvider, t.TracerProvider = tp, tp
	}
	if addr != "" {
		mp, err := t.serveMetrics(addr, res)
		if err != nil {
			return err
		}
		opts.MeterProvider, t.MeterProvider = mp, mp
	}
	hooks, err := otelelicit.New(&opts)
	if err != nil {
		return err
	}
	t.Hooks = hooks
	return nil
}

// traceExporters are the span exporters OTEL_TRACES_EXPORTER names, and
// their names.
func traceExporters(ctx context.Context, out io.Writer) ([]sdktrace.SpanExporter, []string, error) {
	var exporters []sdktrace.SpanExporter
	var names []string
	for name := range strings.SplitSeq(os.Getenv("OTEL_TRACES_EXPORTER"), ",") {
		var e sdktrace.SpanExporter
		var err error
		switch name = strings.TrimSpace(name); name {
		case "", "none":
			continue
		case "console":
			e, err = stdouttrace.New(stdouttrace.WithWriter(out))
		case "otlp":
			var protocol string
			if protocol, err = otlpProtocol(); err == nil {
				name += " (" + protocol + ")"
				if protocol == "grpc" {
					e, err = otlptracegrpc.New(ctx)
				} else {
					e, err = otlptracehttp.New(ctx)
				}
			}
		default:
			err = fmt.Errorf("OTEL_TRACES_EXPORTER=%q: want otlp, console or none", name)
		}
		if err != nil {
			for _, e := range exporters {
				_ = e.Shutdown(ctx)
			}
			return nil, nil, err
		}
		exporters, names = append(exporters, e), append(names, name)
	}
	return exporters, names, nil
}

// otlpProtocol is the OTLP protocol OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
// or else OTEL_EXPORTER_OTLP_PROTOCOL, names: http/protobuf (the default)
// or grpc. http/json, which the Go exporters do not speak, and any other
// value are refused.
func otlpProtocol() (string, error) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		switch p := strings.TrimSpace(os.Getenv(v)); p {
		case "":
			continue
		case "http/protobuf", "grpc":
			return p, nil
		default:
			return "", fmt.Errorf("%s=%q: want http/protobuf or grpc", v, p)
		}
	}
	return "http/protobuf", nil
}

// metricsAddr is where /metrics is served: flag, the address the server
// was given, or the one OTEL_METRICS_EXPORTER=prometheus asks for; "" for
// no metrics.
func metricsAddr(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	switch e := strings.TrimSpace(os.Getenv("OTEL_METRICS_EXPORTER")); e {
	case "", "none":
		return "", nil
	case "prometheus":
		host := os.Getenv("OTEL_EXPORTER_PROMETHEUS_HOST")
		if host == "" {
			host = "localhost"
		}
		port := os.Getenv("OTEL_EXPORTER_PROMETHEUS_PORT")
		if port == "" {
			port = DefaultPrometheusPort
		}
		return net.JoinHostPort(host, port), nil
	default:
		return "", fmt.Errorf("OTEL_METRICS_EXPORTER=%q: want prometheus or none", e)
	}
}

// newResource describes the server: the SDK's attributes, service.name
// (name, or unknown_service:EXECUTABLE), then what OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES say, which win.
func newResource(ctx context.Context, name string) (*resource.Resource, error) {
	if name == "" {
		name = "unknown_service:" + filepath.Base(os.Args[0])
	}
	return resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", name)),
		resource.WithFromEnv(),
	)
}

// serveMetrics serves the metrics of a new meter provider, the Go
// runtime's and the process's as Prometheus text at http://addr/metrics,
// until Shutdown.
func (t *Telemetry) serveMetrics(addr string, res *resource.Resource) (*sdkmetric.MeterProvider, error) {
	reg := promclient.NewRegistry()
	if err := reg.Register(collectors.NewGoCollector()); err != nil {
		return nil, err
	}
	if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
		return nil, err
	}
	exporter, err := prometheus.New(prometheus.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	t.MetricsURL = fmt.Sprintf("http://%s/metrics", ln.Addr())
	t.Logger.Info("otelsetup: serving metrics at " + t.MetricsURL)
	if !loopback(addr) {
		t.Logger.Warn("otelsetup: metrics at "+addr+" are served beyond loopback, to whoever reaches this address: bind 127.0.0.1 (the default) unless a firewall or network policy guards it", "addr", addr)
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Logger.Error("otelsetup: metrics server", "err", err)
		}
	}()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter), sdkmetric.WithResource(res))
	t.stops = append(t.stops, mp.Shutdown, srv.Shutdown)
	return mp, nil
}

// loopback reports whether addr (host:port, as net.Listen takes it)
// listens on loopback only: localhost, 127.0.0.0/8 or ::1. An empty host,
// 0.0.0.0, ::, another address or any other name listens beyond it (a
// name may resolve to anything), and so does what does not parse.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	host, _, _ = strings.Cut(host, "%") // a zone: fe80::1%eth0
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newLogger is the server's logger: slog's default (or text on output
// when the Config named one), or JSON on out, which then becomes slog's
// (and the log package's) default.
func newLogger(format string, output, out io.Writer) (*slog.Logger, error) {
	switch format {
	case "", "text":
		if output != nil {
			return slog.New(slog.NewTextHandler(output, nil)), nil
		}
		return slog.Default(), nil
	case "json":
		logger := slog.New(slog.NewJSONHandler(out, nil))
		slog.SetDefault(logger)
		return logger, nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}
