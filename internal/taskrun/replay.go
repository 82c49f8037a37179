package taskrun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Replay: a task tool declared restartable (//elicit:task optional
// restartable) keeps in its record what it takes to run its Run again
// elsewhere: the creating call's name, arguments and client capabilities,
// the flow's state when the task was created (the answers to the steps
// asked before it), and the reply of every Ask, in order (AppendAsk).
// When the instance running it dies and its lease lapses, the next
// instance serving its tasks/get claims it (Claim, at most
// ToolOptions.TaskRestarts times) and the interpreter runs Run again from
// the start: each Ask already answered returns the recorded reply at once
// (Replay), the person is not asked again; an Ask of other steps than
// recorded fails the task (ErrReplayDiverged); the first Ask past the
// record asks the person, as the first run would have.

// ErrReplayDiverged fails a restarted task whose Run asked other steps
// than its first run did at the same point.
func ErrReplayDiverged(asked, recorded []string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
		"this task was restarted after its server stopped, and asked %s where it had asked %s: it cannot go on; call the tool again",
		strings.Join(asked, ", "), strings.Join(recorded, ", "))}
}

// Replay gives a restarted run's Asks their recorded replies, in order.
type Replay struct {
	Asked []backend.RecordedAsk
	n     int // the Asks so far
}

// Next is the recorded reply to the run's next Ask, of the steps keys:
// nil once the record is used up, an ErrReplayDiverged when the first
// run asked other steps at this point.
func (r *Replay) Next(keys []string) (*backend.RecordedAsk, error) {
	i := r.n
	r.n++
	if i >= len(r.Asked) {
		return nil, nil
	}
	rec := &r.Asked[i]
	if !slices.Equal(keys, rec.Steps) {
		return nil, ErrReplayDiverged(keys, rec.Steps)
	}
	return rec, nil
}

// AppendAsk appends the reply entry to a restartable task's record; a
// record that holds backend.MaxRecordedAsks replies is no longer
// restartable, so that it stays small.
func (j *Job) AppendAsk(ctx context.Context, entry backend.RecordedAsk) error {
	_, err := j.update(ctx, func(rec *backend.TaskRecord) error {
		if rec.Status.Terminal() {
			return errEnded
		}
		switch {
		case rec.Replay == nil:
		case len(rec.Replay.Asked) >= backend.MaxRecordedAsks:
			rec.Replay = nil
		default:
			rec.Replay.Asked = append(rec.Replay.Asked, entry)
		}
		return nil
	})
	if errors.Is(err, errEnded) {
		return nil // cancelled meanwhile: Run's context ends
	}
	return err
}

// Claim takes the task id over for a new run of this instance, if its
// lease has lapsed at now() and it has restarts left (fewer than
// restarts), checked inside the store's atomic update: it counts the
// restart, leases the task for lease and names the new Runner. A task
// renewed, ended or restarted too often since it was read is returned as
// stored, with ErrLeaseHeld.
func Claim(ctx context.Context, store backend.TaskStore, id string, restarts int, lease time.Duration, now func() time.Time) (*backend.TaskRecord, error) {
	claimed, err := store.Update(ctx, id, func(r *backend.TaskRecord) error {
		if !LeaseLapsed(r, now()) || r.Replay == nil || r.Replay.Restarts >= restarts {
			return ErrLeaseHeld
		}
		r.Replay.Restarts++
		r.LeaseUntil, r.Runner = now().Add(lease), NewID()
		r.StatusMessage = "restarted after its server stopped"
		return nil
	})
	if errors.Is(err, ErrLeaseHeld) {
		rec, gerr := store.Get(ctx, id)
		if gerr != nil {
			return nil, gerr
		}
		return rec, ErrLeaseHeld
	}
	return claimed, err
}
