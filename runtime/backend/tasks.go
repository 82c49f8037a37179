package backend

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"
)

// TaskStatus is the status of a task (io.modelcontextprotocol/tasks).
type TaskStatus string

const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether s is final: completed, failed or cancelled. A
// terminal task never changes status again.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// TaskRecord is what a TaskStore keeps of one task. Clients never write
// it: tasks/update only moves an answer under a key the task asked into
// Answers, which the task's own Run decodes with the form's decoder.
type TaskRecord struct {
	// Format is the record's format version (TaskRecordFormat when
	// written by this release); a store that serializes records keeps it.
	Format int `json:"v"`
	// ID is the task id: 128 random bits, unguessable.
	ID string `json:"id"`
	// Principal is the user the creating request acted for: every
	// tasks/* request must act for the same one, or the task is unknown
	// to it.
	Principal string `json:"p,omitempty"`
	// Tool is the tool the task runs.
	Tool          string     `json:"tool"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"msg,omitempty"`
	CreatedAt     time.Time  `json:"created"`
	UpdatedAt     time.Time  `json:"updated"`
	// Expires is CreatedAt plus the task's TTL: after it the task is
	// unknown and its work is cancelled.
	Expires      time.Time     `json:"expires"`
	PollInterval time.Duration `json:"poll,omitempty"`
	// InputRequests are the questions the task waits for, by key, as
	// sent ({"method":"elicitation/create","params":{...}}). A key leaves
	// when tasks/update answers it.
	InputRequests map[string]json.RawMessage `json:"ask,omitempty"`
	// Answers are the answers tasks/update delivered that the task's Run
	// has not taken yet, by key.
	Answers map[string]json.RawMessage `json:"ans,omitempty"`
	// Result is the completed task's tool result (with resultType).
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the failed task's JSON-RPC error object.
	Error json.RawMessage `json:"error,omitempty"`
	// Version grows by one with every change; Wait watches it.
	Version uint64 `json:"ver"`
	// LeaseUntil is when the claim of the instance running the task
	// lapses unless renewed (ToolOptions.TaskLease); zero in a record of
	// a release before leases, which never lapses.
	LeaseUntil time.Time `json:"lease,omitzero"`
	// Runner identifies the run of the task that holds the lease (random,
	// one per run): a run that finds another one's here lost the task
	// (restarted elsewhere after a partition) and stops, writing nothing.
	Runner string `json:"runner,omitempty"`
	// Trace is the trace context of the call that created the task, when
	// its Hooks are a TaskTracer (nil otherwise): W3C traceparent and
	// tracestate, which name a span, nothing of the call's content.
	Trace map[string]string `json:"trace,omitempty"`
	// Replay is what a restartable task keeps to run again on another
	// instance (taskreplay.go); nil for other tasks.
	Replay *TaskReplay `json:"replay,omitempty"`
}

// TaskRecordFormat is the format version of the records this release
// writes; it opens records of format 1 (the only one so far).
const TaskRecordFormat = 1

// Clone returns a deep copy of r.
func (r *TaskRecord) Clone() *TaskRecord {
	c := *r
	c.InputRequests = maps.Clone(r.InputRequests)
	c.Answers = maps.Clone(r.Answers)
	if r.Replay != nil {
		rp := *r.Replay
		rp.Asked = slices.Clone(rp.Asked)
		c.Replay = &rp
	}
	return &c
}

// TaskStore keeps the tasks of the servers that share it. Implementations
// must be safe for concurrent use; instances that serve one server share
// one store (see runtime/redisstore for one on Redis), so that any of them
// answers tasks/get and tasks/update for a task another one runs.
type TaskStore interface {
	// Create stores a new task (Version 1). It returns once any instance
	// sharing the store can read it: the CreateTaskResult is sent only
	// after.
	Create(ctx context.Context, rec *TaskRecord) error
	// Get returns a copy of the task, or nil when it is unknown or
	// expired.
	Get(ctx context.Context, id string) (*TaskRecord, error)
	// Update changes the task atomically: change edits a copy of the
	// current record (it may be called more than once, when another
	// update won a race); the store then sets UpdatedAt, increments
	// Version and stores it. It returns the record as stored, or nil (and
	// change is not called) when the task is unknown or expired. An error
	// of change aborts the update and is returned as is.
	Update(ctx context.Context, id string, change func(*TaskRecord) error) (*TaskRecord, error)
	// Wait returns nil when the task's Version is past version or the
	// task is gone, ctx's error when ctx ends first, or the store's error
	// (unreachable). It may return early; callers read the task again.
	Wait(ctx context.Context, id string, version uint64) error
}

// ErrTaskStoreFull is the error of Create when a MemoryTaskStore holds
// MaxTasks tasks, none of them expired or ended. (The tools/call gets a
// CodeTaskLimit error saying so.)
var ErrTaskStoreFull = errors.New("elicitrt: task store full")

// MemoryTaskStore is the in-process TaskStore, the default: one process,
// no set-up. The zero value is ready.
//
// Its memory is bounded: at most MaxTasks tasks at a time, each kept
// until it expires (its TTL, DefaultTaskTTL unless ToolOptions.TaskTTL
// says otherwise). When it is full, Create drops the expired tasks, else
// one ended task (completed, failed or cancelled): the creating
// principal's least recently changed, else anyone's. Only a store full of
// tasks that have not ended refuses, with ErrTaskStoreFull; TaskLimits
// (DefaultMaxRunningTasks below DefaultMaxTasks) keeps them fewer.
type MemoryTaskStore struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxTasks bounds the tasks kept at once; 0 means DefaultMaxTasks.
	MaxTasks int

	mu    sync.Mutex
	tasks map[string]*memoryTask
}

// DefaultMaxTasks is a MemoryTaskStore's MaxTasks by default: twice the
// runtime's DefaultMaxRunningTasks (which is defined as half of it), so that the tasks one process runs always fit,
// and ended ones keep their results until their TTL or until the room is
// needed. An ended task holds only its record (the result, at most a few
// KiB in the examples); a running or waiting one also holds its goroutines
// and what it keeps of its call: about 27 KiB of resident memory (see
// the runtime's DefaultMaxRunningTasks, which bounds them).
const DefaultMaxTasks = 8192

type memoryTask struct {
	rec     *TaskRecord
	changed chan struct{} // closed at the next change
}

var defaultTaskStore = &MemoryTaskStore{}

// DefaultTaskStore is the process-wide MemoryTaskStore that task tools use
// when ToolOptions.Tasks is nil.
func DefaultTaskStore() TaskStore { return defaultTaskStore }

func (s *MemoryTaskStore) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Create implements TaskStore.
func (s *MemoryTaskStore) Create(_ context.Context, rec *TaskRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tasks == nil {
		s.tasks = make(map[string]*memoryTask)
	}
	if len(s.tasks) >= s.limit() {
		s.makeRoom(rec.Principal)
		if len(s.tasks) >= s.limit() {
			return ErrTaskStoreFull
		}
	}
	if _, dup := s.tasks[rec.ID]; dup {
		return errors.New("elicitrt: task id in use")
	}
	c := rec.Clone()
	c.Version = 1
	s.tasks[rec.ID] = &memoryTask{rec: c, changed: make(chan struct{})}
	return nil
}

// makeRoom drops the expired tasks; if none has expired, it drops one
// ended task: principal's least recently changed, else anyone's (mu held).
func (s *MemoryTaskStore) makeRoom(principal string) {
	now := s.now()
	var oldest, oldestOwn *TaskRecord
	for id, t := range s.tasks {
		switch r := t.rec; {
		case !now.Before(r.Expires):
			s.drop(id, t)
		case !r.Status.Terminal():
			// Not ended: kept.
		case r.Principal == principal && (oldestOwn == nil || r.UpdatedAt.Before(oldestOwn.UpdatedAt)):
			oldestOwn = r
		case oldest == nil || r.UpdatedAt.Before(oldest.UpdatedAt):
			oldest = r
		}
	}
	if len(s.tasks) < s.limit() {
		return
	}
	if oldestOwn != nil {
		oldest = oldestOwn
	}
	if oldest != nil {
		s.drop(oldest.ID, s.tasks[oldest.ID])
	}
}

func (s *MemoryTaskStore) limit() int {
	if s.MaxTasks <= 0 {
		return DefaultMaxTasks
	}
	return s.MaxTasks
}

// drop forgets task id and wakes its waiters (mu held).
func (s *MemoryTaskStore) drop(id string, t *memoryTask) {
	delete(s.tasks, id)
	close(t.changed)
}

// live returns task id if it has not expired, dropping it if it has (mu
// held).
func (s *MemoryTaskStore) live(id string) *memoryTask {
	t := s.tasks[id]
	if t != nil && !s.now().Before(t.rec.Expires) {
		s.drop(id, t)
		return nil
	}
	return t
}

// Get implements TaskStore.
func (s *MemoryTaskStore) Get(_ context.Context, id string) (*TaskRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.live(id); t != nil {
		return t.rec.Clone(), nil
	}
	return nil, nil
}

// Update implements TaskStore.
func (s *MemoryTaskStore) Update(_ context.Context, id string, change func(*TaskRecord) error) (*TaskRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.live(id)
	if t == nil {
		return nil, nil
	}
	c := t.rec.Clone()
	if err := change(c); err != nil {
		return nil, err
	}
	c.ID, c.Version, c.UpdatedAt = id, t.rec.Version+1, s.now()
	t.rec = c
	close(t.changed)
	t.changed = make(chan struct{})
	return c.Clone(), nil
}

// Wait implements TaskStore.
func (s *MemoryTaskStore) Wait(ctx context.Context, id string, version uint64) error {
	s.mu.Lock()
	t := s.live(id)
	if t == nil || t.rec.Version > version {
		s.mu.Unlock()
		return nil
	}
	changed, expires := t.changed, t.rec.Expires
	s.mu.Unlock()
	var expiry <-chan time.Time
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > expires.Sub(s.now()) {
		// ctx outlives the task: wake at its expiry (a running task's
		// Await ends sooner, to renew its lease: no timer more for it).
		timer := time.NewTimer(expires.Sub(s.now()))
		defer timer.Stop()
		expiry = timer.C
	}
	select {
	case <-changed:
		return nil
	case <-expiry:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Len is the number of tasks the store holds, expired ones not dropped
// yet included.
func (s *MemoryTaskStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tasks)
}

// TaskReplay is what a restartable task's record keeps to run again.
type TaskReplay struct {
	// Call is the creating tools/call's params: its name, arguments, and
	// the client's capabilities and protocol version from _meta.
	Call json.RawMessage `json:"call"`
	// State is the flow's state when the task was created.
	State json.RawMessage `json:"state"`
	// Asked are the replies of the task's Asks, in the order asked.
	Asked []RecordedAsk `json:"asked,omitempty"`
	// Restarts counts the runs after the first.
	Restarts int `json:"restarts,omitempty"`
}

// MaxRecordedAsks bounds the Asks a restartable task's record keeps (each
// answer is at most MaxAnswersLen): a Run that asks more is no longer
// restartable, and fails like any other task if its instance stops.
const MaxRecordedAsks = 64

// RecordedAsk is one Task.Ask and its reply, by step key.
type RecordedAsk struct {
	Steps []string `json:"steps"`
	// Outcome is "accept", "decline" or "cancel" (the runtime's Outcome).
	Outcome string `json:"outcome"`
	// Step is the step declined or cancelled.
	Step string `json:"step,omitempty"`
	// Contents are the accepted contents, by step.
	Contents map[string]map[string]any `json:"contents,omitempty"`
}
