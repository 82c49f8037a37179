// Package tasks serves the MCP Tasks extension's wire for the task tools of
// a server: tasks/get, tasks/update and tasks/cancel, the CreateTaskResult
// of a tools/call that became a task, the extension in server/discover,
// and the status stream (subscriptions/listen with taskIds) that the HTTP
// transport offers it through its Hooks. It sits beside the transport:
// neither imports the other; runtime and runtime/elicitimpl wire them.
package tasks
