package taskrun

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Job is one run of a task on this instance: the task's record, which it
// writes only while it holds the task (Runner), its lease, its place under
// TaskLimits (Ticket), the store's side of its questions, and how its Run
// ends. The interpreter makes one for each task it runs, one it creates or
// one it takes over (internal/machine's Task), and asks through it: the
// questions and the judging of answers are rounds of the interpreter, what
// the record says and when is the Job's.
type Job struct {
	Store  backend.TaskStore
	ID     string
	Runner string // the TaskRecord.Runner of this run
	Ticket *Ticket
	Lease  time.Duration    // ToolOptions.TaskLease
	Now    func() time.Time // ToolOptions.Now
	// Restartable: Drain hands the task back for another instance to take
	// over, instead of failing it.
	Restartable bool
	Report      Reporter
	// shutDown is set when Drain stops a task that is not restartable: a
	// Run that returns an error then fails the task with
	// ErrServerShutDown; handBack instead, for a restartable task: its
	// lease is released for another instance to take it over.
	shutDown, handBack atomic.Bool
	// What Work sets for its run (watch.go): the task's context and its
	// cancel, when the lease is renewed next, and the watcher beside Run.
	ctx       context.Context
	cancel    context.CancelFunc
	renewAt   time.Time
	stopWatch context.CancelFunc
	watched   chan struct{}
}

// Reporter is what a Job tells the interpreter's observers.
type Reporter interface {
	// Log is the logger of the run's records (they name the tool and the
	// flow, never its state).
	Log() *slog.Logger
	// StoreError reports a failed update of the record by the run.
	StoreError(err error)
	// LeaseError reports and logs a failed lease renewal. The watcher
	// calls it beside Run: it reads nothing Run changes.
	LeaseError(err error)
	// Moved reports the task's move to status.
	Moved(status backend.TaskStatus)
}

// NewID returns a task id (or a run's Runner): 128 random bits, base64url.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// errEnded aborts an update of a task that reached a terminal status, or
// that another run holds.
var errEnded = errors.New("elicitrt: the task has ended")

// Progress sets the task's statusMessage, bounded by the caller. It is
// best effort: when the store cannot be reached the message is dropped
// (and logged), and the work goes on; the error is ctx's.
func (j *Job) Progress(ctx context.Context, message string) error {
	if _, err := j.Store.Update(ctx, j.ID, j.fenced(func(rec *backend.TaskRecord) error {
		if !rec.Status.Terminal() {
			rec.StatusMessage = message
		}
		return nil
	})); err != nil && !errors.Is(err, errEnded) && ctx.Err() == nil {
		j.Report.StoreError(err)
		j.Report.Log().Warn("elicitgen: task progress not recorded", "task", j.ID, "err", err)
	}
	return ctx.Err()
}

// update is TaskStore.Update for the running task, which outlasts a store
// outage: a store error (Redis unreachable) is logged and the update tried
// again every storeRetry until it succeeds or the task's context ends. A
// task waiting for an answer thus waits through an outage instead of
// failing; tasks/update and tasks/get fail meanwhile (fail closed).
func (j *Job) update(ctx context.Context, change func(*backend.TaskRecord) error) (*backend.TaskRecord, error) {
	for {
		rec, err := j.Store.Update(ctx, j.ID, j.fenced(SaysWhatIsTrue(change)))
		if err == nil && rec != nil {
			j.Report.Moved(rec.Status)
		}
		if err == nil || errors.Is(err, errEnded) || ctx.Err() != nil {
			return rec, err
		}
		j.Report.StoreError(err)
		j.storeDown(ctx, err)
	}
}

// fenced is change for this run only: when another run holds the task
// (it was restarted elsewhere) it aborts with errEnded, and this run
// writes nothing more.
func (j *Job) fenced(change func(*backend.TaskRecord) error) func(*backend.TaskRecord) error {
	return func(rec *backend.TaskRecord) error {
		if rec.Runner != j.Runner {
			return errEnded
		}
		return change(rec)
	}
}

// storeRetry is how long a running task waits before trying its store
// again after an error.
const storeRetry = 500 * time.Millisecond

// storeDown logs a store error of the running task and waits storeRetry
// (or until its context ends).
func (j *Job) storeDown(ctx context.Context, err error) {
	j.Report.Log().Warn("elicitgen: task store unavailable; trying again", "task", j.ID, "err", err)
	select {
	case <-ctx.Done():
	case <-time.After(storeRetry):
	}
}

// ended is the error of an ask whose task ended (cancelled, expired):
// ctx's error once the task's context is cancelled.
func ended(ctx context.Context, err error) error {
	if err != nil && !errors.Is(err, errEnded) {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return context.Canceled
}
