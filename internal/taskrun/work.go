package taskrun

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/backend"
)

// ErrInternal is the error of a call that failed inside the server (a
// panic in a handler method, a state that could not be sealed): the
// details go to the server log, never to the client.
var ErrInternal = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}

// Work runs the task's Run (run) on ctx and records how it ended; a
// cancelled task stays cancelled whatever Run returns. Beside it the
// watcher renews the lease and cancels ctx when the task ends elsewhere;
// while Run waits in Await, Await does both and the watcher stops: a
// waiting task is one goroutine. The task counts under TaskLimits against
// its principal until it ends, and against the process until both
// goroutines return.
func (j *Job) Work(ctx context.Context, cancel context.CancelFunc, run func(context.Context) (*mcp.CallToolResult, error)) {
	j.begin(ctx, cancel)
	defer func() {
		cancel()
		j.pauseWatch()
		j.Ticket.Release()
	}()
	res, err := j.safeRun(ctx, run)
	j.Ticket.Ended() // before the end is recorded: once a client sees it, it counts no more
	if err != nil && j.handBack.Load() {
		j.releaseLease(ctx)
		return
	}
	result, rpcErr := j.outcome(res, err)
	j.recordEnd(ctx, result, rpcErr)
}

// safeRun calls run; a panic fails the task with an internal error.
func (j *Job) safeRun(ctx context.Context, run func(context.Context) (*mcp.CallToolResult, error)) (res *mcp.CallToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			j.Report.Log().Error("elicitgen: panic in a task", "task", j.ID, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, ErrInternal
		}
	}()
	return run(ctx)
}

// outcome is how a task whose Run returned (res, err) ends: its result
// (completed) or its JSON-RPC error (failed).
func (j *Job) outcome(res *mcp.CallToolResult, err error) (result, rpcErr json.RawMessage) {
	var gaveUp *elicitrt.GaveUpError
	switch {
	case err != nil && j.shutDown.Load():
		rpcErr, _ = json.Marshal(ErrServerShutDown)
	case errors.As(err, &gaveUp):
		result = CompleteResult(elicitrt.ToolError(gaveUp.Error()))
	case err != nil:
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				j.Report.Log().Error("elicitgen: task failed", "task", j.ID, "err", err)
			}
			je = ErrInternal
		}
		rpcErr, _ = json.Marshal(je)
	case res == nil || res.InputRequests != nil || res.RequestState != "":
		j.Report.Log().Error("elicitgen: a task's Run returned no result, or an input_required one", "task", j.ID)
		rpcErr, _ = json.Marshal(ErrInternal)
	default:
		result = CompleteResult(res)
		if result == nil {
			rpcErr, _ = json.Marshal(ErrInternal)
		}
	}
	return result, rpcErr
}

// recordEnd records the task's end, unless it ended already (cancelled:
// that end is reported, whether or not the watcher saw it first), even if
// its context has ended (its TTL): on a fresh context, bounded, through a
// store outage of up to 30 s.
func (j *Job) recordEnd(ctx context.Context, result, rpcErr json.RawMessage) {
	endCtx, endCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer endCancel()
	if _, err := j.update(endCtx, func(rec *backend.TaskRecord) error {
		if rec.Status.Terminal() {
			j.Report.Moved(rec.Status)
			return errEnded
		}
		rec.InputRequests, rec.Answers = nil, nil
		if rpcErr != nil {
			rec.Status, rec.Error = backend.TaskFailed, rpcErr
		} else {
			rec.Status, rec.Result = backend.TaskCompleted, result
		}
		return nil
	}); err != nil && !errors.Is(err, errEnded) {
		j.Report.Log().Warn("elicitgen: cannot record the end of a task", "task", j.ID, "err", err)
	}
}

// CompleteResult is res as a task's inlined result: the tool result with
// resultType "complete" (the ext-tasks client requires it).
func CompleteResult(res *mcp.CallToolResult) json.RawMessage {
	raw, err := json.Marshal(res)
	if err != nil {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	fields["resultType"] = json.RawMessage(`"complete"`)
	out, err := json.Marshal(fields)
	if err != nil {
		return nil
	}
	return out
}
