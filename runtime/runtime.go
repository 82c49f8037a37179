package runtime

import (
	"context"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/internal/tasks"
	"github.com/elicitgen/elicitgen/internal/transport"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// ToolOptions configure the generated tools, prompts and resources of a
// server: keys, stores, clock, limits, logger (docs/runtime.md).
type ToolOptions = machine.ToolOptions

// What a handler holds and returns: the answer of a URL step, the task a
// task tool runs as, the outcome of its flow, why it gave up, and the
// errors of content that a form's own Validate refuses.
type (
	URLStep      = machine.URLStep
	Task         = machine.Task
	Outcome      = machine.Outcome
	GaveUpError  = machine.GaveUpError
	FieldError   = machine.FieldError
	ContentError = machine.ContentError
)

// The outcomes of a flow.
const (
	Accepted  = machine.Accepted
	Declined  = machine.Declined
	Cancelled = machine.Cancelled
)

// What the runtime reports to ToolOptions.Hooks: the requests it serves
// and the events within them (runtime/otelelicit adapts them to
// OpenTelemetry; docs/observability.md).
type (
	Hooks     = backend.Hooks
	Served    = backend.Served
	Event     = backend.Event
	EventKind = backend.EventKind
)

// The kinds of Event.
const (
	EventAsked      = backend.EventAsked
	EventAnswered   = backend.EventAnswered
	EventReasked    = backend.EventReasked
	EventFallback   = backend.EventFallback
	EventOnce       = backend.EventOnce
	EventStoreError = backend.EventStoreError
	EventTaskStatus = backend.EventTaskStatus
)

// Defaults and limits, each documented where it applies (docs/runtime.md).
const (
	DefaultStateTTL            = seal.DefaultStateTTL
	DefaultMaxRounds           = machine.DefaultMaxRounds
	DefaultMaxRequestBodyBytes = transport.DefaultMaxRequestBodyBytes
	DefaultSessionTimeout      = transport.DefaultSessionTimeout
	// The bounds on legacy sessions (HTTPOptions).
	DefaultMaxSessionsPerPrincipal        = transport.DefaultMaxSessionsPerPrincipal
	DefaultMaxAnonymousSessionsPerAddress = transport.DefaultMaxAnonymousSessionsPerAddress
	DefaultMaxAnonymousSessions           = transport.DefaultMaxAnonymousSessions
	DefaultMaxSessions                    = transport.DefaultMaxSessions
	DefaultMaxRunningTasks                = machine.DefaultMaxRunningTasks
	DefaultMaxTasksPerPrincipal           = machine.DefaultMaxTasksPerPrincipal
	DefaultTaskLease                      = machine.DefaultTaskLease
	DefaultTaskRestarts                   = machine.DefaultTaskRestarts
	DefaultLegacyURLWait                  = machine.DefaultLegacyURLWait
	DefaultLegacyAnswerWait               = machine.DefaultLegacyAnswerWait
	// PreviewTokenArgument is the tool argument that carries a
	// confirmation token (fallback=preview).
	PreviewTokenArgument = machine.PreviewTokenArgument
)

// Text is a tool result of one text block.
func Text(text string) *mcp.CallToolResult { return machine.Text(text) }

// ToolError is a tool result of one text block with isError set.
func ToolError(text string) *mcp.CallToolResult { return machine.ToolError(text) }

// PromptText is a prompt result of one user message.
func PromptText(description, text string) *mcp.GetPromptResult {
	return machine.PromptText(description, text)
}

// ResourceText is a resource result of one text content.
func ResourceText(uri, mimeType, text string) *mcp.ReadResourceResult {
	return machine.ResourceText(uri, mimeType, text)
}

// Principal is the user a tool call is made for: the verified token's
// UserID, or "" for an anonymous call.
func Principal(req *mcp.CallToolRequest) string { return machine.Principal(req) }

// PrincipalFrom is Principal for a handler that holds only the context of
// its call.
func PrincipalFrom(ctx context.Context) string { return machine.PrincipalFrom(ctx) }

// HTTPOptions configure [NewHTTPHandler]: origins, body and session
// limits, legacy sessions.
type HTTPOptions = transport.HTTPOptions

// HTTPHandler serves MCP over streamable HTTP, both protocol eras.
type HTTPHandler = transport.HTTPHandler

// NewHTTPHandler serves the server getServer returns for a request over
// streamable HTTP (docs/runtime.md#http).
func NewHTTPHandler(getServer func(*http.Request) *mcp.Server, opts *HTTPOptions) *HTTPHandler {
	// The task status streams plug into the transport's hook: the
	// transport does not import the tasks.
	return transport.NewHTTPHandler(getServer, opts, transport.Hooks{Listen: tasks.ServeListen})
}

// NewHTTPServer is an http.Server for h on addr with the timeouts a public
// server needs.
func NewHTTPServer(addr string, h http.Handler) *http.Server { return transport.NewHTTPServer(addr, h) }

// Shutdown shuts a server down gracefully, from the program's signal
// handling: srv (nil for stdio) stops taking connections, and the tasks
// running under limits (nil: DefaultTaskLimits) get drain to finish; then
// those still running are handed back to the other instances
// (restartable tasks) or fail, saying the server shut down, and the
// connections still open close. It returns within drain plus a second,
// with the number of tasks it stopped (docs/tasks.md#leases-and-shutdown).
func Shutdown(srv *http.Server, limits *TaskLimits, drain time.Duration) int {
	return transport.Shutdown(srv, limits, drain)
}

// StdioTransport serves one client over standard input and output, with
// bounded lines and a clean stop.
type StdioTransport = transport.StdioTransport

// The stores: single-use claims, the sign-in grants and the tasks. The
// memory implementations serve one instance; runtime/redisstore serves
// many.
type (
	ReplayGuard       = backend.ReplayGuard
	MemoryReplayGuard = backend.MemoryReplayGuard
	GrantStore        = backend.GrantStore
	MemoryGrants      = backend.MemoryGrants
	TaskStore         = backend.TaskStore
	MemoryTaskStore   = backend.MemoryTaskStore
	TaskRecord        = backend.TaskRecord
	TaskStatus        = backend.TaskStatus
	TaskLimits        = machine.TaskLimits
)
