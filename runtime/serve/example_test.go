package serve_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/serve"
)

// One endpoint for both protocol eras: a 2026-07-28 client and a
// 2025-11-25 one call the same server at the same URL.
func ExampleNewHTTPHandler() {
	server := mcp.NewServer(&mcp.Implementation{Name: "hello", Version: "v1.0.0"}, nil)
	type args struct {
		Name string `json:"name"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Greets someone."},
		func(ctx context.Context, req *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
			return elicitrt.Text("Hello, " + a.Name + " (" + req.Session.InitializeParams().ProtocolVersion + ")"), nil, nil
		})
	ts := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer ts.Close()

	ctx := context.Background()
	for _, version := range []string{"", "2025-11-25"} { // "": the client's newest
		client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, nil)
		var sopts *mcp.ClientSessionOptions
		if version != "" {
			sopts = &mcp.ClientSessionOptions{ProtocolVersion: version}
		}
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, sopts)
		if err != nil {
			log.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada"}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
		cs.Close()
	}
	// Output:
	// Hello, Ada (2026-07-28)
	// Hello, Ada (2025-11-25)
}
