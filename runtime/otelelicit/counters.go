package otelelicit

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// A counter for every outcome (docs/guide/observability.md, Metrics): each event
// kind but the task statuses' gauge and the store errors counts in a
// series of its own. Every attribute comes from a closed set: a tool,
// prompt or resource and a step are names the server declared (the
// runtime reports nothing of a request that names anything else), the
// outcomes and reasons are the runtime's words, and a protocol revision
// outside those the runtime speaks is "other".

// eventKinds bounds the event kinds a Hooks counts.
const eventKinds = int(backend.EventTakeover) + 1

// counterSpec names an event kind's counter.
type counterSpec struct {
	name, unit, description string
}

var counterSpecs = map[backend.EventKind]counterSpec{
	backend.EventAsked:      {"elicitgen.elicitation.requests", "{request}", "Questions asked, by step: each step of a round once."},
	backend.EventReasked:    {"elicitgen.elicitation.reasks", "{request}", "Questions asked again, by step and reason: invalid, missing, unfinished."},
	backend.EventGaveUp:     {"elicitgen.elicitation.gave_up", "{step}", "Steps given up after ToolOptions.MaxAttempts invalid answers."},
	backend.EventFallback:   {"elicitgen.fallbacks", "{fallback}", "Steps a client could not be shown, by the fallback taken and the kind of client."},
	backend.EventRefused:    {"elicitgen.refusals", "{refusal}", "States and confirmation tokens refused, by reason."},
	backend.EventOnce:       {"elicitgen.once.claims", "{claim}", "Single-use claims (a once flow's completion, a confirmation token), won or refused."},
	backend.EventURLStep:    {"elicitgen.url_steps", "{event}", "URL steps: links sent, sign-ins finished, accepted before finishing, denied."},
	backend.EventTaskStatus: {"elicitgen.tasks.status_changes", "{change}", "Tasks' changes of status, by the status reached."},
	backend.EventTakeover:   {"elicitgen.tasks.takeovers", "{task}", "Tasks whose lease lapsed, taken over by this instance: restarted or failed."},
}

// counters creates the counters of counterSpecs.
func (h *Hooks) counters(m metric.Meter) error {
	for kind, spec := range counterSpecs {
		c, err := m.Int64Counter(spec.name, metric.WithUnit(spec.unit), metric.WithDescription(spec.description))
		if err != nil {
			return err
		}
		h.counts[kind] = c
	}
	return nil
}

// count adds e to its kind's counter: a round's asks, one per step.
func (h *Hooks) count(ctx context.Context, e *backend.Event) {
	if int(e.Kind) >= eventKinds || h.counts[e.Kind] == nil {
		return
	}
	c := h.counts[e.Kind]
	if e.Kind == backend.EventAsked {
		for _, step := range e.Steps {
			c.Add(ctx, 1, metric.WithAttributes(targetAttr(e.Method, e.Target), attribute.String(keyStep, step)))
		}
		return
	}
	c.Add(ctx, 1, metric.WithAttributes(countAttrs(e)...))
}

// countAttrs are the attributes of e's count.
func countAttrs(e *backend.Event) []attribute.KeyValue {
	attrs := []attribute.KeyValue{targetAttr(e.Method, e.Target)}
	if len(e.Steps) > 0 {
		attrs = append(attrs, attribute.String(keyStep, e.Steps[0]))
	}
	switch e.Kind {
	case backend.EventReasked:
		attrs = append(attrs, attribute.String(keyReason, e.Reason))
	case backend.EventFallback:
		attrs = append(attrs, attribute.String(keyReason, e.Reason), attribute.String(keyProtocol, protocolVersion(e.ProtocolVersion)),
			attribute.String(keyModes, e.Modes))
	case backend.EventRefused:
		attrs = append(attrs, attribute.String(keyRefused, e.Outcome), attribute.String(keyReason, e.Reason))
	case backend.EventTaskStatus:
		attrs = append(attrs, attribute.String(keyStatus, e.Outcome))
	case backend.EventOnce, backend.EventURLStep, backend.EventTakeover:
		attrs = append(attrs, attribute.String(keyOutcome, e.Outcome))
	}
	return attrs
}

// Attribute keys of the counters only.
const (
	keyModes   = "elicitgen.client.modes"
	keyRefused = "elicitgen.refused"
)

// protocolVersion is v if the runtime speaks it, else "other": a request
// names its own revision, and no attribute takes a client's word.
func protocolVersion(v string) string {
	switch v {
	case "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28":
		return v
	}
	return "other"
}
