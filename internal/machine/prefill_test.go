package machine_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The defaults of a call of the deploy tool (deployserver_test.go;
// docs/reference/runtime.md, "Defaults of this call"): a partial prefill
// and a re-ask's valid answers become the form's defaults, and the
// answer's values when the person leaves them out.

// property returns the schema of property name in a form's
// requestedSchema.
func property(t *testing.T, p *mcp.ElicitParams, name string) map[string]any {
	t.Helper()
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil || schema.Properties[name] == nil {
		t.Fatalf("no property %s in %s (%v)", name, raw, err)
	}
	return schema.Properties[name]
}

// TestPartialPrefillIsTheDefault: deploy called with
// {"service":"api","notify":true} asks for the target with notify
// defaulting to true, and deploys
// with notifying unless the person unchecks it.
func TestPartialPrefillIsTheDefault(t *testing.T) {
	for _, transport := range hosttest.Transports {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				for _, c := range []struct {
					reply map[string]any
					want  string
				}{
					{map[string]any{"environment": "staging"}, "Deploying api to staging and posting in #deployments."},
					{map[string]any{"environment": "staging", "notify": false}, "Deploying api to staging without notifying."},
				} {
					u := &hosttest.User{Replies: []*mcp.ElicitResult{hosttest.Accept(c.reply)}}
					cs := deploySession(t, transport, era, u)
					got, res, err := callDeploy(t, cs, map[string]any{"service": "api", "notify": true})
					if err != nil || res.IsError || got != c.want {
						t.Fatalf("reply %v: got %q %v, want %q", c.reply, got, err, c.want)
					}
					if notify := property(t, u.Asked[0], "notify"); notify["default"] != true {
						t.Errorf("notify asked with %v, want the prefilled default true", notify)
					}
					if env := property(t, u.Asked[0], "environment"); env["default"] != nil {
						t.Errorf("environment asked with a default: %v", env)
					}
				}
			})
		}
	}
}

// TestPartialPrefillSurvivesOmission: a client that leaves notify out of
// its answer (it does not fill in defaults, as the Go SDK's does) still
// deploys with the model's notify, on MRTR rounds and on 2025-11-25.
func TestPartialPrefillSurvivesOmission(t *testing.T) {
	args := map[string]any{"service": "api", "notify": true}
	const want = "Deploying api to staging and posting in #deployments."
	for _, transport := range hosttest.Transports {
		t.Run(transport+"/modern", func(t *testing.T) {
			cs := hosttest.Connect(t, newDeploy(&elicitrt.ToolOptions{Keys: deployKeys}), transport, "modern",
				hosttest.Options{User: &hosttest.User{}, Manual: true})
			first, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: args})
			if err != nil || hosttest.OnlyKey(t, first) != "target" {
				t.Fatalf("first: %+v %v", first, err)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: first.RequestState,
				InputResponses: mcp.InputResponseMap{"target": hosttest.Accept(map[string]any{"environment": "staging"})}})
			if err != nil || hosttest.Text(res) != want {
				t.Fatalf("got %+v %v, want %q", res, err, want)
			}
		})
		t.Run(transport+"/legacy", func(t *testing.T) {
			cs := rawAnswers(t, transport, func(*mcp.ElicitParams) *mcp.ElicitResult {
				return hosttest.Accept(map[string]any{"environment": "staging"})
			})
			got, _, err := callDeploy(t, cs, args)
			if err != nil || got != want {
				t.Fatalf("got %q %v, want %q", got, err, want)
			}
		})
	}
}

// TestReaskCarriesValidAnswers: after an invalid answer, the form asked
// again says what to correct and carries the answer's valid properties as
// its defaults (not the invalid one), and they stand when the corrected
// answer leaves them out.
func TestReaskCarriesValidAnswers(t *testing.T) {
	const want = "Deploying api to staging and posting in #deployments."
	bad := map[string]any{"environment": "moon", "notify": true}
	check := func(t *testing.T, p *mcp.ElicitParams) {
		t.Helper()
		if !strings.Contains(p.Message, "Please correct: environment: must be one of Development, Staging, Production.") {
			t.Errorf("asked again with %q", p.Message)
		}
		if notify := property(t, p, "notify"); notify["default"] != true {
			t.Errorf("notify asked again with %v, want the person's true as its default", notify)
		}
		if env := property(t, p, "environment"); env["default"] != nil {
			t.Errorf("environment asked again with the invalid answer as its default: %v", env)
		}
	}
	for _, transport := range hosttest.Transports {
		t.Run(transport+"/modern", func(t *testing.T) {
			cs := hosttest.Connect(t, newDeploy(&elicitrt.ToolOptions{Keys: deployKeys}), transport, "modern",
				hosttest.Options{User: &hosttest.User{}, Manual: true})
			args := map[string]any{"service": "api"}
			first, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: args})
			if err != nil || hosttest.OnlyKey(t, first) != "target" {
				t.Fatalf("first: %+v %v", first, err)
			}
			again, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: first.RequestState,
				InputResponses: mcp.InputResponseMap{"target": hosttest.Accept(bad)}})
			if err != nil || hosttest.OnlyKey(t, again) != "target.2" {
				t.Fatalf("again: %+v %v", again, err)
			}
			check(t, again.InputRequests["target.2"].(*mcp.ElicitParams))
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: again.RequestState,
				InputResponses: mcp.InputResponseMap{"target.2": hosttest.Accept(map[string]any{"environment": "staging"})}})
			if err != nil || hosttest.Text(res) != want {
				t.Fatalf("got %+v %v, want %q", res, err, want)
			}
		})
		t.Run(transport+"/legacy", func(t *testing.T) {
			var mu sync.Mutex
			var asked []*mcp.ElicitParams
			cs := rawAnswers(t, transport, func(p *mcp.ElicitParams) *mcp.ElicitResult {
				mu.Lock()
				defer mu.Unlock()
				if asked = append(asked, p); len(asked) == 1 {
					return hosttest.Accept(bad)
				}
				return hosttest.Accept(map[string]any{"environment": "staging"})
			})
			got, _, err := callDeploy(t, cs, map[string]any{"service": "api"})
			if err != nil || got != want {
				t.Fatalf("got %q %v, want %q", got, err, want)
			}
			if len(asked) != 2 {
				t.Fatalf("asked %d times, want 2", len(asked))
			}
			check(t, asked[1])
		})
	}
}

// rawAnswers connects a 2025-11-25 client over transport to deploy whose
// answers reach the server as answer writes them (legacyClient): the Go
// SDK client would check them against the schema and fill in its defaults
// first.
func rawAnswers(t *testing.T, transport string, answer func(*mcp.ElicitParams) *mcp.ElicitResult) *mcp.ClientSession {
	t.Helper()
	ct := hosttest.Transport(t, deployServer(&elicitrt.ToolOptions{Keys: deployKeys}, deployer{}), transport)
	cs := legacyClientOver(t, ct, func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) { return answer(p), nil })
	t.Cleanup(func() { cs.Close() })
	return cs
}
