package runtime_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/elicitgen/elicitgen/runtime/serve"

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
		log.Fatal(server.Run(context.Background(), &serve.StdioTransport{Server: server}))
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&elicitrt.HTTPOptions{SessionTimeout: 10 * time.Minute}))
	log.Fatal(serve.NewHTTPServer("127.0.0.1:8080", mux).ListenAndServe())
}

// Rotating keys: the new key goes first (it seals new states), the old
// one stays (it still opens the states sealed before) until those have
// expired; then it is dropped. A ring refuses what would make states fail
// to open: no key, a key of the wrong size, the same key twice.
func ExampleNewKeyring() {
	oldKey, newKey := make([]byte, elicitrt.KeySize), make([]byte, elicitrt.KeySize)
	rand.Read(oldKey)
	rand.Read(newKey)
	_, err := elicitrt.NewKeyring(newKey, oldKey) // during the rotation
	fmt.Println("new, old:", err)
	_, err = elicitrt.NewKeyring(newKey, newKey)
	fmt.Println("twice:", err)
	_, err = elicitrt.NewKeyring(newKey[:16])
	fmt.Println("short:", err)
	// Output:
	// new, old: <nil>
	// twice: elicitrt: key 2 has the same key id as key 1 (duplicate key?)
	// short: elicitrt: key 1 is 16 bytes, want 32
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
