package taskrun

import (
	"context"
	"time"
)

// Drain is a graceful shutdown of the tasks this process runs under l:
// from its call no new task is admitted (a CodeTaskLimit error,
// LimitShuttingDown, which tells the client to call again: another
// instance takes it). The running tasks get until ctx ends (the drain
// period) to finish; then the Run of each one still running is cancelled:
// a restartable task is handed back (its lease released at once, so the
// next instance serving its tasks/get takes it over without waiting), any
// other fails with ErrServerShutDown. Drain waits up to a second more for
// them to record it and return, so it returns within the drain period
// plus a second, with the number of tasks it stopped. A task whose end
// cannot be recorded in that second (its store is unreachable) is taken
// over or failed later by another instance, once its lease lapses.
//
// Call it from the signal handling of the program, beside the HTTP
// server's Shutdown (runtime.Shutdown does both).
func (l *Limiter) Drain(ctx context.Context) int {
	l.mu.Lock()
	l.draining = true
	l.mu.Unlock()
	for l.Running() > 0 && pause(ctx, 20*time.Millisecond) {
	}
	stopped := l.stopAll()
	deadline := time.NewTimer(time.Second)
	defer deadline.Stop()
	for _, t := range stopped {
		select {
		case <-t.done:
		case <-deadline.C:
			return len(stopped)
		}
	}
	return len(stopped)
}

// pause waits d, and reports whether ctx is still alive after.
func pause(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// stopAll stops every task running under l, and any admitted from now on
// as soon as it starts, and returns their tickets.
func (l *Limiter) stopAll() []*Ticket {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopping = true
	stopped := make([]*Ticket, 0, len(l.tickets))
	for _, t := range l.tickets {
		if t.stop != nil {
			t.stop()
		}
		stopped = append(stopped, t)
	}
	return stopped
}

// Start sets how the task of t is stopped at shutdown; after stopAll it
// stops at once.
func (t *Ticket) Start(stop func()) {
	t.l.mu.Lock()
	defer t.l.mu.Unlock()
	t.stop = stop
	if t.l.stopping {
		stop()
	}
}
