package taskrun

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

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

// ErrLeaseHeld aborts FailLapsed's update of a task whose lease was
// renewed, or that ended, since it was read.
var ErrLeaseHeld = errors.New("elicitrt: the task's lease is held")

// FailLapsed fails task id with ErrServerStopped if its lease has lapsed
// at now(), checked again inside the store's atomic update, so a renewal
// or an end that came in between wins. It returns the task as stored
// after (nil when it is gone), and whether this call failed it.
func FailLapsed(ctx context.Context, store backend.TaskStore, id string, now func() time.Time) (rec *backend.TaskRecord, failed bool, err error) {
	rec, err = store.Update(ctx, id, func(rec *backend.TaskRecord) error {
		if !LeaseLapsed(rec, now()) {
			return ErrLeaseHeld
		}
		FailTask(rec, ErrServerStopped)
		return nil
	})
	if errors.Is(err, ErrLeaseHeld) {
		rec, err = store.Get(ctx, id)
		return rec, false, err
	}
	return rec, err == nil && rec != nil, err
}

// FailTask makes rec failed with e.
func FailTask(rec *backend.TaskRecord, e *jsonrpc.Error) {
	raw, _ := json.Marshal(e)
	rec.Status, rec.Error, rec.Result = backend.TaskFailed, raw, nil
	rec.InputRequests, rec.Answers = nil, nil
	NoLongerWaiting(rec)
}

// Leases: the instance running a task claims it in the store until
// TaskRecord.LeaseUntil and renews the claim every quarter of the lease,
// from the task's watcher (no goroutine of its own). When the instance
// dies the claim lapses, and the next instance to serve the task's
// tasks/get (or a status stream following it) fails it with
// ErrServerStopped, or takes it over (Claim): the client learns within the
// lease plus one poll that its task will not move, instead of polling it
// until its TTL.

// renewLease extends the task's lease by Lease from now, unless it ended.
// A failure (the store unreachable) is reported; the watcher tries again
// at its next renewal.
func (j *Job) renewLease(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, j.Lease/4)
	defer cancel()
	if err := j.setLease(rctx, j.Now().Add(j.Lease)); err != nil && ctx.Err() == nil {
		j.Report.LeaseError(err)
	}
}

// setLease sets the task's lease to until, if this run still holds the
// task and it has not ended; the store's error otherwise (nil when the
// task ended or was taken).
func (j *Job) setLease(ctx context.Context, until time.Time) error {
	_, err := j.Store.Update(ctx, j.ID, j.fenced(func(rec *backend.TaskRecord) error {
		if rec.Status.Terminal() {
			return errEnded
		}
		rec.LeaseUntil = until
		return nil
	}))
	if errors.Is(err, errEnded) {
		return nil
	}
	return err
}

// Stopper is how Drain stops the task (Ticket.Start takes it): handed
// back if restartable, else failed with ErrServerShutDown; cancel ends
// its Run.
func (j *Job) Stopper(cancel context.CancelFunc) func() {
	return func() {
		if j.Restartable {
			j.handBack.Store(true)
		} else {
			j.shutDown.Store(true)
		}
		cancel()
	}
}

// releasedLease is the lease of a task handed back: long past.
var releasedLease = time.Unix(1, 0).UTC()

// releaseLease hands the task back: its lease lapses now, and the Run it
// had recorded so far stays for the next instance to replay.
func (j *Job) releaseLease(ctx context.Context) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if err := j.setLease(rctx, releasedLease); err != nil {
		j.Report.Log().Warn("elicitgen: cannot hand a task back at shutdown; another instance takes it once its lease lapses", "task", j.ID, "err", err)
	}
}
