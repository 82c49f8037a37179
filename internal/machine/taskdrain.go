package machine

import (
	"context"
	"time"
)

// stopper is how Drain stops the task: handed back if restartable, else
// failed with ErrServerShutDown; cancel ends its Run.
func (t *Task) stopper(cancel context.CancelFunc) func() {
	return func() {
		if t.m.restart != nil {
			t.handBack.Store(true)
		} else {
			t.shutDown.Store(true)
		}
		cancel()
	}
}

// releasedLease is the lease of a task handed back: long past.
var releasedLease = time.Unix(1, 0).UTC()

// releaseLease hands the task back: its lease lapses now, and the Run it
// had recorded so far stays for the next instance to replay.
func (t *Task) releaseLease(ctx context.Context) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if err := t.setLease(rctx, releasedLease); err != nil {
		t.c.log().Warn("elicitgen: cannot hand a task back at shutdown; another instance takes it once its lease lapses", "task", t.id, "err", err)
	}
}
