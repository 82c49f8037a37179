package serve

import (
	"context"
	"net/http"
	"time"

	"github.com/elicitgen/elicitgen/internal/taskrun"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// Shutdown shuts a server down gracefully within drain plus a second: srv
// stops taking connections and finishes the requests in progress, while
// the tasks running under limits (nil: runtime.DefaultTaskLimits) get the
// drain period to finish; then the tasks still running fail with
// a JSON-RPC error saying the server shut down (docs/guide/tasks.md#leases-and-shutdown) and the connections
// still open (status streams, 2025-11-25 sessions) are closed. It returns
// the number of tasks failed. srv may be nil (a stdio server): then only
// the tasks are drained.
func Shutdown(srv *http.Server, limits *elicitrt.TaskLimits, drain time.Duration) int {
	ctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		if srv != nil && srv.Shutdown(ctx) != nil {
			_ = srv.Close() // the drain is over: streams still open end
		}
	}()
	failed := taskrun.LimiterOf(limits).Drain(ctx)
	<-closed
	return failed
}
