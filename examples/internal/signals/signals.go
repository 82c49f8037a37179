// Package signals runs an example's HTTP server until SIGTERM or SIGINT,
// then shuts it down gracefully with serve.Shutdown, as a server of
// elicitgen would (docs/guide/tasks.md#leases-and-shutdown): one wiring for
// every example.
package signals

import (
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/elicitgen/elicitgen/runtime/serve"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// Register adds -drain to fs: how long running requests and tasks get to
// finish after SIGTERM or SIGINT.
func Register(fs *flag.FlagSet) *time.Duration {
	return fs.Duration("drain", 10*time.Second, "on SIGTERM or SIGINT, how long running requests and tasks get to finish (the process exits within it and a second)")
}

// HTTP serves h on ln (an http.Server from serve.NewHTTPServer) until
// SIGTERM or SIGINT; then serve.Shutdown stops it taking connections
// and new tasks, gives the tasks running under limits (nil: the default)
// drain to finish, and hands the rest back or fails them. It returns nil
// once shut down, within drain and a second of the signal, or Serve's
// error.
func HTTP(name string, ln net.Listener, h http.Handler, limits *elicitrt.TaskLimits, drain time.Duration) error {
	hs := serve.NewHTTPServer(ln.Addr().String(), h)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	stopped := make(chan int, 1)
	go func() {
		<-sig
		log.Printf("%s: shutting down; running requests and tasks get %v to finish", name, drain)
		stopped <- serve.Shutdown(hs, limits, drain)
	}()
	log.Printf("%s: serving MCP at http://%s/mcp", name, ln.Addr())
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Printf("%s: stopped; %d tasks stopped at shutdown (handed back to the other instances, or failed)", name, <-stopped)
	return nil
}
