// Package taskrun is the task runtime below the interpreter: a Job runs
// one task on this instance (the record's side of its asks, its updates
// fenced to its run and retried through a store outage, the watcher that
// renews its lease, Drain's hand-back, how its Run ends), Replay and Claim
// restart a task whose instance died, a Limiter bounds the tasks one
// process runs (one per elicitrt.TaskLimits, with its tickets and the
// drain at shutdown), leases fail a task nobody runs, the status messages
// say what a record shows, and the seams the Tasks wire shares with the
// interpreter (TaskSlot, the methods). The records and their stores are
// the contract of runtime/backend; what a task asks and how its answers
// are judged are rounds of the interpreter (internal/machine, whose Task
// a Run holds); the wire that serves tasks/* is internal/tasks, above
// both.
package taskrun
