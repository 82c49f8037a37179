package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Temporary re-exports while the runtime moves into its rooms (issue 25).

const Accepted = machine.Accepted

const ActionAccept = machine.ActionAccept

const ActionCancel = machine.ActionCancel

const ActionDecline = machine.ActionDecline

func AddPrompt[A any](server *mcp.Server, prompt *mcp.Prompt, m *machine.Machine) {
	machine.AddPrompt[A](server, prompt, m)
}

func AddResource(server *mcp.Server, resource *mcp.Resource, m *machine.Machine) {
	machine.AddResource(server, resource, m)
}

func AddResourceTemplate(server *mcp.Server, template *mcp.ResourceTemplate, m *machine.Machine) {
	machine.AddResourceTemplate(server, template, m)
}

func AddTool[A any](server *mcp.Server, tool *mcp.Tool, m *machine.Machine) {
	machine.AddTool[A](server, tool, m)
}

type Answers = machine.Answers

func Bool(b bool) *bool { return machine.Bool(b) }

func Bounded(s string) string { return machine.Bounded(s) }

const Cancelled = machine.Cancelled

func CharCountWithin(s string, lo int, hi int) bool { return machine.CharCountWithin(s, lo, hi) }

func Check[T any, P interface {
	DecodeElicit(map[string]any) error
	*T
}](content map[string]any) error {
	return machine.Check[T, P](content)
}

const CodeTaskLimit = machine.CodeTaskLimit

type ContentError = machine.ContentError

const Declined = machine.Declined

func Decoded[T any, P interface {
	DecodeElicit(map[string]any) error
	*T
}](content map[string]any) *T {
	return machine.Decoded[T, P](content)
}

func DefaultGrants() machine.GrantStore { return machine.DefaultGrants() }

const DefaultLegacyAnswerWait = machine.DefaultLegacyAnswerWait

const DefaultLegacyURLWait = machine.DefaultLegacyURLWait

const DefaultMaxClaims = machine.DefaultMaxClaims

const DefaultMaxRequestBodyBytes = machine.DefaultMaxRequestBodyBytes

const DefaultMaxRounds = machine.DefaultMaxRounds

const DefaultMaxRunningTasks = machine.DefaultMaxRunningTasks

const DefaultMaxSessionsPerPrincipal = machine.DefaultMaxSessionsPerPrincipal

const DefaultMaxTaskStreamsPerPrincipal = machine.DefaultMaxTaskStreamsPerPrincipal

const DefaultMaxTasks = machine.DefaultMaxTasks

const DefaultMaxTasksPerPrincipal = machine.DefaultMaxTasksPerPrincipal

const DefaultPreviewTTL = machine.DefaultPreviewTTL

func DefaultReplayGuard() machine.ReplayGuard { return machine.DefaultReplayGuard() }

const DefaultSessionTimeout = machine.DefaultSessionTimeout

const DefaultStdioMaxLineBytes = machine.DefaultStdioMaxLineBytes

func DefaultTaskLimits() *machine.TaskLimits { return machine.DefaultTaskLimits() }

const DefaultTaskPollInterval = machine.DefaultTaskPollInterval

func DefaultTaskStore() machine.TaskStore { return machine.DefaultTaskStore() }

const DefaultTaskTTL = machine.DefaultTaskTTL

type EnforceVersion = machine.EnforceVersion

var ErrClaimNoTime = machine.ErrClaimNoTime

var ErrInternal = machine.ErrInternal

var ErrInvalidState = machine.ErrInvalidState

var ErrNotAsked = machine.ErrNotAsked

var ErrReplayGuardFull = machine.ErrReplayGuardFull

var ErrReplayed = machine.ErrReplayed

var ErrTaskStoreFull = machine.ErrTaskStoreFull

type Fallback = machine.Fallback

const FallbackArguments = machine.FallbackArguments

const FallbackDefaults = machine.FallbackDefaults

const FallbackError = machine.FallbackError

const FallbackHandler = machine.FallbackHandler

const FallbackPreview = machine.FallbackPreview

type FieldError = machine.FieldError

type Flow = machine.Flow

type GaveUpError = machine.GaveUpError

const GenVersion = machine.GenVersion

type GrantStore = machine.GrantStore

type HTTPHandler = machine.HTTPHandler

type HTTPOptions = machine.HTTPOptions

type HTTPRoute = machine.HTTPRoute

func InputSchema(base any, prefill json.RawMessage) (json.RawMessage, error) {
	return machine.InputSchema(base, prefill)
}

func Integer(v any) (int64, string) { return machine.Integer(v) }

func IsAbsoluteURI(s string) bool { return machine.IsAbsoluteURI(s) }

func IsDate(s string) bool { return machine.IsDate(s) }

func IsEmail(s string) bool { return machine.IsEmail(s) }

func IsInvalidState(err error) bool { return machine.IsInvalidState(err) }

const LatestProtocolVersion = machine.LatestProtocolVersion

const LegacyURLUnfinished = machine.LegacyURLUnfinished

const LimitRunningTasks = machine.LimitRunningTasks

const LimitTaskStore = machine.LimitTaskStore

const LimitTaskStreamsPerPrincipal = machine.LimitTaskStreamsPerPrincipal

const LimitTasksPerPrincipal = machine.LimitTasksPerPrincipal

func List(v any) ([]any, bool) { return machine.List(v) }

type Machine = machine.Machine

const MaxAnswersLen = machine.MaxAnswersLen

const MaxListenTaskIDs = machine.MaxListenTaskIDs

const MaxSafeInteger = machine.MaxSafeInteger

const MaxVersion = machine.MaxVersion

type MemoryGrants = machine.MemoryGrants

type MemoryReplayGuard = machine.MemoryReplayGuard

type MemoryTaskStore = machine.MemoryTaskStore

const MethodTasksCancel = machine.MethodTasksCancel

const MethodTasksGet = machine.MethodTasksGet

const MethodTasksUpdate = machine.MethodTasksUpdate

const MinVersion = machine.MinVersion

func MissingCapability(mode machine.Mode) *jsonrpc.Error { return machine.MissingCapability(mode) }

func MissingTasksExtension() *jsonrpc.Error { return machine.MissingTasksExtension() }

type Mode = machine.Mode

const ModeForm = machine.ModeForm

const ModeURL = machine.ModeURL

func MustInputSchema(tool string, base any, baseErr error, prefill json.RawMessage) json.RawMessage {
	return machine.MustInputSchema(tool, base, baseErr, prefill)
}

func NewHTTPHandler(getServer func(*http.Request) *mcp.Server, opts *machine.HTTPOptions) *machine.HTTPHandler {
	return machine.NewHTTPHandler(getServer, opts)
}

func NewHTTPServer(addr string, h http.Handler) *http.Server { return machine.NewHTTPServer(addr, h) }

func NewMachine(tool string, steps []machine.Step, flow machine.Flow, opts *machine.ToolOptions) *machine.Machine {
	return machine.NewMachine(tool, steps, flow, opts)
}

func NewPromptMachine[A any, T any, S ~int](prompt string, steps []machine.Step, t machine.TypedPrompt[A, T, S], opts *machine.ToolOptions) *machine.Machine {
	return machine.NewPromptMachine[A, T, S](prompt, steps, t, opts)
}

func NewResourceMachine[T any, S ~int](uri string, steps []machine.Step, t machine.TypedResource[T, S], opts *machine.ToolOptions) *machine.Machine {
	return machine.NewResourceMachine[T, S](uri, steps, t, opts)
}

func Number(v any) (f float64, reason string) { return machine.Number(v) }

type Outcome = machine.Outcome

func ParseDate(s string) (time.Time, bool) { return machine.ParseDate(s) }

func ParseDateTime(s string) (time.Time, bool) { return machine.ParseDateTime(s) }

func PreviewResult(tool string, preview string, token string, ttl time.Duration) *mcp.CallToolResult {
	return machine.PreviewResult(tool, preview, token, ttl)
}

const PreviewTokenArgument = machine.PreviewTokenArgument

const PreviewTokenDescription = machine.PreviewTokenDescription

func Principal(req *mcp.CallToolRequest) string { return machine.Principal(req) }

func PrincipalFrom(ctx context.Context) string { return machine.PrincipalFrom(ctx) }

func PromptText(description string, text string) *mcp.GetPromptResult {
	return machine.PromptText(description, text)
}

const ReasonArray = machine.ReasonArray

const ReasonBoolean = machine.ReasonBoolean

const ReasonDate = machine.ReasonDate

const ReasonDateTime = machine.ReasonDateTime

const ReasonDuplicate = machine.ReasonDuplicate

const ReasonEmail = machine.ReasonEmail

const ReasonFloat32 = machine.ReasonFloat32

const ReasonFormatLabel = machine.ReasonFormatLabel

const ReasonInteger = machine.ReasonInteger

const ReasonNumber = machine.ReasonNumber

const ReasonRequired = machine.ReasonRequired

const ReasonString = machine.ReasonString

const ReasonURI = machine.ReasonURI

const ReasonUnsafe = machine.ReasonUnsafe

const ReasonWhole = machine.ReasonWhole

type ReplayGuard = machine.ReplayGuard

type Reply = machine.Reply

func ResourceText(uri string, mimeType string, text string) *mcp.ReadResourceResult {
	return machine.ResourceText(uri, mimeType, text)
}

const RouteLegacy = machine.RouteLegacy

const RouteModern = machine.RouteModern

type StdioTransport = machine.StdioTransport

type Step = machine.Step

type Task = machine.Task

const TaskCancelled = machine.TaskCancelled

const TaskCompleted = machine.TaskCompleted

const TaskFailed = machine.TaskFailed

const TaskForbidden = machine.TaskForbidden

const TaskInputRequired = machine.TaskInputRequired

type TaskLimits = machine.TaskLimits

const TaskOptional = machine.TaskOptional

type TaskParams = machine.TaskParams

type TaskRecord = machine.TaskRecord

const TaskRecordFormat = machine.TaskRecordFormat

const TaskRequired = machine.TaskRequired

type TaskResult = machine.TaskResult

type TaskStatus = machine.TaskStatus

type TaskStore = machine.TaskStore

type TaskSupport = machine.TaskSupport

const TaskWorking = machine.TaskWorking

const TasksExtension = machine.TasksExtension

func Text(text string) *mcp.CallToolResult { return machine.Text(text) }

func ToolError(text string) *mcp.CallToolResult { return machine.ToolError(text) }

type ToolOptions = machine.ToolOptions

type Typed[A any, T any, S ~int] = machine.Typed[A, T, S]

type TypedPrompt[A any, T any, S ~int] = machine.TypedPrompt[A, T, S]

type TypedResource[T any, S ~int] = machine.TypedResource[T, S]

func URLAnswer(a map[string]any) *machine.URLStep { return machine.URLAnswer(a) }

type URLStep = machine.URLStep
