// Package oteltest records what runtime/otelelicit emits with the
// OpenTelemetry SDK's in-memory recorders, for tests: every span and every
// metric point, and their text for the privacy checks. Scrape reads what a
// server serves at /metrics (runtime/otelelicit/otelsetup) as Prometheus
// metric families.
package oteltest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/elicitgen/elicitgen/runtime/otelelicit"
)

// Recorder holds the SDK providers of one test and what they recorded.
type Recorder struct {
	Hooks  *otelelicit.Hooks
	Spans  *tracetest.SpanRecorder
	Reader *sdkmetric.ManualReader
}

// New returns hooks over a tracer and a meter provider recording in memory.
func New(t testing.TB) *Recorder {
	t.Helper()
	r := &Recorder{Spans: tracetest.NewSpanRecorder(), Reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.Spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.Reader))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	h, err := otelelicit.New(&otelelicit.Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	r.Hooks = h
	return r
}

// Ended are the spans ended so far.
func (r *Recorder) Ended() []sdktrace.ReadOnlySpan { return r.Spans.Ended() }

// Metrics collects the metrics.
func (r *Recorder) Metrics(t testing.TB) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// Point is one metric data point: its metric, attributes and value (a
// sum's value, a histogram's count).
type Point struct {
	Metric string
	Attrs  map[string]string
	Value  float64
	Sum    float64 // a histogram's sum
}

// Points flattens the metrics into points.
func (r *Recorder) Points(t testing.TB) []Point {
	var pts []Point
	for _, sm := range r.Metrics(t).ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					pts = append(pts, Point{Metric: m.Name, Attrs: attrs(p.Attributes), Value: float64(p.Value)})
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					pts = append(pts, Point{Metric: m.Name, Attrs: attrs(p.Attributes), Value: float64(p.Count), Sum: p.Sum})
				}
			default:
				t.Fatalf("metric %s of an unexpected type %T", m.Name, m.Data)
			}
		}
	}
	return pts
}

// Count sums the values of metric's points whose attributes include want.
func Count(pts []Point, metric string, want map[string]string) float64 {
	n := 0.0
	for _, p := range pts {
		if p.Metric == metric && includes(p.Attrs, want) {
			n += p.Value
		}
	}
	return n
}

func includes(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

func attrs(s attribute.Set) map[string]string {
	m := make(map[string]string, s.Len())
	for _, kv := range s.ToSlice() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// SpanAttrs are a span's attributes as text.
func SpanAttrs(s sdktrace.ReadOnlySpan) map[string]string {
	return attrs(attribute.NewSet(s.Attributes()...))
}

// Text is everything recorded, spans and metrics, as text: names,
// attributes, events, statuses, links and points.
func (r *Recorder) Text(t testing.TB) string {
	var b strings.Builder
	for _, s := range r.Ended() {
		fmt.Fprintf(&b, "span %s %v %s %s\n", s.Name(), SpanAttrs(s), s.Status().Code, s.Status().Description)
		for _, e := range s.Events() {
			fmt.Fprintf(&b, "  event %s %v\n", e.Name, attrs(attribute.NewSet(e.Attributes...)))
		}
		for _, l := range s.Links() {
			fmt.Fprintf(&b, "  link %v\n", attrs(attribute.NewSet(l.Attributes...)))
		}
	}
	for _, p := range r.Points(t) {
		fmt.Fprintf(&b, "point %s %v %v %v\n", p.Metric, p.Attrs, p.Value, p.Sum)
	}
	return b.String()
}
