package taskrun

import (
	"fmt"
	"sync"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Bounds on tasks (docs/guide/tasks.md#bounds). A task that runs is two
// goroutines, one that waits for an answer one, in the process whose
// tools/call created it,
// whatever the TaskStore, so the bounds are the process's: TaskLimits
// counts the tasks this process runs, in all, per principal, and the
// status streams each principal holds open. An ended task (completed,
// failed, cancelled) counts against nothing.

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

// Limiter is the state of the bounds of one elicitrt.TaskLimits: the
// tasks and status streams counted against them in this process
// (LimiterOf).
type Limiter struct {
	cfg *elicitrt.TaskLimits

	mu      sync.Mutex
	running int
	owned   map[string]int     // by principal: tasks not ended
	streams map[string]int     // by principal: open status streams
	tickets map[string]*Ticket // by task id: the tasks running here
	// draining: Drain was called; no task is admitted any more.
	draining bool
	// stopping: Drain's period is over; every task still running is
	// stopped.
	stopping bool
}

// limiters holds the Limiter of each TaskLimits in use: a process has
// one or a few (elicitrt.DefaultTaskLimits, or the server's own).
var limiters sync.Map

// LimiterOf is the state of the bounds l (nil: elicitrt.DefaultTaskLimits)
// in this process: the same for every tool and request that shares l, kept
// for the life of the process.
func LimiterOf(l *elicitrt.TaskLimits) *Limiter {
	if l == nil {
		l = elicitrt.DefaultTaskLimits()
	}
	if v, ok := limiters.Load(l); ok {
		return v.(*Limiter)
	}
	v, _ := limiters.LoadOrStore(l, &Limiter{cfg: l})
	return v.(*Limiter)
}

func orDefault(n, d int) int {
	if n <= 0 {
		return d
	}
	return n
}

// Ticket is one running task's place under the bounds: counted
// against its principal until the task ends, and against the process
// until its goroutines return.
type Ticket struct {
	l         *Limiter
	id        string
	principal string
	owned     bool // still counted against principal (l.mu)
	// stop ends the task at shutdown (set by start; l.mu).
	stop func()
	// done is closed when the task no longer runs here (release).
	done chan struct{}
}

// ID is the task id the ticket was admitted for.
func (t *Ticket) ID() string { return t.id }

// Admit counts a new task id of principal, or refuses it with a
// CodeTaskLimit error.
func (l *Limiter) Admit(principal, id string) (*Ticket, *jsonrpc.Error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.draining {
		return nil, limitError(LimitShuttingDown, 0, "the server is shutting down and takes no new tasks; call again")
	}
	if max := orDefault(l.cfg.PerPrincipal, elicitrt.DefaultMaxTasksPerPrincipal); l.owned[principal] >= max {
		return nil, limitError(LimitTasksPerPrincipal, max, fmt.Sprintf(
			"too many tasks: you have %d tasks running or waiting for an answer, the most one user may have; wait for one to end, or cancel one with tasks/cancel, and call again", max))
	}
	if max := orDefault(l.cfg.MaxRunning, elicitrt.DefaultMaxRunningTasks); l.running >= max {
		return nil, limitError(LimitRunningTasks, max, fmt.Sprintf(
			"the server is busy: it runs %d tasks, the most it may; call again later", max))
	}
	if l.owned == nil {
		l.owned, l.tickets = map[string]int{}, map[string]*Ticket{}
	}
	l.owned[principal]++
	l.running++
	t := &Ticket{l: l, id: id, principal: principal, owned: true, done: make(chan struct{})}
	l.tickets[id] = t
	return t, nil
}

// Ended stops counting the task against its principal: it ended
// (completed, failed, cancelled or expired). Its goroutines may still be
// returning. Idempotent.
func (t *Ticket) Ended() {
	t.l.mu.Lock()
	defer t.l.mu.Unlock()
	t.disown()
}

// disown is ended with l.mu held.
func (t *Ticket) disown() {
	if !t.owned {
		return
	}
	t.owned = false
	if t.l.owned[t.principal]--; t.l.owned[t.principal] == 0 {
		delete(t.l.owned, t.principal)
	}
}

// Release stops counting the task at all: its goroutines have returned
// (or it was never created).
func (t *Ticket) Release() {
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
func (l *Limiter) TaskEnded(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.tickets[id]; t != nil {
		t.disown()
	}
}

// OpenStream counts a status stream of principal until close is called,
// or refuses it with a CodeTaskLimit error.
func (l *Limiter) OpenStream(principal string) (close func(), refused *jsonrpc.Error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if max := orDefault(l.cfg.StreamsPerPrincipal, elicitrt.DefaultMaxTaskStreamsPerPrincipal); l.streams[principal] >= max {
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

// StoreFullError is the refusal of a task when its MemoryTaskStore holds
// MaxTasks tasks, none of them ended.
func StoreFullError() *jsonrpc.Error {
	return limitError(LimitTaskStore, 0, "the server's task store is full of tasks that have not ended; call again later")
}

// Running is the number of tasks running or waiting in this process.
func (l *Limiter) Running() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running
}

// Streams is the number of status streams principal holds open.
func (l *Limiter) Streams(principal string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.streams[principal]
}
