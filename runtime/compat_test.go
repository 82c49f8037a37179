package runtime_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/mcptest"
	"github.com/elicitgen/elicitgen/internal/seal"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// TestPreviousReleaseStateOpens: during a rolling upgrade, a retry sealed
// by the previous release (whose state payload had no flow identity and no
// list of the round's questions) lands on this one: its answer is taken as
// the answer to the question that state asked, and the call completes.
func TestPreviousReleaseStateOpens(t *testing.T) {
	keys := elicitrt.RandomKeyring()
	opts := &elicitrt.ToolOptions{Keys: keys}
	cs := mcptest.Connect(t, func() *mcp.Server { return countServer(opts) }, "memory", "modern",
		mcptest.Options{User: &mcptest.User{}, Manual: true})
	bind := seal.Binding{Tool: "count", ArgsDigest: seal.DigestArguments(json.RawMessage(`{}`))}
	// The payload the previous release sealed after asking "count" once.
	previous := []byte(`{"s":0,"a":[null],"q":[{"n":1}]}`)
	state, err := keys.Seal(bind, 1, previous, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{},
		RequestState: state, InputResponses: mcp.InputResponseMap{"count": mcptest.Accept(map[string]any{"n": 4})}})
	if err != nil || text(res) != "count 4" {
		t.Fatalf("a previous release's state: %+v %v", res, err)
	}
}
