// Package transport serves MCP servers over streamable HTTP, to clients of
// both protocol eras (HTTPHandler: the router, request peeking, the body
// checks, the legacy sessions), and over standard input and output
// (StdioTransport). runtime re-exports what a server author uses.
//
// It imports internal/machine and nothing above it: the machine's
// LegacyAsks hook is how a legacy session ends the questions asked on it,
// and the tasks' status streams plug in through Hooks, which runtime's
// NewHTTPHandler wires (docs/design/history.md#tasks-and-transports).
package transport
