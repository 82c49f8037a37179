package machine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
	"github.com/elicitgen/elicitgen/internal/seal"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
)

// TestSettleBeforeComplete: Complete never sees a step the person did not
// answer. The server's own key seals states that claim both steps of a
// two-count flow are done (as a runtime bug, or a decoder made stricter
// by an upgrade, could leave them): one with the first answer missing
// though nothing skipped it, one with a first answer its decoder now
// refuses. Each is asked the first count again, under its next key (the
// refused one with the decoder's reason), and completes with the answer
// to that question; a step the state says the handler skipped
// (ask=handler) reaches Complete as nil.
func TestSettleBeforeComplete(t *testing.T) {
	keys := elicitrt.RandomKeyring()
	steps := []elicitimpl.Step{countStep(), countStep()}
	steps[1].Key = "again"
	var got []string
	server := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "count", Version: "v0"}, nil)
		m := elicitimpl.NewMachine("count", steps, elicitimpl.Flow{
			Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
				b, _ := json.Marshal(a)
				got = append(got, string(b))
				return elicitrt.Text(string(b)), nil
			},
		}, &elicitrt.ToolOptions{Keys: keys})
		elicitimpl.AddTool[noArgs](s, &mcp.Tool{Name: "count", InputSchema: json.RawMessage(`{"type":"object"}`)}, m)
		return s
	}
	bind := seal.Binding{Tool: "count", ArgsDigest: seal.DigestArguments(json.RawMessage(`{}`))}
	v := machine.QuestionsDigest(steps)
	for _, transport := range hosttest.Transports {
		cs := hosttest.Connect(t, server, transport, "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
		for _, c := range []struct{ name, payload, reason string }{
			{"missing", `{"v":"` + v + `","s":2,"a":[null,{"n":4}],"q":[{"n":1},{"n":1}]}`, ""},
			{"refused", `{"v":"` + v + `","s":2,"a":[{"n":40},{"n":4}],"q":[{"n":1},{"n":1}]}`, "Please correct: n: must be an integer from 1 to 9."},
		} {
			got = nil
			state, err := (*seal.Keyring)(keys).Seal(bind, 2, []byte(c.payload), time.Now(), 0)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{}, RequestState: state})
			if err != nil || got != nil {
				t.Fatalf("%s/%s: Complete got %v (%v)", transport, c.name, got, err)
			}
			q, _ := res.InputRequests["count.2"].(*mcp.ElicitParams)
			if len(res.InputRequests) != 1 || q == nil || !strings.HasSuffix(q.Message, c.reason) {
				t.Fatalf("%s/%s: asked %v, want count.2 again ending %q", transport, c.name, res.InputRequests, c.reason)
			}
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{},
				RequestState: res.RequestState, InputResponses: mcp.InputResponseMap{"count.2": hosttest.Accept(map[string]any{"n": 3})}})
			if want := `[{"n":3},{"n":4}]`; err != nil || text(res) != want {
				t.Fatalf("%s/%s: %q %v, want %s", transport, c.name, text(res), err, want)
			}
		}
		skipped := fmt.Sprintf(`{"v":"%s","s":2,"a":[null,{"n":4}],"q":[{"x":true},{"n":1}]}`, v)
		state, err := (*seal.Keyring)(keys).Seal(bind, 2, []byte(skipped), time.Now(), 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "count", Arguments: map[string]any{}, RequestState: state})
		if want := `[null,{"n":4}]`; err != nil || text(res) != want {
			t.Fatalf("%s: a skipped step: %q %v, want %s", transport, text(res), err, want)
		}
	}
}
