// Command conformance is an MCP server built only from elicitgen's generated
// code and runtime that implements the fixture tools of the official
// conformance suite's SEP-2322 (multi round-trip requests) server scenarios.
//
//	conformance -http 127.0.0.1:PORT   MCP at /mcp, both protocol eras
//	conformance -stdio
//
// ELICITGEN_STATE_KEYS holds the state keys (base64, comma-separated).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

func newServer(opts *elicitrt.ToolOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "elicitgen-conformance", Version: "v1.0.0"}, nil)
	RegisterElicitation(s, elicitation{}, opts)
	RegisterMultiRound(s, multiRound{}, opts)
	RegisterRequestState(s, requestState{}, opts)
	RegisterTamperedState(s, tamperedState{}, opts)
	return s
}

func main() {
	stdio := flag.Bool("stdio", false, "serve on standard input and output")
	addr := flag.String("http", "", "serve streamable HTTP at this address, MCP at /mcp")
	flag.Parse()
	switch {
	case *stdio:
		if err := newServer(nil).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
	case *addr != "":
		server := newServer(nil)
		mux := http.NewServeMux()
		mux.Handle("/mcp", elicitrt.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
		log.Printf("conformance: serving MCP at http://%s/mcp", *addr)
		log.Fatal(http.ListenAndServe(*addr, mux))
	default:
		fmt.Fprintln(os.Stderr, "usage: conformance -stdio | -http 127.0.0.1:PORT")
		os.Exit(2)
	}
}
