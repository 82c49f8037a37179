// Command report serves procserver's report server as an example's main
// does (procserver.Serve), over HTTP to callers with a bearer token, which
// is their user id:
//
//	report -http 127.0.0.1:0 [-max-tasks-per-user N] [-max-running-tasks N]
package main

import (
	"context"
	"flag"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/testkit/procserver"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// bearer is stand-in MCP authentication: the token is the user id.
func bearer(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	if token == "" {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: token, Expiration: time.Now().Add(time.Hour)}, nil
}

func main() {
	limits := &elicitrt.TaskLimits{}
	flag.IntVar(&limits.PerPrincipal, "max-tasks-per-user", elicitrt.DefaultMaxTasksPerPrincipal, "tasks one user may have running or waiting")
	flag.IntVar(&limits.MaxRunning, "max-running-tasks", elicitrt.DefaultMaxRunningTasks, "tasks this process runs at once")
	procserver.Serve("report", func(keys *elicitrt.Keyring) *mcp.Server {
		return procserver.ReportServer(&elicitrt.ToolOptions{Keys: keys, TaskLimits: limits})
	}, auth.RequireBearerToken(bearer, nil))
}
