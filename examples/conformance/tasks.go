package main

// The fixture tools of the suite's tasks scenarios (SEP-2663, the
// io.modelcontextprotocol/tasks extension): tasks-lifecycle,
// -capability-negotiation, -wire-fields, -request-state-removal,
// -mrtr-input, -request-headers, -dispatch-and-envelope,
// -status-notifications, -required-task-error and -mrtr-composition.

// GreetArgs names whom to greet.
type GreetArgs struct {
	Name string `json:"name"`
}

// Greet is sync-only: it never runs as a task.
//
//elicit:tool greet
type Greet struct {
	Args GreetArgs
}

// SlowComputeArgs say how long the work takes.
type SlowComputeArgs struct {
	Seconds float64 `json:"seconds"`
	Label   string  `json:"label,omitempty"`
}

// SlowCompute sleeps for the given seconds, then answers; a task when the
// client declares the extension (cancelled by tasks/cancel), in the
// foreground otherwise.
//
//elicit:tool slow_compute
//elicit:task optional
type SlowCompute struct {
	Args SlowComputeArgs
}

// FailingJob always ends in a tool execution error (isError) after about
// a second; it runs only as a task.
//
//elicit:tool failing_job
//elicit:task required
type FailingJob struct {
	Args NoArgs
}

// ProtocolErrorJob panics: its task fails with a JSON-RPC internal error.
//
//elicit:tool protocol_error_job
//elicit:task optional
type ProtocolErrorJob struct {
	Args NoArgs
}

// DeleteArgs name the file to delete.
type DeleteArgs struct {
	Filename string `json:"filename"`
}

// DeleteConfirmation asks before deleting.
type DeleteConfirmation struct {
	Confirm bool `elicit:"confirm,required"`
}

// ConfirmDelete asks, while its task runs, whether to delete the file.
//
//elicit:tool confirm_delete
//elicit:task optional
type ConfirmDelete struct {
	Args    DeleteArgs
	Confirm DeleteConfirmation `elicit:"confirm,message=Delete the file?,during"`
}

// TaskName asks for a name, inside a task.
type TaskName struct {
	Name string `elicit:"name,required"`
}

// TaskConfirmation asks for a yes or no, inside a task.
type TaskConfirmation struct {
	Confirm bool `elicit:"confirm,required"`
}

// MultiInput asks two questions at once while its task runs.
//
//elicit:tool multi_input
//elicit:task optional
type MultiInput struct {
	Args    NoArgs
	Name    TaskName         `elicit:"name,message=What name should the record have?,during"`
	Confirm TaskConfirmation `elicit:"confirm,message=Create the record?,during,together"`
}

// ToolWithTask asks a name by MRTR, then runs as a task whose result
// greets that name.
//
//elicit:tool test_tool_with_task
//elicit:task required
type ToolWithTask struct {
	Args     NoArgs
	UserName UserName `elicit:"user_name,message=What is your name?"`
}
