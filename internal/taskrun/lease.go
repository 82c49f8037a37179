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
// after (nil when it is gone).
func FailLapsed(ctx context.Context, store backend.TaskStore, id string, now func() time.Time) (*backend.TaskRecord, error) {
	rec, err := store.Update(ctx, id, func(rec *backend.TaskRecord) error {
		if !LeaseLapsed(rec, now()) {
			return ErrLeaseHeld
		}
		FailTask(rec, ErrServerStopped)
		return nil
	})
	if errors.Is(err, ErrLeaseHeld) {
		return store.Get(ctx, id)
	}
	return rec, err
}

// FailTask makes rec failed with e.
func FailTask(rec *backend.TaskRecord, e *jsonrpc.Error) {
	raw, _ := json.Marshal(e)
	rec.Status, rec.Error, rec.Result = backend.TaskFailed, raw, nil
	rec.InputRequests, rec.Answers = nil, nil
	NoLongerWaiting(rec)
}
