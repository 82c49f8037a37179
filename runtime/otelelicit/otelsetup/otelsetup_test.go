package otelsetup_test

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup"
	"github.com/elicitgen/elicitgen/runtime/otelelicit/otelsetup/promtest"
)

// otelEnv are the variables otelsetup and the SDK read; each test starts
// with none of them set.
var otelEnv = []string{
	"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
	"OTEL_EXPORTER_PROMETHEUS_HOST", "OTEL_EXPORTER_PROMETHEUS_PORT",
	"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_BSP_SCHEDULE_DELAY",
	"OTEL_TRACES_SAMPLER",
}

// setEnv unsets every variable of otelEnv, then sets kv (name, value,
// ...), for the test's duration.
func setEnv(t *testing.T, kv ...string) {
	t.Helper()
	for _, k := range otelEnv {
		t.Setenv(k, "")
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		t.Setenv(kv[i], kv[i+1])
	}
}

// start is otelsetup.Start, shut down when the test ends.
func start(t *testing.T, c *otelsetup.Config) *otelsetup.Telemetry {
	t.Helper()
	tel, err := otelsetup.Start(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	return tel
}

// call reports one tools/call of deploy to hooks, as the runtime does.
func call(t *testing.T, hooks backend.Hooks) {
	t.Helper()
	if hooks == nil {
		t.Fatal("no hooks")
	}
	r := &backend.Served{Method: "tools/call", Target: "deploy", ProtocolVersion: "2025-11-25"}
	ctx := hooks.Begin(context.Background(), r)
	r.Duration = 3 * time.Millisecond
	hooks.End(ctx, r)
}

// TestPrometheus: with a metrics address, /metrics serves the server's
// series beside the Go runtime's and the process's, and stops with
// Shutdown.
func TestPrometheus(t *testing.T) {
	setEnv(t)
	var out hosttest.LogBuffer
	tel := start(t, &otelsetup.Config{MetricsAddr: "127.0.0.1:0", Output: &out})
	if !strings.HasPrefix(tel.MetricsURL, "http://127.0.0.1:") {
		t.Fatalf("MetricsURL = %q", tel.MetricsURL)
	}
	call(t, tel.Hooks)
	families := promtest.Scrape(t, tel.MetricsURL)
	if got := promtest.HistogramCount(families["mcp_server_operation_duration_seconds"], map[string]string{
		"mcp_method_name": "tools/call", "gen_ai_tool_name": "deploy"}); got != 1 {
		t.Errorf("mcp_server_operation_duration_seconds_count{tools/call deploy} = %v, want 1", got)
	}
	if g := families["go_goroutines"]; len(g.GetMetric()) != 1 || g.GetMetric()[0].GetGauge().GetValue() < 1 {
		t.Errorf("go_goroutines = %v", g)
	}
	for _, name := range []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds"} {
		if families[name] == nil {
			t.Errorf("no %s in the scrape", name)
		}
	}
	if !strings.Contains(out.String(), "serving metrics at "+tel.MetricsURL) {
		t.Errorf("no line naming the metrics address: %q", out.String())
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(tel.MetricsURL); err == nil {
		resp.Body.Close()
		t.Errorf("/metrics still served after Shutdown: %s", resp.Status)
	}
}

// TestPrometheusFromEnvironment: OTEL_METRICS_EXPORTER=prometheus serves
// /metrics at OTEL_EXPORTER_PROMETHEUS_HOST and _PORT, and
// OTEL_SERVICE_NAME names the service in target_info.
func TestPrometheusFromEnvironment(t *testing.T) {
	setEnv(t, "OTEL_METRICS_EXPORTER", "prometheus", "OTEL_EXPORTER_PROMETHEUS_HOST", "127.0.0.1",
		"OTEL_EXPORTER_PROMETHEUS_PORT", "0", "OTEL_SERVICE_NAME", "billing-eu")
	tel := start(t, &otelsetup.Config{ServiceName: "billing", Output: io.Discard})
	if !strings.HasPrefix(tel.MetricsURL, "http://127.0.0.1:") || strings.HasSuffix(tel.MetricsURL, ":0/metrics") {
		t.Fatalf("MetricsURL = %q", tel.MetricsURL)
	}
	call(t, tel.Hooks)
	families := promtest.Scrape(t, tel.MetricsURL)
	info := families["target_info"]
	found := false
	for _, m := range info.GetMetric() {
		for _, l := range m.GetLabel() {
			found = found || l.GetName() == "service_name" && l.GetValue() == "billing-eu"
		}
	}
	if !found {
		t.Errorf("target_info has no service_name=billing-eu: %v", info)
	}
	if families["go_goroutines"] == nil {
		t.Error("no go_goroutines in the scrape")
	}
}

// receiver is an OTLP trace receiver, over HTTP (ServeHTTP) and gRPC
// (Export): it decodes each request and keeps its spans' names, its
// resources' service names and its authorization header.
type receiver struct {
	coltracepb.UnimplementedTraceServiceServer
	mu       sync.Mutex
	spans    []string
	services []string
	auth     []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	rc.record(&req, r.Header.Get("Authorization"))
	resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(resp)
}

func (rc *receiver) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	rc.record(req, strings.Join(md.Get("authorization"), ","))
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func (rc *receiver) record(req *coltracepb.ExportTraceServiceRequest, auth string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.auth = append(rc.auth, auth)
	for _, rs := range req.GetResourceSpans() {
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				rc.services = append(rc.services, a.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				rc.spans = append(rc.spans, s.GetName())
			}
		}
	}
}

func (rc *receiver) got() (spans, services, auth []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.spans...), append([]string(nil), rc.services...), append([]string(nil), rc.auth...)
}

// serveHTTP serves rc's OTLP/HTTP at path on 127.0.0.1 and returns its
// address.
func serveHTTP(t *testing.T, rc *receiver, path string) string {
	mux := http.NewServeMux()
	mux.Handle("POST "+path, rc)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// serveGRPC serves rc's OTLP/gRPC on 127.0.0.1 and returns its address.
func serveGRPC(t *testing.T, rc *receiver) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, rc)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// TestOTLPFlushedByShutdown: OTEL_TRACES_EXPORTER=otlp sends the spans
// over OTLP, HTTP or gRPC as OTEL_EXPORTER_OTLP_PROTOCOL says, to the
// endpoint the environment names, with its headers; with the batch
// interval longer than the test, no span has left before Shutdown, and
// every one has when Shutdown returns. The log names neither the
// endpoint nor the header.
func TestOTLPFlushedByShutdown(t *testing.T) {
	for _, c := range []struct {
		name  string
		serve func(*testing.T, *receiver) (env []string, addr string)
	}{
		{"http", func(t *testing.T, rc *receiver) ([]string, string) {
			addr := serveHTTP(t, rc, "/v1/traces")
			return []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://" + addr}, addr
		}},
		{"http traces endpoint", func(t *testing.T, rc *receiver) ([]string, string) {
			addr := serveHTTP(t, rc, "/collect/traces")
			return []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://" + addr + "/collect/traces",
				"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"}, addr
		}},
		{"grpc", func(t *testing.T, rc *receiver) ([]string, string) {
			addr := serveGRPC(t, rc)
			return []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://" + addr, "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}, addr
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := &receiver{}
			env, addr := c.serve(t, rc)
			setEnv(t, append(env, "OTEL_TRACES_EXPORTER", "otlp",
				"OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer s3cret-token",
				"OTEL_BSP_SCHEDULE_DELAY", "3600000", "OTEL_SERVICE_NAME", "deploy-test")...)
			var out hosttest.LogBuffer
			tel, err := otelsetup.Start(t.Context(), &otelsetup.Config{Output: &out, LogFormat: "text"})
			if err != nil {
				t.Fatal(err)
			}
			call(t, tel.Hooks)
			call(t, tel.Hooks)
			if spans, _, _ := rc.got(); len(spans) != 0 {
				t.Fatalf("spans exported before Shutdown: %v", spans)
			}
			if err := tel.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			spans, services, auth := rc.got()
			if len(spans) != 2 || spans[0] != "tools/call deploy" || spans[1] != "tools/call deploy" {
				t.Errorf("spans received = %q, want two tools/call deploy", spans)
			}
			if len(services) == 0 || services[0] != "deploy-test" {
				t.Errorf("service.name = %q, want deploy-test", services)
			}
			if len(auth) == 0 || auth[0] != "Bearer s3cret-token" {
				t.Errorf("Authorization = %q", auth)
			}
			logs := out.String()
			protocol := "http/protobuf"
			if c.name == "grpc" {
				protocol = "grpc"
			}
			if !strings.Contains(logs, "traces to otlp ("+protocol+")") {
				t.Errorf("no line naming the exporter: %q", logs)
			}
			if strings.Contains(logs, "s3cret") || strings.Contains(logs, addr) {
				t.Errorf("the log names the endpoint or its header: %q", logs)
			}
		})
	}
}

// TestConsole: OTEL_TRACES_EXPORTER=console writes the spans as JSON on
// Output, flushed by Shutdown.
func TestConsole(t *testing.T) {
	setEnv(t, "OTEL_TRACES_EXPORTER", "console", "OTEL_BSP_SCHEDULE_DELAY", "3600000")
	var out hosttest.LogBuffer
	tel := start(t, &otelsetup.Config{Output: &out})
	call(t, tel.Hooks)
	if strings.Contains(out.String(), "tools/call deploy") {
		t.Fatalf("span written before Shutdown: %q", out.String())
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var names []string
	for line := range strings.Lines(out.String()) {
		var span struct{ Name string }
		if json.Unmarshal([]byte(line), &span) == nil {
			names = append(names, span.Name)
		}
	}
	if len(names) != 1 || names[0] != "tools/call deploy" {
		t.Errorf("spans on the console = %q, want tools/call deploy: %q", names, out.String())
	}
}

// TestNothingConfigured: with no variable and no address, there are no
// hooks (the server reports nothing) and nothing to shut down; the same
// with OTEL_SDK_DISABLED=true, whatever else is asked.
func TestNothingConfigured(t *testing.T) {
	setEnv(t)
	tel := start(t, nil)
	if tel.Hooks != nil || tel.MetricsURL != "" || tel.Logger == nil || tel.TracerProvider == nil || tel.MeterProvider == nil {
		t.Errorf("nothing configured: %+v", tel)
	}
	setEnv(t, "OTEL_SDK_DISABLED", "true", "OTEL_TRACES_EXPORTER", "console")
	tel = start(t, &otelsetup.Config{MetricsAddr: "127.0.0.1:0", Output: io.Discard})
	if tel.Hooks != nil || tel.MetricsURL != "" {
		t.Errorf("OTEL_SDK_DISABLED=true: %+v", tel)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}

// TestRefused: a value Start does not know stops it, naming the value.
func TestRefused(t *testing.T) {
	for _, c := range []struct {
		env    []string
		config otelsetup.Config
		want   string
	}{
		{[]string{"OTEL_TRACES_EXPORTER", "zipkin"}, otelsetup.Config{}, `OTEL_TRACES_EXPORTER="zipkin"`},
		{[]string{"OTEL_TRACES_EXPORTER", "console,jaeger"}, otelsetup.Config{}, `OTEL_TRACES_EXPORTER="jaeger"`},
		{[]string{"OTEL_TRACES_EXPORTER", "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL", "thrift"}, otelsetup.Config{}, `OTEL_EXPORTER_OTLP_PROTOCOL="thrift"`},
		{[]string{"OTEL_TRACES_EXPORTER", "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"}, otelsetup.Config{}, `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="http/json"`},
		{[]string{"OTEL_METRICS_EXPORTER", "otlp"}, otelsetup.Config{}, `OTEL_METRICS_EXPORTER="otlp"`},
		{nil, otelsetup.Config{LogFormat: "xml"}, `"xml"`},
		{nil, otelsetup.Config{MetricsAddr: "127.0.0.1:-1"}, "metrics"},
	} {
		setEnv(t, c.env...)
		c.config.Output = io.Discard
		tel, err := otelsetup.Start(t.Context(), &c.config)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %+v: err = %v, want one naming %s", c.env, c.config, err, c.want)
		}
		if tel != nil {
			t.Errorf("%v: Telemetry on error", c.env)
		}
	}
	setEnv(t, "OTEL_TRACES_EXPORTER", "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	if tel := start(t, &otelsetup.Config{Output: io.Discard}); tel.Hooks == nil {
		t.Error("http/protobuf: no hooks")
	}
}

// TestJSONLog: LogFormat json logs JSON on Output, and that logger is
// slog's default from then on.
func TestJSONLog(t *testing.T) {
	setEnv(t)
	before := slog.Default()
	t.Cleanup(func() { slog.SetDefault(before) })
	var out hosttest.LogBuffer
	tel := start(t, &otelsetup.Config{MetricsAddr: "127.0.0.1:0", LogFormat: "json", Output: &out})
	line, _, _ := strings.Cut(out.String(), "\n")
	var rec struct{ Level, Msg string }
	if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Level != "INFO" || rec.Msg != "otelsetup: serving metrics at "+tel.MetricsURL {
		t.Errorf("first line %q: %+v %v", line, rec, err)
	}
	if slog.Default() != tel.Logger {
		t.Error("the JSON logger is not slog's default")
	}
}

// TestRegisterFlags: -metrics and -log set the Config.
func TestRegisterFlags(t *testing.T) {
	var c otelsetup.Config
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	c.RegisterFlags(fs)
	if err := fs.Parse([]string{"-metrics", "127.0.0.1:9464", "-log", "json"}); err != nil {
		t.Fatal(err)
	}
	if c.MetricsAddr != "127.0.0.1:9464" || c.LogFormat != "json" {
		t.Errorf("Config = %+v", c)
	}
}

// TestMalformedResourceAttributes: a malformed OTEL_RESOURCE_ATTRIBUTES
// leaves its attributes out with a warning that does not repeat them, and
// the rest is set up.
func TestMalformedResourceAttributes(t *testing.T) {
	setEnv(t, "OTEL_RESOURCE_ATTRIBUTES", "team=payments,secret-without-equals", "OTEL_SERVICE_NAME", "deploy-x")
	var out hosttest.LogBuffer
	tel := start(t, &otelsetup.Config{MetricsAddr: "127.0.0.1:0", Output: &out})
	if !strings.Contains(out.String(), "OTEL_RESOURCE_ATTRIBUTES is malformed") || strings.Contains(out.String(), "secret-without-equals") {
		t.Errorf("log: %q", out.String())
	}
	call(t, tel.Hooks)
	families := promtest.Scrape(t, tel.MetricsURL)
	if families["mcp_server_operation_duration_seconds"] == nil {
		t.Error("no elicitgen series")
	}
}

// TestShutdownBounded: with a collector that never answers, Shutdown
// gives up after Config.ShutdownTimeout, says so, and /metrics is no
// longer served.
func TestShutdownBounded(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hang)
	setEnv(t, "OTEL_TRACES_EXPORTER", "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	tel := start(t, &otelsetup.Config{MetricsAddr: "127.0.0.1:0", ShutdownTimeout: 200 * time.Millisecond, Output: io.Discard})
	call(t, tel.Hooks)
	began := time.Now()
	err := tel.Shutdown(context.Background())
	if took := time.Since(began); err == nil || took > 5*time.Second {
		t.Errorf("Shutdown with a collector that never answers: %v after %v", err, took)
	}
	if resp, err := http.Get(tel.MetricsURL); err == nil {
		resp.Body.Close()
		t.Errorf("/metrics still served after Shutdown: %s", resp.Status)
	}
}

// TestMetricsBeyondLoopbackWarns: metrics served on every interface (":0",
// which only listens: no request is sent to it) are logged at Warn,
// naming the address; on 127.0.0.1 or localhost, nothing is.
func TestMetricsBeyondLoopbackWarns(t *testing.T) {
	for _, c := range []struct {
		addr string
		warn bool
	}{{":0", true}, {"127.0.0.1:0", false}, {"localhost:0", false}} {
		t.Run(c.addr, func(t *testing.T) {
			setEnv(t)
			var out hosttest.LogBuffer
			tel := start(t, &otelsetup.Config{MetricsAddr: c.addr, Output: &out})
			if tel.MetricsURL == "" {
				t.Fatal("no metrics served")
			}
			var warns []string
			for line := range strings.SplitSeq(out.String(), "\n") {
				if strings.Contains(line, "level=WARN") {
					warns = append(warns, line)
				}
			}
			switch {
			case !c.warn && len(warns) > 0:
				t.Errorf("a warning for %s: %q", c.addr, warns)
			case c.warn && (len(warns) != 1 || !strings.Contains(warns[0], "addr="+c.addr) || !strings.Contains(warns[0], "beyond loopback")):
				t.Errorf("warnings %q, want one naming addr=%s", warns, c.addr)
			}
		})
	}
}
