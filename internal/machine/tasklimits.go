package machine

import (
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitgen/elicitgen/runtime/backend"
)

// Bounds on tasks (docs/tasks.md#bounds). A task that runs or waits for an
// answer is two goroutines in the process whose tools/call created it,
// whatever the TaskStore, so the bounds are the process's: TaskLimits
// counts the tasks this process runs, in all, per principal, and the
// status streams each principal holds open. An ended task (completed,
// failed, cancelled) counts against nothing.

// Defaults of TaskLimits.
const (
	// DefaultMaxRunningTasks bounds the tasks running or waiting in one
	// process. A task waiting for an answer costs the process 67 to 68 KiB
	// of resident memory over HTTP (examples/report
	// BenchmarkWaitingTaskRSS: VmRSS of the built server, 2,000 tasks), 54
	// to 62 KiB in memory (BenchmarkWaitingTask; 18.8 KB of it live heap,
	// 11.6 KB stacks); so at the bound a flood of tasks holds about
	// 270 MiB (4,096 × 68 KiB).
	DefaultMaxRunningTasks = backend.DefaultMaxTasks / 2
	// DefaultMaxTasksPerPrincipal bounds the tasks of one principal
	// running or waiting in one process.
	DefaultMaxTasksPerPrincipal = 100
	// DefaultMaxTaskStreamsPerPrincipal bounds the status streams
	// (subscriptions/listen with taskIds) one principal holds open on one
	// process; each follows up to MaxListenTaskIDs tasks.
	DefaultMaxTaskStreamsPerPrincipal = 8
)

// CodeTaskLimit is the JSON-RPC error code of a refusal by a task bound
// (-32029, as HTTP's 429 Too Many Requests): the message names the bound
// and what to do; data is {"limit": NAME, "max": N} (no max for
// LimitTaskStore).
const CodeTaskLimit = -32029

// Names of the bounds, in the data of a CodeTaskLimit error.
const (
	LimitRunningTasks            = "runningTasks"
	LimitTasksPerPrincipal       = "tasksPerPrincipal"
	LimitTaskStreamsPerPrincipal = "taskStreamsPerPrincipal"
	LimitTaskStore               = "taskStore"
	LimitShuttingDown            = "shuttingDown"
)

// TaskLimits bounds the tasks of the task tools that share it, and their
// status streams. Share one per process (ToolOptions.TaskLimits; the
// default, DefaultTaskLimits, is): each process sharing a TaskStore bounds
// its own. The zero value is ready; set the bounds before first use.
type TaskLimits struct {
	// MaxRunning bounds the tasks running or waiting, of every
	// principal; 0 means DefaultMaxRunningTasks.
	MaxRunning int
	// PerPrincipal bounds those of one principal (ToolOptions.Principal,
	// by default the bearer token's user; all unauthenticated callers are
	// one principal, ""); 0 means DefaultMaxTasksPerPrincipal.
	PerPrincipal int
	// StreamsPerPrincipal bounds the status streams one principal holds
	// open; 0 means DefaultMaxTaskStreamsPerPrincipal.
	StreamsPerPrincipal int

	mu      sync.Mutex
	running int
	owned   map[string]int         // by principal: tasks not ended
	streams map[string]int         // by principal: open status streams
	tickets map[string]*taskTicket // by task id: the tasks running here
	// draining: Drain was called; no task is admitted any more.
	draining bool
	// stopping: Drain's period is over; every task still running is
	// stopped.
	stopping bool
}

var defaultTaskLimits = &TaskLimits{}

// DefaultTaskLimits is the process-wide TaskLimits task tools use when
// ToolOptions.TaskLimits is nil.
func DefaultTaskLimits() *TaskLimits { return defaultTaskLimits }

func orDefault(n, d int) int {
	if n <= 0 {
		return d
	}
	return n
}

// taskTicket is one running task's place under the bounds: counted
// against its principal until the task ends, and against the process
// until its goroutines return.
type taskTicket struct {
	l         *TaskLimits
	id        string
	principal string
	owned     bool // still counted against principal (l.mu)
	// stop ends the task at shutdown (set by start; l.mu).
	stop func()
	// done is closed when the task no longer runs here (release).
	done chan struct{}
}

// admit counts a new task id of principal, or refuses it with a
// CodeTaskLimit error.
func (l *TaskLimits) admit(principal, id string) (*taskTicket, *jsonrpc.Error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.draining {
		return nil, limitError(LimitShuttingDown, 0, "the server is shutting down and takes no new tasks; call again")
	}
	if max := orDefault(l.PerPrincipal, DefaultMaxTasksPerPrincipal); l.owned[principal] >= max {
		return nil, limitError(LimitTasksPerPrincipal, max, fmt.Sprintf(
			"too many tasks: you have %d tasks running or waiting for an answer, the most one user may have; wait for one to end, or cancel one with tasks/cancel, and call again", max))
	}
	if max := orDefault(l.MaxRunning, DefaultMaxRunningTasks); l.running >= max {
		return nil, limitError(LimitRunningTasks, max, fmt.Sprintf(
			"the server is busy: it runs %d tasks, the most it may; call again later", max))
	}
	if l.owned == nil {
		l.owned, l.tickets = map[string]int{}, map[string]*taskTicket{}
	}
	l.owned[principal]++
	l.running++
	t := &taskTicket{l: l, id: id, principal: principal, owned: true, done: make(chan struct{})}
	l.tickets[id] = t
	return t, nil
}

// ended stops counting the task against its principal: it ended
// (completed, failed, cancelled or expired). Its goroutines may still be
// returning. Idempotent.
func (t *taskTicket) ended() {
	t.l.mu.Lock()
	defer t.l.mu.Unlock()
	t.disown()
}

// disown is ended with l.mu held.
func (t *taskTicket) disown() {
	if !t.owned {
		return
	}
	t.owned = false
	if t.l.owned[t.principal]--; t.l.owned[t.principal] == 0 {
		delete(t.l.owned, t.principal)
	}
}

// release stops counting the task at all: its goroutines have returned
// (or it was never created).
func (t *taskTicket) release() {
	t.l.mu.Lock()
	defer t.l.mu.Unlock()
	t.disown()
	if t.l.tickets[t.id] == t {
		delete(t.l.tickets, t.id)
		t.l.running--
		close(t.done)
	}
}

// TaskEnded stops counting task id against its principal if it runs
// here: tasks/cancel ended it.
func (l *TaskLimits) TaskEnded(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.tickets[id]; t != nil {
		t.disown()
	}
}

// OpenStream counts a status stream of principal until close is called,
// or refuses it with a CodeTaskLimit error.
func (l *TaskLimits) OpenStream(principal string) (close func(), refused *jsonrpc.Error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if max := orDefault(l.StreamsPerPrincipal, DefaultMaxTaskStreamsPerPrincipal); l.streams[principal] >= max {
		return nil, limitError(LimitTaskStreamsPerPrincipal, max, fmt.Sprintf(
			"too many status streams: you have %d subscriptions/listen streams with taskIds open, the most one user may have; close one, or follow up to %d tasks on one stream", max, MaxListenTaskIDs))
	}
	if l.streams == nil {
		l.streams = map[string]int{}
	}
	l.streams[principal]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.streams[principal]--; l.streams[principal] == 0 {
			delete(l.streams, principal)
		}
	}, nil
}

// limitError is the CodeTaskLimit error of bound name.
func limitError(name string, max int, message string) *jsonrpc.Error {
	data := map[string]any{"limit": name}
	if max > 0 {
		data["max"] = max
	}
	return &jsonrpc.Error{Code: CodeTaskLimit, Message: message, Data: MustJSON(data)}
}

// errTaskStoreFull is the refusal of a task when its MemoryTaskStore holds
// MaxTasks tasks, none of them ended.
func errTaskStoreFull() *jsonrpc.Error {
	return limitError(LimitTaskStore, 0, "the server's task store is full of tasks that have not ended; call again later")
}

// Running is the number of tasks running or waiting in this process.
func (l *TaskLimits) Running() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running
}

// Streams is the number of status streams principal holds open.
func (l *TaskLimits) Streams(principal string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.streams[principal]
}
