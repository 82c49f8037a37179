package procserver

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/serve"
)

// Serve is the body of a command's main, as an example's main serves:
// with -stdio, on standard input and output (serve.StdioTransport); with
// -http ADDR, MCP at /mcp (serve.NewHTTPHandler, wrapped by wrap when it
// is set, in serve.NewHTTPServer), logging "NAME: serving MCP at URL".
// The keys come from ELICITGEN_STATE_KEYS (elicitrt.LoadKeyring): a
// malformed value stops it at start with one line on stderr and exit
// status 1. The command registers its own flags before.
func Serve(name string, newServer func(keys *elicitrt.Keyring) *mcp.Server, wrap func(http.Handler) http.Handler) {
	stdio := flag.Bool("stdio", false, "serve on standard input and output")
	addr := flag.String("http", "", "serve streamable HTTP at this address, MCP at /mcp")
	flag.Parse()
	if !*stdio && *addr == "" {
		fmt.Fprintf(os.Stderr, "usage: %s -stdio | -http 127.0.0.1:PORT\n", name)
		os.Exit(2)
	}
	keys, err := elicitrt.LoadKeyring()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	server := newServer(keys)
	if *stdio {
		if err := server.Run(context.Background(), &serve.StdioTransport{Server: server}); err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		return
	}
	var h http.Handler = serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	if wrap != nil {
		h = wrap(h)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	log.Printf("%s: serving MCP at http://%s/mcp", name, ln.Addr())
	log.Fatalf("%s: %v", name, serve.NewHTTPServer(ln.Addr().String(), mux).Serve(ln))
}
