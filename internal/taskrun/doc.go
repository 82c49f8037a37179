// Package taskrun is the task runtime below the interpreter: the bounds on
// the tasks one process runs (Limiter, one per elicitrt.TaskLimits, with
// its tickets and the drain at shutdown), leases (a task whose instance
// died is failed, or taken over when restartable), the status messages a
// record shows, and the names and seams the Tasks wire shares with the
// interpreter (TaskSlot, the methods). The records and their stores are
// the contract of runtime/backend; the task a Run holds, and its Ask, are
// rounds of the interpreter (internal/machine); the wire that serves
// tasks/* is internal/tasks, above both.
package taskrun
