package main

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The requestedSchema of a form: precomputed at generate time, the exact
// bytes the client is sent.
func ExampleTarget_ElicitSchema() {
	fmt.Println(string(Target{}.ElicitSchema()))
	// Output:
	// {"type":"object","properties":{"environment":{"type":"string","title":"Environment","oneOf":[{"const":"dev","title":"Development"},{"const":"staging","title":"Staging"},{"const":"prod","title":"Production"}]},"notify":{"type":"boolean","title":"Notify","description":"Post in #deployments","default":false}},"required":["environment"]}
}

// Decoding accepted content: typed values and defaults, or every bad
// property at once.
func ExampleTarget_DecodeElicit() {
	var t Target
	err := t.DecodeElicit(map[string]any{"environment": "staging"})
	fmt.Println(t.Environment, t.Notify, err)

	err = t.DecodeElicit(map[string]any{"environment": "moon", "notify": "yes"})
	fmt.Println(err)
	fmt.Println(err.(*elicitrt.ContentError).Reason("environment"))
	// Output:
	// staging false <nil>
	// invalid content: environment: must be one of dev, staging, prod; notify: must be a boolean
	// must be one of dev, staging, prod
}

// Registering the generated tool and calling it through the Go SDK's
// client, whose elicitation handler plays the user: asked which
// environment, the user picks staging, and the handler's Complete runs.
func ExampleRegisterDeploy() {
	server := mcp.NewServer(&mcp.Implementation{Name: "deploy", Version: "v1.0.0"}, nil)
	RegisterDeploy(server, deployer{}, &elicitrt.ToolOptions{Keys: elicitrt.RandomKeyring()})

	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"environment": "staging", "notify": true}}, nil
		},
	})
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: Which environment should I deploy to?
	// Deploying api to staging and posting in #deployments.
}
