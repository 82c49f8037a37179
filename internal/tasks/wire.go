package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/refuse"
	"github.com/elicitgen/elicitgen/internal/taskrun"
	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tasks wire over go-sdk v1.8.0, which knows nothing of tasks: a
// receiving middleware turns the tools/call that created a task into a
// CreateTaskResult (the SDK cannot say resultType "task"), adds the
// extension to server/discover, and binds tasks/* requests to their
// principal; tasks/get, tasks/update and tasks/cancel are custom methods.
// This works alike over streamable HTTP, stdio and in memory. (HTTPHandler
// adds the Mcp-Name check of tasks/* requests, which the SDK makes only for
// tools/call, prompts/get and resources/read.)

// taskService serves the tasks methods of one server.
type taskService struct {
	store     backend.TaskStore
	limits    *taskrun.Limiter
	principal func(req *mcp.CallToolRequest) string // nil: the bearer token's user
	logger    *slog.Logger
	hooks     backend.Hooks    // nil: none
	now       func() time.Time // the clock of leases (ToolOptions.Now)
	machines  sync.Map         // tool name → *machine.Machine: the task tools served
}

// taskServices holds each server's task service: the one store every task
// tool of a server shares.
var taskServices sync.Map // *mcp.Server → *taskService

// Enable installs the tasks wire on server, once, for the task tool
// of machine m. It panics, at registration, when another task tool of
// the server uses another store or TaskLimits.
func Enable(server *mcp.Server, m *machine.Machine) {
	o := m.Options()
	svc := &taskService{store: o.Tasks, limits: taskrun.LimiterOf(o.TaskLimits), principal: o.Principal, logger: o.Logger, hooks: o.Hooks, now: o.Now}
	prev, loaded := taskServices.LoadOrStore(server, svc)
	if loaded {
		p := prev.(*taskService)
		if p.store != svc.store || p.limits != svc.limits {
			// Registration, never a request.
			panic(fmt.Sprintf("elicitgen: tool %s: every task tool of a server must use the same ToolOptions.Tasks and TaskLimits", m.Tool()))
		}
		p.machines.Store(m.Tool(), m)
		return
	}
	svc.machines.Store(m.Tool(), m)
	server.AddReceivingMiddleware(svc.middleware)
	for _, err := range []error{
		mcp.AddReceivingCustomMethod(server, taskrun.MethodTasksGet, svc.get),
		mcp.AddReceivingCustomMethod(server, taskrun.MethodTasksUpdate, svc.update),
		mcp.AddReceivingCustomMethod(server, taskrun.MethodTasksCancel, svc.cancel),
	} {
		if err != nil {
			panic("elicitgen: " + err.Error()) // registration: a method name the SDK took over
		}
	}
}

// TaskParams are the params of tasks/get, tasks/update and tasks/cancel.
type TaskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
	// InputResponses, of tasks/update: answers by input request key.
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// taskAck is the empty result of tasks/update and tasks/cancel.
type taskAck struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// TaskResult is a task on the wire: the CreateTaskResult of the tools/call
// that created it (ResultType "task"), or the DetailedTask of tasks/get
// (ResultType "complete", with InputRequests, Result or Error by status).
type TaskResult struct {
	mcp.ResultBase
	ResultType     string                     `json:"resultType,omitempty"` // empty in notifications/tasks
	TaskID         string                     `json:"taskId"`
	Status         backend.TaskStatus         `json:"status"`
	StatusMessage  string                     `json:"statusMessage,omitempty"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          int64                      `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs,omitempty"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Result         json.RawMessage            `json:"result,omitempty"`
	Error          json.RawMessage            `json:"error,omitempty"`
}

// taskResult is rec on the wire; detailed adds what tasks/get shows.
func taskResult(rec *backend.TaskRecord, detailed bool) *TaskResult {
	r := &TaskResult{
		ResultType: "task", TaskID: rec.ID, Status: rec.Status, StatusMessage: rec.StatusMessage,
		CreatedAt: rec.CreatedAt.UTC().Format(time.RFC3339Nano), LastUpdatedAt: rec.UpdatedAt.UTC().Format(time.RFC3339Nano),
		TTLMs: rec.Expires.Sub(rec.CreatedAt).Milliseconds(), PollIntervalMs: rec.PollInterval.Milliseconds(),
	}
	if detailed {
		r.ResultType = "complete"
		switch rec.Status {
		case backend.TaskInputRequired:
			r.InputRequests = rec.InputRequests
		case backend.TaskCompleted:
			r.Result = rec.Result
		case backend.TaskFailed:
			r.Error = rec.Error
		}
	}
	return r
}

type taskCallerKey struct{}

// middleware turns a tools/call that created a task into its
// CreateTaskResult, advertises the extension in server/discover, and
// gates tasks/* requests on the extension, binding them to their
// principal.
func (svc *taskService) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			slot := &taskrun.TaskSlot{}
			res, err := next(taskrun.WithTaskSlot(ctx, slot), method, req)
			if created := slot.Created; err == nil && created != nil {
				slot.Created = nil // a task's context keeps the slot, not the record
				return taskResult(created, false), nil
			}
			return res, err
		case "server/discover":
			res, err := next(ctx, method, req)
			if d, ok := res.(*mcp.DiscoverResult); ok && err == nil && d.Capabilities != nil {
				if d.Capabilities.Extensions == nil {
					d.Capabilities.Extensions = map[string]any{}
				}
				d.Capabilities.Extensions[machine.TasksExtension] = map[string]any{}
			}
			return res, err
		case taskrun.MethodTasksGet, taskrun.MethodTasksUpdate, taskrun.MethodTasksCancel:
			if !machine.DeclaresTasks(requestCapabilities(req)) {
				return nil, machine.MissingTasksExtension()
			}
			ctx = context.WithValue(ctx, taskCallerKey{}, svc.caller(req))
			if svc.hooks != nil {
				return svc.observed(ctx, method, req, next)
			}
			return next(ctx, method, req)
		}
		return next(ctx, method, req)
	}
}

// requestCapabilities are the client capabilities a tasks/* request
// declared in its _meta (2026-07-28); a 2025-11-25 session never enables
// the extension, whatever it declared at initialize.
func requestCapabilities(req mcp.Request) *mcp.ClientCapabilities {
	params := req.GetParams()
	if params == nil {
		return nil
	}
	return metaCapabilities(params.GetMeta())
}

// caller is the principal of a tasks/* request, as the machine names the
// principal of a tools/call (ToolOptions.Principal).
func (svc *taskService) caller(req mcp.Request) string {
	session, _ := req.GetSession().(*mcp.ServerSession)
	return machine.PrincipalOf(svc.principal, nil, session, req.GetExtra())
}

// errUnknownTask is the error of a tasks/* request for a task that does
// not exist, has expired, or belongs to another principal.
var errUnknownTask = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown task"}

// errStore is the error of a tasks/* request when the store fails: the
// details go to the log.
func (svc *taskService) errStore(ctx context.Context, method string, err error) error {
	svc.logger.Warn("elicitgen: task store", "method", method, "err", err)
	if svc.hooks != nil {
		svc.hooks.Event(ctx, &backend.Event{Kind: backend.EventStoreError, Method: method, Store: "tasks", Operation: method})
	}
	return machine.ErrInternal
}

// own returns the record of the request's task if the caller owns it (its
// lease not checked: see lapsed).
func (svc *taskService) own(ctx context.Context, p *TaskParams) (*backend.TaskRecord, error) {
	if p == nil || p.TaskID == "" {
		return nil, errUnknownTask
	}
	rec, err := svc.store.Get(ctx, p.TaskID)
	if err != nil {
		return nil, svc.errStore(ctx, taskrun.MethodTasksGet, err)
	}
	if rec == nil || rec.Principal != callerFrom(ctx) {
		return nil, errUnknownTask
	}
	if tt, ok := svc.hooks.(backend.TaskTracer); ok && rec.Trace != nil {
		tt.LinkTask(ctx, rec.Trace)
	}
	return rec, nil
}

// lapsed is rec, or, when its lease has lapsed (the instance running it
// died), rec taken over (takeOver).
func (svc *taskService) lapsed(ctx context.Context, rec *backend.TaskRecord) (*backend.TaskRecord, error) {
	if !taskrun.LeaseLapsed(rec, svc.now()) {
		return rec, nil
	}
	next, err := svc.takeOver(ctx, rec)
	if err != nil {
		return nil, svc.errStore(ctx, taskrun.MethodTasksGet, err)
	}
	if next == nil {
		return nil, errUnknownTask
	}
	return next, nil
}

// takeOver restarts the task rec, whose lease lapsed, on this instance
// when its tool is restartable and served here, and fails it with
// machine.ErrServerStopped otherwise.
func (svc *taskService) takeOver(ctx context.Context, rec *backend.TaskRecord) (*backend.TaskRecord, error) {
	if m, ok := svc.machines.Load(rec.Tool); ok {
		return m.(*machine.Machine).Restart(ctx, rec)
	}
	next, _, err := taskrun.FailLapsed(ctx, svc.store, rec.ID, svc.now)
	return next, err
}

func callerFrom(ctx context.Context) string {
	p, _ := ctx.Value(taskCallerKey{}).(string)
	return p
}

// get serves tasks/get.
func (svc *taskService) get(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*TaskResult, error) {
	rec, err := svc.own(ctx, p)
	if err == nil {
		rec, err = svc.lapsed(ctx, rec)
	}
	if err != nil {
		return nil, err
	}
	return taskResult(rec, true), nil
}

// maxTaskAnswerLen bounds one answer tasks/update takes: what a round
// keeps of all its answers (machine.MaxAnswersLen); a longer one is refused.
const maxTaskAnswerLen = machine.MaxAnswersLen

// update serves tasks/update: answers under keys the task is waiting for
// are kept for its Run (a key once); any other key is ignored.
func (svc *taskService) update(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*taskAck, error) {
	rec, err := svc.own(ctx, p)
	if err == nil {
		_, err = svc.lapsed(ctx, rec)
	}
	if err != nil {
		return nil, err
	}
	for k, v := range p.InputResponses {
		if len(v) > maxTaskAnswerLen {
			// Nothing is kept: the question stays open, to be answered
			// again within the bound.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("the answer under %s is %d bytes of JSON; at most %d", strconv.Quote(refuse.Bounded(k)), len(v), maxTaskAnswerLen)}
		}
	}
	if _, err := svc.store.Update(ctx, p.TaskID, func(rec *backend.TaskRecord) error {
		if rec.Status != backend.TaskInputRequired {
			return nil
		}
		for k, v := range p.InputResponses {
			if _, asked := rec.InputRequests[k]; !asked {
				continue
			}
			if rec.Answers == nil {
				rec.Answers = map[string]json.RawMessage{}
			}
			rec.Answers[k] = v
			delete(rec.InputRequests, k)
		}
		if len(rec.InputRequests) == 0 {
			taskrun.AnswersIn(rec)
		}
		return nil
	}); err != nil {
		return nil, svc.errStore(ctx, taskrun.MethodTasksUpdate, err)
	}
	return &taskAck{ResultType: "complete"}, nil
}

// cancel serves tasks/cancel: a task not ended yet is cancelled (its Run's
// context ends, on whichever instance runs it); an ended one is left as
// it is, and acknowledged alike.
func (svc *taskService) cancel(ctx context.Context, _ *mcp.ServerSession, p *TaskParams) (*taskAck, error) {
	if _, err := svc.own(ctx, p); err != nil {
		return nil, err
	}
	if _, err := svc.store.Update(ctx, p.TaskID, func(rec *backend.TaskRecord) error {
		if !rec.Status.Terminal() {
			rec.Status, rec.StatusMessage = backend.TaskCancelled, "cancelled by the client"
			rec.InputRequests, rec.Answers = nil, nil
		}
		return nil
	}); err != nil {
		return nil, svc.errStore(ctx, taskrun.MethodTasksCancel, err)
	}
	svc.limits.TaskEnded(p.TaskID) // if it runs here, it counts no more
	return &taskAck{ResultType: "complete"}, nil
}

// observed serves a tasks/* request reporting it to the hooks: a span
// named by its method (a task has no name to add), its duration and error.
func (svc *taskService) observed(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	s := &backend.Served{Method: method}
	if p := req.GetParams(); p != nil {
		s.Meta = p.GetMeta()
		s.ProtocolVersion, _ = s.Meta["io.modelcontextprotocol/protocolVersion"].(string)
	}
	start := time.Now()
	ctx = svc.hooks.Begin(ctx, s)
	res, err := next(ctx, method, req)
	s.Duration, s.ErrorType = time.Since(start), machine.ErrorType(res, err)
	svc.hooks.End(ctx, s)
	return res, err
}
