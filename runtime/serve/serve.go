// Package serve is how an elicitgen server meets its clients: over
// streamable HTTP (NewHTTPHandler, for clients of both protocol eras, with
// NewHTTPServer's timeouts), over standard input and output
// (StdioTransport), and the graceful Shutdown of both. What the handler is
// configured with, runtime.HTTPOptions, and the tools' own options are in
// package runtime.
package serve

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/tasks"
	"github.com/elicitgen/elicitgen/internal/transport"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// HTTPHandler is one MCP streamable HTTP endpoint that serves clients of
// both protocol eras: each request goes to a stateless handler for the
// 2026-07-28 protocol or to a session of the 2025-11-25 one
// (docs/reference/runtime.md#http).
type HTTPHandler struct {
	h *transport.HTTPHandler
}

// NewHTTPHandler serves the server getServer returns for a request over
// streamable HTTP (docs/reference/runtime.md#http). opts may be nil.
func NewHTTPHandler(getServer func(*http.Request) *mcp.Server, opts *elicitrt.HTTPOptions) *HTTPHandler {
	// The task status streams plug into the transport's hook: the
	// transport does not import the tasks.
	return &HTTPHandler{transport.NewHTTPHandler(getServer, opts, transport.Hooks{Listen: tasks.ServeListen})}
}

// ServeHTTP serves one request.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.h.ServeHTTP(w, r) }

// NewHTTPServer is an http.Server for h on addr with the timeouts a public
// server needs.
func NewHTTPServer(addr string, h http.Handler) *http.Server { return transport.NewHTTPServer(addr, h) }
