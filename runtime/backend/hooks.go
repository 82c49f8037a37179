package backend

import (
	"context"
	"strconv"
	"time"
)

// Hooks receive what the runtime does (ToolOptions.Hooks): the requests it
// serves and what happens in them. They carry names only (methods, tools,
// prompts, resources, step keys, outcomes, reasons from a short fixed
// list) and a digest of a flow's identity: never an answer, an argument, a
// link, a token, a user or a sealed state. runtime/otelelicit adapts them
// to OpenTelemetry. Nil hooks cost a nil check per event.
//
// Implementations must be safe for concurrent use and return quickly: they
// run on the request's goroutine.
type Hooks interface {
	// Begin is called as a request begins, with r's identifying fields
	// set; the context it returns is the request's from then on (a
	// tracer's span lives in it).
	Begin(ctx context.Context, r *Served) context.Context
	// End is called with the same r when the request ends, its Duration,
	// ErrorType and Flow set.
	End(ctx context.Context, r *Served)
	// Event reports one thing that happened, within a request (ctx is the
	// one Begin returned) or within a task's work.
	Event(ctx context.Context, e *Event)
}

// TaskTracer is an optional interface of Hooks, for tracers: a task's
// record keeps the trace context of the call that created it (TaskTrace,
// its W3C traceparent and tracestate), and each tasks/* request about the
// task, on any instance, is linked to that call (LinkTask, with the
// request's context). runtime/otelelicit implements it.
type TaskTracer interface {
	TaskTrace(ctx context.Context) map[string]string
	LinkTask(ctx context.Context, trace map[string]string)
}

// Served is one request the machine served.
type Served struct {
	// Method is the JSON-RPC method: tools/call, prompts/get,
	// resources/read.
	Method string
	// Target names what was called: the tool, the prompt, or the
	// resource's URI as registered (a template's, never the URI read).
	Target string
	// ProtocolVersion is the request's protocol revision.
	ProtocolVersion string
	// Meta is the request's params._meta, for trace context
	// (traceparent, tracestate): read those keys only, it may hold
	// anything the client sent.
	Meta map[string]any
	// Duration is how long the request took (set for End).
	Duration time.Duration
	// ErrorType is empty when the request succeeded; otherwise the
	// JSON-RPC error code (for example "-32602"), "tool_error" for a
	// result with isError, or "_OTHER".
	ErrorType string
	// Flow is the digest of the flow's identity (FlowDigest), when the
	// request belongs to a flow that asked something (set for End).
	Flow string
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventAsked: a round's questions went out (Steps, Round, Flow).
	EventAsked EventKind = iota + 1
	// EventAnswered: an answer to Steps[0] arrived (Outcome, Wait).
	EventAnswered
	// EventReasked: Steps[0] is asked again (Reason: "invalid",
	// "missing" or "unfinished").
	EventReasked
	// EventFallback: Steps[0] could not be shown; Reason names the
	// fallback taken ("defaults", "arguments", "handler", "preview",
	// "error").
	EventFallback
	// EventOnce: a once-claim (a Once flow's completion, a preview
	// token): Outcome "won" or "refused".
	EventOnce
	// EventStoreError: a store failed (Store: "replay", "grants",
	// "tasks"; Operation: the method).
	EventStoreError
	// EventTaskStatus: a task changed status (Outcome: the new status;
	// Reason: the old one, empty for a new task).
	EventTaskStatus
	// EventRefused: what a client echoed back was refused (Outcome:
	// RefusedState, RefusedToken; Reason: one of Refusals). The client is
	// told only that it is invalid or expired.
	EventRefused
	// EventURLStep: a URL step's link went out, or its sign-in was
	// looked up (Steps[0]; Outcome: URLSent, URLFinished, URLUnfinished,
	// URLDenied).
	EventURLStep
	// EventGaveUp: Steps[0] was answered ToolOptions.MaxAttempts times
	// without a valid answer, and is not asked again: the call ends, or
	// the task's Ask returns a GaveUpError.
	EventGaveUp
	// EventTakeover: an instance took over a task whose lease lapsed
	// (Outcome: "restarted", or "failed" when it could not restart it).
	EventTakeover
)

var eventKindNames = [...]string{"", "asked", "answered", "reasked", "fallback", "once", "store_error", "task_status", "refused",
	"url_step", "gave_up", "takeover"}

// States of a URL step (EventURLStep's Outcome): its link went out (asked,
// or handed out as a fallback), its sign-in finished, it was accepted
// before its sign-in finished, or the person refused at the third party.
const (
	URLSent       = "sent"
	URLFinished   = "finished"
	URLUnfinished = "unfinished"
	URLDenied     = "denied"
)

// What a refusal refused (EventRefused's Outcome).
const (
	RefusedState = "requestState"
	RefusedToken = "confirmation token"
)

// Refusals are the reasons of EventRefused: a state or token malformed or
// altered, sealed by a key the ring lacks, expired, sealed for another
// call (tool or arguments), another user, another audience, or a
// single-use one already used.
var Refusals = []string{"tampered", "unknown_key", "expired", "other_call", "other_user", "other_audience", "already_used"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Outcomes of an answer (EventAnswered). A URL step accepted before its
// sign-in finished is OutcomeUnfinished, not an accept of the step.
const (
	OutcomeAccept     = "accept"
	OutcomeDecline    = "decline"
	OutcomeCancel     = "cancel"
	OutcomeInvalid    = "invalid"
	OutcomeUnfinished = "unfinished"
)

// Event is one thing the machine reports through Hooks.Event.
type Event struct {
	Kind EventKind
	// Method and Target name the request kind and what it called, as in
	// Served (a task's events name its tool).
	Method, Target string
	// Steps are the keys of the steps concerned (EventAsked: the round's).
	Steps []string
	// Round is the flow's round: how many input_required results (or
	// questions, on 2025-11-25 and in a task) it has had.
	Round int
	// Flow is the digest of the flow's identity (FlowDigest).
	Flow string
	// Outcome, Reason: see each kind.
	Outcome, Reason string
	// Store and Operation name a store and its method (EventStoreError).
	Store, Operation string
	// ProtocolVersion and Modes say what kind of client could not be
	// shown a step (EventFallback): its protocol revision, and the
	// elicitation modes it declared ("form and url", "form only", "url
	// only", "no elicitation").
	ProtocolVersion, Modes string
	// Wait is the person's time (EventAnswered): from the question's
	// issue (the sealed state's, or the server-to-client request's on
	// 2025-11-25, or the task's input_required) to the answer's arrival;
	// negative when unknown.
	Wait time.Duration
}
