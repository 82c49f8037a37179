package tasks

import (
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/testkit/httpt"
	"github.com/elicitgen/elicitgen/internal/transport"
)

// httpTServe starts the transport on 127.0.0.1 with one server, the task
// status streams wired as runtime wires them, and returns its URL. wrap,
// if set, wraps the router (for auth middleware).
func httpTServe(t *testing.T, wrap func(http.Handler) http.Handler, setup ...func(*mcp.Server)) string {
	t.Helper()
	srv := httpt.NewServer(setup...)
	h := transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil, transport.Hooks{Listen: ServeListen})
	return httpt.Serve(t, h, wrap)
}
