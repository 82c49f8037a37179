package machine

import (
	"context"
	"errors"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Leases: the instance running a task claims it in the store until
// TaskRecord.LeaseUntil and renews the claim every quarter of
// ToolOptions.TaskLease, from the task's watcher (no goroutine of its
// own). When the instance dies the claim lapses, and the next instance to
// serve the task's tasks/get (or a status stream following it) fails it
// with ErrServerStopped: the client learns within the lease plus one poll
// that its task will not move, instead of polling it until its TTL.

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
