// Package otelelicit reports what elicitgen's runtime does as
// OpenTelemetry traces and metrics, following the OpenTelemetry semantic
// conventions for MCP, plus what only elicitation has: the person's side
// of the conversation (docs/guide/observability.md).
//
//	hooks, err := otelelicit.New(nil) // the global providers
//	opts := &elicitrt.ToolOptions{Hooks: hooks}
//
// It depends on the OpenTelemetry API only: with no SDK configured every
// instrument is a no-op. A server that does not import it links no
// OpenTelemetry at all. Nothing it emits holds an answer, an argument, a
// link, a token, a user or a sealed state: names of methods, tools,
// prompts, resources, steps and outcomes, and a digest of each flow's
// identity.
package otelelicit

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// ScopeName is the instrumentation scope of what this package emits.
const ScopeName = "github.com/elicitgen/elicitgen/runtime/otelelicit"

// Options choose the providers; nil fields (and nil Options) mean the
// global ones (otel.GetTracerProvider, otel.GetMeterProvider), and W3C
// trace context read from a request's params._meta.
type Options struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Propagator reads the client's trace context from params._meta
	// (only its traceparent and tracestate keys are read); nil means
	// propagation.TraceContext.
	Propagator propagation.TextMapPropagator
}

// Hooks adapt the runtime's hooks (ToolOptions.Hooks) to OpenTelemetry.
type Hooks struct {
	tracer    trace.Tracer
	prop      propagation.TextMapPropagator
	opDur     metric.Float64Histogram
	responses metric.Int64Counter
	answerDur metric.Float64Histogram
	tasks     metric.Int64UpDownCounter
	storeErrs metric.Int64Counter
	counts    [eventKinds]metric.Int64Counter // by event kind (counters.go)
}

var (
	_ backend.Hooks      = (*Hooks)(nil)
	_ backend.TaskTracer = (*Hooks)(nil)
)

// New returns the hooks for opts (nil: the global providers).
func New(opts *Options) (*Hooks, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.Propagator == nil {
		o.Propagator = propagation.TraceContext{}
	}
	h := &Hooks{tracer: o.TracerProvider.Tracer(ScopeName), prop: o.Propagator}
	return h, h.instruments(o.MeterProvider.Meter(ScopeName))
}

// instruments creates the metric instruments.
func (h *Hooks) instruments(m metric.Meter) (err error) {
	first := func(e error) {
		if err == nil {
			err = e
		}
	}
	var e error
	h.opDur, e = m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("The duration of the MCP requests the server served."),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300))
	first(e)
	h.responses, e = m.Int64Counter("elicitgen.elicitation.responses", metric.WithUnit("{response}"),
		metric.WithDescription("Answers to elicitation questions, by step and outcome."))
	first(e)
	h.answerDur, e = m.Float64Histogram("elicitgen.elicitation.answer.duration", metric.WithUnit("s"),
		metric.WithDescription("The person's time: from a question's issue to its answer's arrival."),
		metric.WithExplicitBucketBoundaries(1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600))
	first(e)
	h.tasks, e = m.Int64UpDownCounter("elicitgen.tasks.active", metric.WithUnit("{task}"),
		metric.WithDescription("Tasks working or waiting for input, by status."))
	first(e)
	h.storeErrs, e = m.Int64Counter("elicitgen.store.errors", metric.WithUnit("{error}"),
		metric.WithDescription("Failures of the replay guard, grant and task stores, by store and operation."))
	first(e)
	first(h.counters(m))
	return err
}

// Attribute keys beyond the MCP conventions' (docs/guide/observability.md).
const (
	keyMethod   = "mcp.method.name"
	keyProtocol = "mcp.protocol.version"
	keyTool     = "gen_ai.tool.name"
	keyPrompt   = "gen_ai.prompt.name"
	keyResource = "mcp.resource.uri"
	keyError    = "error.type"
	keyFlow     = "elicitgen.flow.id"
	keyRound    = "elicitgen.round"
	keySteps    = "elicitgen.steps"
	keyStep     = "elicitgen.step"
	keyOutcome  = "elicitgen.outcome"
	keyReason   = "elicitgen.reason"
	keyStore    = "elicitgen.store"
	keyOp       = "elicitgen.store.operation"
	keyStatus   = "elicitgen.task.status"
)

// targetAttr is the attribute naming what a request of method called.
func targetAttr(method, target string) attribute.KeyValue {
	switch method {
	case "prompts/get":
		return attribute.String(keyPrompt, target)
	case "resources/read":
		return attribute.String(keyResource, target)
	}
	return attribute.String(keyTool, target)
}

// metaCarrier reads a client's trace context from params._meta: the
// traceparent and tracestate keys, nothing else.
type metaCarrier map[string]any

func (c metaCarrier) Get(key string) string {
	if key != "traceparent" && key != "tracestate" {
		return ""
	}
	s, _ := c[key].(string)
	return s
}
func (metaCarrier) Set(string, string) {}
func (metaCarrier) Keys() []string     { return []string{"traceparent", "tracestate"} }

// Begin starts the request's span, `{mcp.method.name} {target}`, as a
// child of the client's trace when params._meta carries one.
func (h *Hooks) Begin(ctx context.Context, r *backend.Served) context.Context {
	if r.Meta != nil {
		ctx = h.prop.Extract(ctx, metaCarrier(r.Meta))
	}
	name := r.Method
	if r.Target != "" {
		name += " " + r.Target
	}
	ctx, _ = h.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(requestAttrs(r)...))
	if r.Method == "tools/call" {
		// The call may become a task, whose work outlives it.
		ctx = context.WithValue(ctx, taskSlotKey{}, &taskSlot{})
	}
	return ctx
}

// requestAttrs are the attributes of a request's span and duration.
func requestAttrs(r *backend.Served) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, attribute.String(keyMethod, r.Method))
	if r.Target != "" {
		attrs = append(attrs, targetAttr(r.Method, r.Target))
	}
	if r.ProtocolVersion != "" {
		attrs = append(attrs, attribute.String(keyProtocol, protocolVersion(r.ProtocolVersion)))
	}
	return attrs
}

// End ends the request's span and records its duration.
func (h *Hooks) End(ctx context.Context, r *backend.Served) {
	attrs := requestAttrs(r)
	if r.ErrorType != "" {
		attrs = append(attrs, attribute.String(keyError, r.ErrorType))
	}
	h.opDur.Record(ctx, r.Duration.Seconds(), metric.WithAttributes(attrs...))
	span := trace.SpanFromContext(ctx)
	if r.Flow != "" {
		span.SetAttributes(attribute.String(keyFlow, r.Flow))
	}
	if r.ErrorType != "" {
		span.SetAttributes(attribute.String(keyError, r.ErrorType))
		span.SetStatus(codes.Error, r.ErrorType)
	}
	span.End()
}

// Event records e on the request's span, and in the metrics it counts in.
// A task's work (its status changes, its questions and answers) is on a
// span of its own, `tasks/run {tool}`: the root of a trace of its own,
// linked to the span of the call that created it, ended when the task
// ends.
func (h *Hooks) Event(ctx context.Context, e *backend.Event) {
	span := trace.SpanFromContext(ctx)
	slot, _ := ctx.Value(taskSlotKey{}).(*taskSlot)
	if slot != nil {
		if e.Kind == backend.EventTaskStatus && e.Reason == "" {
			slot.start(ctx, h.tracer, e.Target)
		}
		if s := slot.get(); s != nil {
			span = s
		}
	}
	attrs := eventAttrs(e)
	switch e.Kind {
	case backend.EventAsked:
		span.SetAttributes(attribute.String(keyFlow, e.Flow), attribute.Int(keyRound, e.Round),
			attribute.StringSlice(keySteps, e.Steps))
	case backend.EventAnswered:
		set := metric.WithAttributes(targetAttr(e.Method, e.Target), attribute.String(keyStep, first(e.Steps)),
			attribute.String(keyOutcome, e.Outcome))
		h.responses.Add(ctx, 1, set)
		if e.Wait >= 0 {
			h.answerDur.Record(ctx, e.Wait.Seconds(), set)
		}
	case backend.EventStoreError:
		h.storeErrs.Add(ctx, 1, metric.WithAttributes(attribute.String(keyStore, e.Store), attribute.String(keyOp, e.Operation)))
	case backend.EventTaskStatus:
		h.taskStatus(ctx, e.Reason, e.Outcome)
	}
	h.count(ctx, e)
	if span.IsRecording() {
		span.AddEvent("elicitgen."+e.Kind.String(), trace.WithAttributes(attrs...), trace.WithTimestamp(time.Now()))
	}
	if slot != nil && e.Kind == backend.EventTaskStatus && backend.TaskStatus(e.Outcome).Terminal() {
		slot.end(e.Outcome)
	}
}

// TaskTrace is the trace context of ctx's span (the tools/call creating a
// task), which the task's record keeps: traceparent and tracestate only.
func (h *Hooks) TaskTrace(ctx context.Context) map[string]string {
	carrier := propagation.MapCarrier{}
	h.prop.Inject(ctx, carrier)
	kept := map[string]string{}
	for _, k := range (metaCarrier{}).Keys() { // never baggage: it may name users
		if v := carrier.Get(k); v != "" {
			kept[k] = v
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// LinkTask links the span of a tasks/* request (in ctx) to the tools/call
// that created its task, whose trace context the task's record kept.
func (h *Hooks) LinkTask(ctx context.Context, traceContext map[string]string) {
	sc := trace.SpanContextFromContext(h.prop.Extract(context.Background(), propagation.MapCarrier(traceContext)))
	if sc.IsValid() {
		trace.SpanFromContext(ctx).AddLink(trace.Link{SpanContext: sc})
	}
}

// taskSlotKey is the context key of a tools/call's taskSlot.
type taskSlotKey struct{}

// taskSlot holds the span of the task a tools/call created, if it did:
// the task's work reports its events with (a context of) the call's.
type taskSlot struct {
	mu   sync.Mutex
	span trace.Span
}

// start starts the task's span, linked to the creating call's (in ctx).
func (s *taskSlot) start(ctx context.Context, tracer trace.Tracer, tool string) {
	_, span := tracer.Start(ctx, "tasks/run "+tool, trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithLinks(trace.Link{SpanContext: trace.SpanContextFromContext(ctx)}),
		trace.WithAttributes(attribute.String(keyTool, tool)))
	s.mu.Lock()
	s.span = span
	s.mu.Unlock()
}

// get is the task's span, nil before the call became a task or once the
// task ended.
func (s *taskSlot) get() trace.Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.span
}

// end ends the task's span, with its last status; an error status for a
// failed task.
func (s *taskSlot) end(status string) {
	s.mu.Lock()
	span := s.span
	s.span = nil
	s.mu.Unlock()
	if span == nil {
		return
	}
	span.SetAttributes(attribute.String(keyStatus, status))
	if status == "failed" {
		span.SetStatus(codes.Error, status)
	}
	span.End()
}

// eventAttrs are the attributes of e's span event.
func eventAttrs(e *backend.Event) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.Int(keyRound, e.Round)}
	if e.Flow != "" {
		attrs = append(attrs, attribute.String(keyFlow, e.Flow))
	}
	if len(e.Steps) > 0 {
		attrs = append(attrs, attribute.StringSlice(keySteps, e.Steps))
	}
	for _, kv := range [...]struct{ k, v string }{{keyOutcome, e.Outcome}, {keyReason, e.Reason}, {keyStore, e.Store}, {keyOp, e.Operation}} {
		if kv.v != "" {
			attrs = append(attrs, attribute.String(kv.k, kv.v))
		}
	}
	if e.Kind == backend.EventAnswered && e.Wait >= 0 {
		attrs = append(attrs, attribute.Float64("elicitgen.wait", e.Wait.Seconds()))
	}
	return attrs
}

// taskStatus moves a task between the active statuses it counts in.
func (h *Hooks) taskStatus(ctx context.Context, from, to string) {
	if active(from) {
		h.tasks.Add(ctx, -1, metric.WithAttributes(attribute.String(keyStatus, from)))
	}
	if active(to) {
		h.tasks.Add(ctx, 1, metric.WithAttributes(attribute.String(keyStatus, to)))
	}
}

// active reports whether a task of status is working or waiting.
func active(status string) bool { return status == "working" || status == "input_required" }

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
