// Command deploy serves procserver's deploy server as an example's main
// does (procserver.Serve):
//
//	deploy -stdio                  serve on standard input and output
//	deploy -http 127.0.0.1:0       serve MCP at /mcp, logging the address
package main

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/testkit/procserver"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

func main() {
	procserver.Serve("deploy", func(keys *elicitrt.Keyring) *mcp.Server {
		return procserver.Server(&elicitrt.ToolOptions{Keys: keys})
	}, nil)
}
