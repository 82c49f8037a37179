package taskrun

import (
	"context"
	"errors"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// The watch of a running task: its lease is renewed every quarter of
// Lease (on the real clock), and its context is cancelled as soon as the
// task turns terminal (tasks/cancel, on any instance sharing the store,
// or a lapsed lease failed elsewhere), disappears or is held by another
// run. While Run works, a goroutine beside it watches (watch); while Run
// waits in Await, that goroutine is stopped and Await watches, in the
// same loop that waits for the answers: a waiting task holds one
// goroutine, its Run's.

// begin starts watching the task that runs on ctx (cancel ends it).
func (j *Job) begin(ctx context.Context, cancel context.CancelFunc) {
	j.ctx, j.cancel = ctx, cancel
	j.renewAt = time.Now().Add(j.Lease / 4)
	j.startWatch()
}

// startWatch starts the watcher beside Run, on the task's context.
func (j *Job) startWatch() {
	ctx, stop := context.WithCancel(j.ctx)
	done := make(chan struct{})
	j.stopWatch, j.watched = stop, done
	go func() {
		defer close(done)
		j.watch(ctx)
	}()
}

// pauseWatch stops the watcher and waits for it to return.
func (j *Job) pauseWatch() {
	j.stopWatch()
	<-j.watched
	j.stopWatch, j.watched = nil, nil // nothing of it kept while Run waits
}

// watch watches the task until it is over or ctx ends.
func (j *Job) watch(ctx context.Context) {
	var version uint64
	for ctx.Err() == nil {
		rec, err := j.Store.Get(ctx, j.ID)
		if j.over(rec, err) {
			return
		}
		if rec != nil {
			version = rec.Version
		}
		switch {
		case j.renewDue(ctx):
		case err != nil:
			// The store is unreachable: look again in a while.
			pause(ctx, time.Second)
		default:
			_ = j.waitChange(ctx, version)
		}
	}
}

// over reports whether the task, as read (rec, or the read's error err),
// no longer runs here: it is terminal, gone, or another run holds it.
// Then it stops the run: the task counts no more, its last status is
// reported, and its context is cancelled.
func (j *Job) over(rec *backend.TaskRecord, err error) bool {
	if err == nil && (rec == nil || rec.Status.Terminal() || rec.Runner != j.Runner) {
		j.stopped(rec)
		j.cancel()
		return true
	}
	return false
}

// overWhileWaiting stops the run whose Await found its task over (err is
// errEnded, or nil for a task gone), as the watcher would have.
func (j *Job) overWhileWaiting(ctx context.Context, err error) {
	if err != nil && !errors.Is(err, errEnded) {
		return // ctx ended, during a store outage
	}
	if rec, gerr := j.Store.Get(ctx, j.ID); !j.over(rec, gerr) {
		j.cancel()
	}
}

// renewDue renews the lease if its renewal is due, and reports whether it
// was.
func (j *Job) renewDue(ctx context.Context) bool {
	if time.Now().Before(j.renewAt) {
		return false
	}
	j.renewLease(ctx)
	j.renewAt = time.Now().Add(j.Lease / 4)
	return true
}

// waitChange waits until the task's record moves past version, or the
// lease's renewal is due (nil), or ctx ends (its error); the store's error
// when it cannot be reached.
func (j *Job) waitChange(ctx context.Context, version uint64) error {
	wctx, cancel := context.WithDeadline(ctx, j.renewAt)
	defer cancel()
	err := j.Store.Wait(wctx, j.ID, version)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case wctx.Err() != nil:
		return nil
	}
	return err
}

// stopped reports the end of a task whose record turned terminal (rec) or
// disappeared (nil): it counts no more, and its last status is reported.
func (j *Job) stopped(rec *backend.TaskRecord) {
	j.Ticket.Ended()
	if rec == nil {
		j.Report.Moved(backend.TaskCancelled) // forgotten: no longer running
	} else {
		j.Report.Moved(rec.Status)
	}
}
