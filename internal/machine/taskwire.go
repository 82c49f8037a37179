package machine

import (
	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// What the machine, the transport and the tasks room agree on of the
// Tasks extension's wire: its method names, and where a tools/call leaves
// the task it created.

// Tool is the name of m's tool, prompt or resource.
func (m *Machine) Tool() string { return m.tool }

// TaskSupport is whether m's tool runs as a task (//elicit:task).
func (m *Machine) TaskSupport() TaskSupport { return m.tasks }

// Options are m's options, their defaults filled in; the tasks room reads
// the task store, limits, principal rule and logger of a task tool.
func (m *Machine) Options() *elicitrt.ToolOptions { return &m.opts }
