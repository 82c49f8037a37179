package machine_test

import (
	"net/http"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The task tests of this package serve over the transport, wired as
// runtime's NewHTTPHandler wires it (see httpt_test.go).
func init() {
	machine.NewHTTPHandlerForTest = func(getServer func(*http.Request) *mcp.Server) http.Handler {
		return transport.NewHTTPHandler(getServer, nil, transport.Hooks{Listen: machine.ServeTaskListen})
	}
	machine.DefaultMaxRequestBodyBytesForTest = transport.DefaultMaxRequestBodyBytes
}
