package runtime_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// A server's main: the keys from ELICITGEN_STATE_KEYS, checked at start;
// the generated RegisterX functions take them in ToolOptions; then stdio,
// or one HTTP endpoint for clients of both protocol eras.
func Example() {
	keys, err := elicitrt.LoadKeyring()
	if err != nil {
		fmt.Fprintln(os.Stderr, "myserver:", err) // one line naming the fix
		os.Exit(1)
	}
	opts := &elicitrt.ToolOptions{Keys: keys}
	server := mcp.NewServer(&mcp.Implementation{Name: "myserver", Version: "v1.0.0"}, nil)
	_ = opts // RegisterDeploy(server, deployer{}, opts), and the other generated tools

	if len(os.Args) > 1 && os.Args[1] == "-stdio" {
		log.Fatal(server.Run(context.Background(), &elicitrt.StdioTransport{Server: server}))
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", elicitrt.NewHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&elicitrt.HTTPOptions{SessionTimeout: 10 * time.Minute}))
	log.Fatal(elicitrt.NewHTTPServer("127.0.0.1:8080", mux).ListenAndServe())
}

// Rotating keys: the new key goes first (it seals), the old one stays
// (it still opens the states sealed before) until those have expired.
func ExampleNewKeyring() {
	oldKey, newKey := make([]byte, elicitrt.KeySize), make([]byte, elicitrt.KeySize)
	rand.Read(oldKey)
	rand.Read(newKey)
	before, _ := elicitrt.NewKeyring(oldKey)
	during, _ := elicitrt.NewKeyring(newKey, oldKey)
	after, _ := elicitrt.NewKeyring(newKey)

	b := elicitrt.Binding{Tool: "deploy", Principal: "alice"}
	now := time.Now()
	state, _ := before.Seal(b, 1, []byte(`{"s":1}`), now, elicitrt.DefaultStateTTL)

	_, payload, err := during.Open(b, state, now)
	fmt.Printf("during rotation: %s %v\n", payload, err)
	_, _, err = after.Open(b, state, now)
	fmt.Println("old key dropped:", err)
	_, _, err = during.Open(elicitrt.Binding{Tool: "deploy", Principal: "mallory"}, state, now)
	fmt.Println("another user:", err)
	// Output:
	// during rotation: {"s":1} <nil>
	// old key dropped: invalid or expired requestState
	// another user: invalid or expired requestState
}

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
	ts := httptest.NewServer(elicitrt.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
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

// A ReplayGuard claims an id once; instances that serve one tool share one
// (see package redisstore).
func ExampleMemoryReplayGuard() {
	var guard elicitrt.MemoryReplayGuard
	ctx := context.Background()
	first, _ := guard.Claim(ctx, "flow-1", time.Minute)
	again, _ := guard.Claim(ctx, "flow-1", time.Minute)
	fmt.Println(first, again)
	// Output: true false
}

// What a generated DecodeElicit returns for content that does not fit the
// form: every bad property, with its reason.
func ExampleContentError() {
	var err error = &elicitrt.ContentError{Fields: []elicitrt.FieldError{
		{Property: "environment", Reason: "must be one of dev, staging, prod"},
		{Property: "notify", Reason: "must be a boolean"},
	}}
	var ce *elicitrt.ContentError
	if errors.As(err, &ce) {
		fmt.Println(err)
		fmt.Println(ce.Reason("notify"))
	}
	// Output:
	// invalid content: environment: must be one of dev, staging, prod; notify: must be a boolean
	// must be a boolean
}
