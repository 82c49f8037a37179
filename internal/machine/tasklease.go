package machine

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Leases: the instance running a task claims it in the store until
// TaskRecord.LeaseUntil and renews the claim every quarter of
// ToolOptions.TaskLease, from the task's watcher (no goroutine of its
// own). When the instance dies the claim lapses, and the next instance to
// serve the task's tasks/get (or a status stream following it) fails it
// with ErrServerStopped: the client learns within the lease plus one poll
// that its task will not move, instead of polling it until its TTL.

// ErrServerStopped is the error of a task whose instance stopped renewing
// its lease: it died (a crash, a kill, a deploy), or could not reach the
// store for longer than the lease.
var ErrServerStopped = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
	Message: "the server stopped while running this task; call the tool again"}

// ErrServerShutDown is the error of a task still running when its
// instance shut down (TaskLimits.Drain).
var ErrServerShutDown = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
	Message: "the server shut down while running this task; call the tool again"}

// LeaseLapsed reports whether rec is a task not ended whose lease ended
// before now. A record without a lease (written by a release before
// leases) never lapses.
func LeaseLapsed(rec *backend.TaskRecord, now time.Time) bool {
	return rec != nil && !rec.Status.Terminal() && !rec.LeaseUntil.IsZero() && now.After(rec.LeaseUntil)
}

// errLeaseHeld aborts FailLapsed's update of a task whose lease was
// renewed, or that ended, since it was read.
var errLeaseHeld = errors.New("elicitrt: the task's lease is held")

// FailLapsed fails task id with ErrServerStopped if its lease has lapsed
// at now(), checked again inside the store's atomic update, so a renewal
// or an end that came in between wins. It returns the task as stored
// after (nil when it is gone).
func FailLapsed(ctx context.Context, store backend.TaskStore, id string, now func() time.Time) (*backend.TaskRecord, error) {
	rec, err := store.Update(ctx, id, func(rec *backend.TaskRecord) error {
		if !LeaseLapsed(rec, now()) {
			return errLeaseHeld
		}
		failTask(rec, ErrServerStopped)
		return nil
	})
	if errors.Is(err, errLeaseHeld) {
		return store.Get(ctx, id)
	}
	return rec, err
}

// failTask makes rec failed with e.
func failTask(rec *backend.TaskRecord, e *jsonrpc.Error) {
	raw, _ := json.Marshal(e)
	rec.Status, rec.Error, rec.Result = backend.TaskFailed, raw, nil
	rec.InputRequests, rec.Answers = nil, nil
	noLongerWaiting(rec)
}

// renewLease extends the task's lease by ToolOptions.TaskLease from now,
// unless it ended. A failure (the store unreachable) is reported and
// logged; the watcher tries again at its next renewal.
func (t *Task) renewLease(ctx context.Context) {
	o := &t.m.opts
	rctx, cancel := context.WithTimeout(ctx, o.TaskLease/4)
	defer cancel()
	if err := t.setLease(rctx, o.Now().Add(o.TaskLease)); err != nil && ctx.Err() == nil {
		t.watcherStoreError(err)
	}
}

// setLease sets the task's lease to until, if this run still holds the
// task and it has not ended; the store's error otherwise (nil when the
// task ended or was taken).
func (t *Task) setLease(ctx context.Context, until time.Time) error {
	_, err := t.m.opts.Tasks.Update(ctx, t.id, t.fenced(func(rec *backend.TaskRecord) error {
		if rec.Status.Terminal() {
			return errTaskEnded
		}
		rec.LeaseUntil = until
		return nil
	}))
	if errors.Is(err, errTaskEnded) {
		return nil
	}
	return err
}

// watcherStoreError reports and logs a store error of the task's watcher,
// which runs beside Run: it reads nothing of the call that Run changes
// (the flow's digest was taken before both started).
func (t *Task) watcherStoreError(err error) {
	if h := t.m.opts.Hooks; h != nil {
		h.Event(t.c.ctx, &backend.Event{Kind: backend.EventStoreError, Method: "tools/call", Target: t.m.target(), Flow: t.digest, Store: "tasks", Operation: "Update"})
	}
	l := t.m.opts.Logger.With("tool", t.m.tool)
	if t.digest != "" {
		l = l.With("flow", t.digest)
	}
	l.Warn("elicitgen: cannot renew a task's lease", "task", t.id, "err", err)
}
