package machine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicitimpl"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// Instances that share the state keys serve each other's retries: two
// servers over HTTP on 127.0.0.1 that share nothing but the keys (each its
// own ToolOptions, replay guard and SDK server), every round of a flow
// sent to the other one. examples/deploy runs the same crossing between
// two processes of its binary.

// instanceServer serves "ship": a form step "target" (environment, dev or
// prod, and notify) and a confirmation "sure" asked once; it completes
// with what it shipped, from the arguments and both answers.
func instanceServer(keys *elicitrt.Keyring) *mcp.Server {
	target := json.RawMessage(`{"type":"object","properties":{"environment":{"type":"string","enum":["dev","prod"]},"notify":{"type":"boolean"}},"required":["environment"]}`)
	sure := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	form := func(schema json.RawMessage) func(string) *mcp.ElicitParams {
		return func(msg string) *mcp.ElicitParams {
			return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: schema}
		}
	}
	steps := []elicitimpl.Step{
		{Key: "target", Message: "Where to?", Mode: elicitimpl.ModeForm, Params: form(target), Check: checkTarget},
		{Key: "sure", Message: "Ship now?", Mode: elicitimpl.ModeForm, Once: true, Confirm: "ok", Params: form(sure), Check: checkOK},
	}
	m := elicitimpl.NewMachine("ship", steps, elicitimpl.Flow{
		Complete: func(ctx context.Context, req *mcp.CallToolRequest, args any, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			var in struct{ Service string }
			json.Unmarshal(req.Params.Arguments, &in)
			return elicitrt.Text(fmt.Sprintf("shipped %s to %v, notify %v", in.Service, a[0]["environment"], a[0]["notify"] == true)), nil
		},
		Ended: func(ctx context.Context, req *mcp.CallToolRequest, args any, step int, action string, a elicitimpl.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text("ended " + action), nil
		},
	}, &elicitrt.ToolOptions{Keys: keys})
	server := mcp.NewServer(&mcp.Implementation{Name: "ship", Version: "v0"}, nil)
	elicitimpl.AddTool[map[string]any](server, &mcp.Tool{Name: "ship", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"service":{"type":"string"}},"required":["service"]}`)}, m)
	return server
}

func checkTarget(c map[string]any) error {
	if e, ok := c["environment"].(string); !ok || e != "dev" && e != "prod" {
		return errors.New("invalid content: environment: must be dev or prod")
	}
	if n, ok := c["notify"]; ok {
		if _, ok := n.(bool); !ok {
			return errors.New("invalid content: notify: must be a boolean")
		}
	}
	return nil
}

func checkOK(c map[string]any) error {
	if _, ok := c["ok"].(bool); !ok {
		return errors.New("invalid content: ok: must be a boolean")
	}
	return nil
}

// twoInstances connects one manual client to each of two instances, over
// HTTP, whose keys are a and b.
func twoInstances(t *testing.T, a, b *elicitrt.Keyring) []*mcp.ClientSession {
	var sessions []*mcp.ClientSession
	for _, k := range []*elicitrt.Keyring{a, b} {
		sessions = append(sessions, hosttest.Connect(t, func() *mcp.Server { return instanceServer(k) }, "http", "modern",
			hosttest.Options{User: &hosttest.User{}, Manual: true}))
	}
	return sessions
}

// crossFlow is flow n: called on instance n%2, answered on the other,
// confirmed on the first again; it must end with exactly its own answers.
func crossFlow(ctx context.Context, sessions []*mcp.ClientSession, n int) error {
	service, notify := fmt.Sprintf("svc-%03d", n), n%3 == 0
	args := map[string]any{"service": service}
	at := func(i int) *mcp.ClientSession { return sessions[(n+i)%2] }
	first, err := at(0).CallTool(ctx, &mcp.CallToolParams{Name: "ship", Arguments: args})
	if err != nil || !first.NeedsInput() || first.InputRequests["target"] == nil {
		return fmt.Errorf("%s round 1: %+v %v", service, first, err)
	}
	second, err := at(1).CallTool(ctx, &mcp.CallToolParams{Name: "ship", Arguments: args, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{"target": hosttest.Accept(map[string]any{"environment": "prod", "notify": notify})}})
	if err != nil || !second.NeedsInput() || second.InputRequests["sure"] == nil {
		return fmt.Errorf("%s round 2: %+v %v", service, second, err)
	}
	done, err := at(2).CallTool(ctx, &mcp.CallToolParams{Name: "ship", Arguments: args, RequestState: second.RequestState,
		InputResponses: mcp.InputResponseMap{"sure": hosttest.Accept(map[string]any{"ok": true})}})
	if err != nil || done.NeedsInput() {
		return fmt.Errorf("%s round 3: %+v %v", service, done, err)
	}
	if got, want := hosttest.Text(done), fmt.Sprintf("shipped %s to prod, notify %v", service, notify); got != want {
		return fmt.Errorf("%s: got %q, want %q", service, got, want)
	}
	return nil
}

// TestTwoInstancesManyFlows: 200 concurrent three-round flows over two
// instances sharing a key, each round on the other instance, each ending
// with its own service and its own notify answer.
func TestTwoInstancesManyFlows(t *testing.T) {
	keys := elicitrt.RandomKeyring()
	sessions := twoInstances(t, keys, keys)
	const flows = 200
	errs := make(chan error, flows)
	var wg sync.WaitGroup
	for n := range flows {
		wg.Go(func() { errs <- crossFlow(t.Context(), sessions, n) })
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			if failed++; failed <= 5 {
				t.Error(err)
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d flows failed", failed, flows)
	}
}

// TestInstancesWithOtherKeys is the control: instances that do not share
// a key cannot serve each other's retries, so the test above crossed.
func TestInstancesWithOtherKeys(t *testing.T) {
	sessions := twoInstances(t, elicitrt.RandomKeyring(), elicitrt.RandomKeyring())
	if err := crossFlow(t.Context(), sessions, 0); err == nil {
		t.Fatal("a retry opened on an instance with another key")
	}
}
