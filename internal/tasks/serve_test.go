package tasks

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/elicitgen/elicitgen/internal/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpTServe starts the transport on 127.0.0.1 with one server, the task
// status streams wired as runtime wires them, and returns its URL. wrap,
// if set, wraps the router (for auth middleware).
func httpTServe(t *testing.T, wrap func(http.Handler) http.Handler, setup ...func(*mcp.Server)) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "httpt", Version: "v0.0.1"}, nil)
	for _, f := range setup {
		f(srv)
	}
	var h http.Handler = transport.NewHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil, transport.Hooks{Listen: ServeListen})
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL
}
