package elicittest

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// A task's progress, recorded from its own updates: the kit gives the
// server its task store wrapped in a taskLog, which keeps the status
// message of every version of every task written through it (Create and
// Update), so Outcome.Progress holds each message a Run wrote, however
// briefly it showed, in the order of the task's versions. Following a
// task waits on the store (Wait) for its next version instead of sleeping
// between polls.

// taskLog is a TaskStore that keeps the status messages written through
// it, by task.
type taskLog struct {
	backend.TaskStore
	mu       sync.Mutex
	messages map[string][]versioned
}

// versioned is a status message of one version of a task.
type versioned struct {
	version uint64
	message string
}

// Unwrap returns the store the kit wraps: what the server's set-up
// checks look at (a memory store is not a shared one).
func (s *taskLog) Unwrap() backend.TaskStore { return s.TaskStore }

// Create implements backend.TaskStore.
func (s *taskLog) Create(ctx context.Context, rec *backend.TaskRecord) error {
	err := s.TaskStore.Create(ctx, rec)
	if err == nil {
		s.keep(rec.ID, 1, rec.StatusMessage)
	}
	return err
}

// Update implements backend.TaskStore.
func (s *taskLog) Update(ctx context.Context, id string, change func(*backend.TaskRecord) error) (*backend.TaskRecord, error) {
	rec, err := s.TaskStore.Update(ctx, id, change)
	if err == nil && rec != nil {
		s.keep(id, rec.Version, rec.StatusMessage)
	}
	return rec, err
}

func (s *taskLog) keep(id string, version uint64, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.messages == nil {
		s.messages = map[string][]versioned{}
	}
	s.messages[id] = append(s.messages[id], versioned{version, message})
}

// progress returns the status messages of task id, in the order of its
// versions, each once for every change: empty ones left out.
func (s *taskLog) progress(id string) []string {
	s.mu.Lock()
	kept := slices.Clone(s.messages[id])
	s.mu.Unlock()
	slices.SortStableFunc(kept, func(a, b versioned) int { return cmp.Compare(a.version, b.version) })
	var out []string
	for _, v := range kept {
		if v.message != "" && (len(out) == 0 || out[len(out)-1] != v.message) {
			out = append(out, v.message)
		}
	}
	return out
}
