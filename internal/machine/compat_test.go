package machine_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// TestPreviousReleaseStateAsksAgain: during a rolling upgrade, a retry
// sealed by a release before questions digests (whose payload names no
// digest) lands on this one. Its answer is not taken: nothing says which
// questions it answered (docs/guide/deploys.md). The call asks the first
// question again, saying why, under its first key, and that answer
// completes.
func TestPreviousReleaseStateAsksAgain(t *testing.T) {
	keys := elicitrt.RandomKeyring()
	opts := &elicitrt.ToolOptions{Keys: keys}
	cs := hosttest.Connect(t, func() *mcp.Server { return countServer(opts) }, "memory", "modern",
		hosttest.Options{User: &hosttest.User{}, Manual: true})
	bind := seal.Binding{Tool: "count", ArgsDigest: seal.DigestArguments(json.RawMessage(`{}`))}
	// The payload the previous release sealed after asking "count" once.
	previous := []byte(`{"s":0,"r":[0],"a":[null],"q":[{"n":1}]}`)
	state, err := (*seal.Keyring)(keys).Seal(bind, 1, previous, time.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{},
		RequestState: state, InputResponses: mcp.InputResponseMap{"count": hosttest.Accept(map[string]any{"n": 4})}})
	if err != nil || len(res.InputRequests) != 1 {
		t.Fatalf("a previous release's state: %+v %v", res, err)
	}
	q, _ := res.InputRequests["count"].(*mcp.ElicitParams)
	if q == nil || !strings.HasPrefix(q.Message, machine.ToolChangedNote) {
		t.Fatalf("asked %+v, want the count question again, under its first key, with the note", res.InputRequests)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{},
		RequestState: res.RequestState, InputResponses: mcp.InputResponseMap{"count": hosttest.Accept(map[string]any{"n": 5})}})
	if err != nil || text(res) != "count 5" {
		t.Fatalf("the answer to the question asked again: %+v %v", res, err)
	}
}
