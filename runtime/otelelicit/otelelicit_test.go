package otelelicit_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/elicitgen/elicitgen/runtime/backend"
	"github.com/elicitgen/elicitgen/runtime/otelelicit"
)

// TestNeverBaggage: with a server whose propagator also carries W3C
// baggage, a request's params._meta is read for its traceparent and
// tracestate only (the span continues the client's trace; the client's
// baggage, which may name a user, is not taken in), and the trace context
// a task's record keeps is traceparent and tracestate, never the baggage
// of the creating call's context (docs/guide/observability.md).
func TestNeverBaggage(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	h, err := otelelicit.New(&otelelicit.Options{TracerProvider: tp,
		Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})})
	if err != nil {
		t.Fatal(err)
	}
	const client = "4bf92f3577b34da6a3ce929d0e0e4736"
	ctx := h.Begin(context.Background(), &backend.Served{Method: "tools/call", Target: "report", Meta: map[string]any{
		"traceparent": "00-" + client + "-00f067aa0ba902b7-01",
		"tracestate":  "vendor=v1",
		"baggage":     "user=alice-k3v9",
	}})
	if got := trace.SpanContextFromContext(ctx).TraceID().String(); got != client {
		t.Errorf("the request's span is in trace %s, want the client's %s", got, client)
	}
	if b := baggage.FromContext(ctx); b.Len() != 0 {
		t.Errorf("the client's baggage was taken in: %q", b.String())
	}
	member, _ := baggage.NewMember("user", "bob-w8q2")
	bag, _ := baggage.New(member)
	kept := h.TaskTrace(baggage.ContextWithBaggage(ctx, bag))
	if keys := slices.Sorted(maps.Keys(kept)); !slices.Equal(keys, []string{"traceparent", "tracestate"}) {
		t.Errorf("a task's record keeps %v, want traceparent and tracestate", keys)
	}
	if !strings.Contains(kept["traceparent"], client) || kept["tracestate"] != "vendor=v1" {
		t.Errorf("kept trace context %v, want the request's", kept)
	}
	for k, v := range kept {
		if strings.Contains(v, "bob-w8q2") || strings.Contains(v, "alice-k3v9") {
			t.Errorf("kept %s=%q names a user", k, v)
		}
	}
	h.End(ctx, &backend.Served{Method: "tools/call", Target: "report"})
}
