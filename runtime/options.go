package runtime

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// ToolOptions configure the generated tools, prompts and resources of a
// server: keys, stores, clock, limits, logger, hooks (docs/reference/runtime.md).
// The zero value is usable; instances of one server share the keys, the
// stores and the Audience.
type ToolOptions struct {
	// Keys seal requestState. Nil: the process-wide keyring from
	// ELICITGEN_STATE_KEYS (LoadKeyring).
	Keys *Keyring
	// TTL is how long a sealed state stays valid; 0 means DefaultStateTTL.
	TTL time.Duration
	// MaxAttempts bounds how often one step is asked again after invalid
	// content; 0 means 3.
	MaxAttempts int
	// MaxRounds bounds the input_required results of one call, its retries
	// included, whatever the reason of each (steps, invalid or missing
	// answers, a URL step not finished yet); the call that would return
	// one more ends in a tool error instead. 0 means DefaultMaxRounds.
	MaxRounds int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Overloaded, when it returns true, makes the machine shed load: an
	// input_required result with no input requests and the sealed state,
	// which the client retries as is.
	Overloaded func(ctx context.Context) bool
	// Principal names the user a request acts for; nil means the user id of
	// the request's verified bearer token, if any. For a prompts/get or
	// resources/read it gets a CallToolRequest holding that request's
	// Session and Extra (no Params).
	Principal func(req *mcp.CallToolRequest) string
	// Audience names this server in every state it seals (for example
	// its public URL): a state sealed under another audience does not
	// open. Set it when servers that share a key ring must not take each
	// other's states (instances of one server share one audience). Empty:
	// no audience.
	Audience string
	// Logger receives the reasons states are rejected (never sent to the
	// client); nil means slog.Default().
	Logger *slog.Logger
	// Grants tells URL steps whether their flow finished; nil means
	// DefaultGrants(). Share it with the connect handlers.
	Grants backend.GrantStore
	// Replay enforces single use for flows that answered a Once step; nil
	// means DefaultReplayGuard(). Instances serving one tool share one.
	Replay backend.ReplayGuard
	// LegacyURLWait is how long a call of a 2025-11-25 client, which has
	// no retry to come back with, waits after the user accepts a URL step
	// for its flow to finish; then the machine sends
	// notifications/elicitation/complete and goes on to the next step.
	// When the wait runs out the call ends with LegacyURLUnfinished, and a
	// later call finds the grant. 0 means DefaultLegacyURLWait; negative,
	// no wait.
	LegacyURLWait time.Duration
	// LegacyAnswerWait is how long a call of a 2025-11-25 client waits for
	// the answer to one question (a server-to-client elicitation/create);
	// then the call ends with an error. The question also ends when its
	// session is deleted, or left idle for HTTPOptions.SessionTimeout (see
	// HTTPHandler). 0 or negative means DefaultLegacyAnswerWait.
	LegacyAnswerWait time.Duration
	// PreviewTTL is how long a confirmation token of a FallbackPreview
	// step stays valid; 0 or negative means DefaultPreviewTTL.
	PreviewTTL time.Duration
	// Tasks keeps the tasks of task tools (//elicit:task); nil means
	// DefaultTaskStore(), in this process's memory. Instances serving one
	// server share one (runtime/redisstore.Tasks), and every task tool of
	// a server uses the same.
	Tasks backend.TaskStore
	// TaskTTL is how long a task lives (its ttlMs): its work is cancelled
	// and the task forgotten after it. 0 or negative means DefaultTaskTTL.
	TaskTTL time.Duration
	// TaskPollInterval is the pollIntervalMs a task suggests to clients; 0
	// or negative means DefaultTaskPollInterval.
	TaskPollInterval time.Duration
	// TaskLease is how long a running task stays claimed by the instance
	// running it without a renewal: that instance renews it every quarter
	// of it, and once it lapses (the instance died) any instance serving
	// the task's tasks/get fails the task, saying the server stopped while
	// running it. 0 or negative means DefaultTaskLease.
	TaskLease time.Duration
	// TaskRestarts bounds how often a restartable task (//elicit:task ...
	// restartable) is run again after the instance running it stopped:
	// past it, or when negative, the task fails like any other. 0 means
	// DefaultTaskRestarts. The instance taking a task over applies its own.
	TaskRestarts int
	// TaskLimits bounds the tasks running in this process, in all and per
	// principal, and the status streams of each principal; nil means
	// DefaultTaskLimits(), shared by the whole process. Every task tool of
	// a server uses the same.
	TaskLimits *TaskLimits
	// Hooks receive what the machine does: the requests it serves, the
	// questions, answers and their outcomes, re-asks, fallbacks,
	// single-use claims, store errors and task status changes (names
	// only: docs/guide/observability.md). Nil reports nothing;
	// runtime/otelelicit adapts them to OpenTelemetry.
	Hooks backend.Hooks
}

// DefaultMaxRounds is the most input_required results one call returns
// by default: MRTR clients stop after ten attempts, the first call
// included (the Go SDK's and the TypeScript SDK's clients), so a tenth
// round of questions would never be answered.
const DefaultMaxRounds = 9

// DefaultLegacyAnswerWait is how long a 2025-11-25 call waits for the
// answer to one question by default: as long as a state lives.
const DefaultLegacyAnswerWait = DefaultStateTTL

// DefaultLegacyURLWait is how long a 2025-11-25 call waits for the flow of
// an accepted URL step to finish (see ToolOptions.LegacyURLWait).
const DefaultLegacyURLWait = 10 * time.Minute

// DefaultPreviewTTL is how long a confirmation token stays valid by
// default: a short while, the time for the host to ask its user.
const DefaultPreviewTTL = 5 * time.Minute

// DefaultTaskTTL is how long a task lives by default (ToolOptions.TaskTTL):
// its work is cancelled and the task forgotten after it.
const DefaultTaskTTL = time.Hour

// DefaultTaskPollInterval is the pollIntervalMs a task suggests by default
// (ToolOptions.TaskPollInterval).
const DefaultTaskPollInterval = time.Second

// DefaultTaskLease is ToolOptions.TaskLease by default: a dead instance's
// tasks fail within 20 s (plus the client's poll interval), and a live one
// rides out a store outage of up to 15 s without losing its tasks.
const DefaultTaskLease = 20 * time.Second

// DefaultTaskRestarts is ToolOptions.TaskRestarts by default: the runs of
// one task after its first are bounded, so a task whose work kills its
// instance does not take down the next ones too.
const DefaultTaskRestarts = 3

// DefaultStateTTL is how long a sealed state stays valid by default
// (ToolOptions.TTL).
const DefaultStateTTL = 10 * time.Minute

// PreviewTokenArgument is the optional tool argument that carries a
// confirmation token (fallback=preview).
const PreviewTokenArgument = "confirmation_token"
