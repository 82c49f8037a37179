package runtime

// URLStep is the type of a URL step in a tool declaration, and its answer:
// the flow that finished. The grant it produced is in the GrantStore,
// under the user and the step's key.
type URLStep struct {
	// Flow is the flow's identifier.
	Flow string
}

// TaskLimits bounds the tasks of the task tools that share it, and their
// status streams. Share one per process (ToolOptions.TaskLimits; the
// default, DefaultTaskLimits, is): each process sharing a TaskStore bounds
// its own. The zero value is ready; set the bounds before first use.
// serve.Shutdown drains the tasks running under it.
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
}

var defaultTaskLimits = &TaskLimits{}

// DefaultTaskLimits is the process-wide TaskLimits task tools use when
// ToolOptions.TaskLimits is nil.
func DefaultTaskLimits() *TaskLimits { return defaultTaskLimits }

// Defaults of TaskLimits.
const (
	// DefaultMaxRunningTasks bounds the tasks running or waiting in one
	// process. A task waiting for an answer costs the process 23 to 27 KiB
	// of resident memory over HTTP (internal/tasks
	// BenchmarkWaitingTaskRSS: VmRSS of the built server, 2,000 tasks), 26
	// to 35 KiB in memory (BenchmarkWaitingTask; 6.4 to 6.8 KB of it live
	// heap, 4.1 KB stack: one goroutine); so at the bound a flood of tasks holds
	// about 110 MiB (4,096 × 27 KiB).
	DefaultMaxRunningTasks = 4096
	// DefaultMaxTasksPerPrincipal bounds the tasks of one principal
	// running or waiting in one process.
	DefaultMaxTasksPerPrincipal = 100
	// DefaultMaxTaskStreamsPerPrincipal bounds the status streams
	// (subscriptions/listen with taskIds) one principal holds open on one
	// process; each follows up to MaxListenTaskIDs tasks.
	DefaultMaxTaskStreamsPerPrincipal = 8
)
