package transport

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/taskrun"
)

// Hooks are how a feature above the transport serves, on an HTTPHandler,
// requests the SDK cannot serve, without the transport importing it.
// runtime's NewHTTPHandler wires internal/machine's task status streams
// (tasks.ServeListen) into Listen.
type Hooks struct {
	// Listen serves req, a subscriptions/listen request peeked from r (a
	// 2026-07-28 POST that passed the DNS-rebinding check), on the server
	// getServer returns for r, and reports whether it did; when it did
	// not, the SDK serves r. nil: the SDK serves every listen request.
	Listen func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, getServer func(*http.Request) *mcp.Server) bool
}

const httpMethodListen = taskrun.MethodListen

// serveListen offers r to the Listen hook if it is a subscriptions/listen
// request, and reports whether it was served (a body that cannot be read
// is answered here).
func (h *HTTPHandler) serveListen(w http.ResponseWriter, r *http.Request) bool {
	req, err := h.peekRequest(r)
	if err != nil {
		h.bodyError(w, err)
		return true
	}
	if req == nil || req.Method != httpMethodListen || !req.ID.IsValid() || h.hooks.Listen == nil {
		return false
	}
	return h.hooks.Listen(w, r, req, h.getServer)
}
