// Command conformance is an MCP server built only from elicitgen's generated
// code and runtime that implements the fixture tools of the official
// conformance suite's SEP-2322 (multi round-trip requests) server scenarios.
//
//	conformance -http 127.0.0.1:PORT   MCP at /mcp, both protocol eras
//	conformance -stdio
//
// ELICITGEN_STATE_KEYS holds the state keys (base64, comma-separated); a
// malformed value is reported in one line at start, with exit status 1.
// Stdio survives malformed lines (serve.StdioTransport); HTTP is served
// with timeouts (serve.NewHTTPServer).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/elicitgen/elicitgen/runtime/serve"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

func newServer(opts *elicitrt.ToolOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "elicitgen-conformance", Version: "v1.0.0"}, nil)
	RegisterElicitation(s, elicitation{}, opts)
	RegisterMultiRound(s, multiRound{}, opts)
	RegisterRequestState(s, requestState{}, opts)
	RegisterTamperedState(s, tamperedState{}, opts)
	RegisterCapabilities(s, capabilities{}, opts)
	RegisterMultipleInputs(s, multipleInputs{}, opts)
	RegisterToolsCallElicitation(s, toolsCallElicitation{}, opts)
	RegisterSEP1034Defaults(s, sep1034Defaults{}, opts)
	RegisterSEP1330Enums(s, sep1330Enums{}, opts)
	RegisterPrompt(s, prompt{}, opts)
	RegisterNotes(s, notes{}, opts)
	RegisterGreet(s, greet{}, opts)
	RegisterSlowCompute(s, slowCompute{}, opts)
	RegisterFailingJob(s, failingJob{}, opts)
	RegisterProtocolErrorJob(s, protocolErrorJob{}, opts)
	RegisterConfirmDelete(s, confirmDelete{}, opts)
	RegisterMultiInput(s, multiInput{}, opts)
	RegisterToolWithTask(s, toolWithTask{}, opts)
	return s
}

func main() {
	stdio := flag.Bool("stdio", false, "serve on standard input and output")
	addr := flag.String("http", "", "serve streamable HTTP at this address, MCP at /mcp")
	flag.Parse()
	if !*stdio && *addr == "" {
		fmt.Fprintln(os.Stderr, "usage: conformance -stdio | -http 127.0.0.1:PORT")
		os.Exit(2)
	}
	keys, err := elicitrt.LoadKeyring()
	if err != nil {
		fmt.Fprintf(os.Stderr, "conformance: %v\n", err)
		os.Exit(1)
	}
	server := newServer(&elicitrt.ToolOptions{Keys: keys})
	if *stdio {
		if err := server.Run(context.Background(), &serve.StdioTransport{Server: server}); err != nil {
			log.Fatalf("conformance: %v", err)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("conformance: %v", err)
	}
	log.Printf("conformance: serving MCP at http://%s/mcp", ln.Addr())
	log.Fatalf("conformance: %v", serve.NewHTTPServer(*addr, mux).Serve(ln))
}
