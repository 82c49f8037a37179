package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// user plays the person at the keyboard: it answers each elicitation with
// the next scripted reply and records what it was asked.
type user struct {
	mu      sync.Mutex
	replies []*mcp.ElicitResult
	asked   []*mcp.ElicitParams
}

func (u *user) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked = append(u.asked, req.Params)
	if len(u.replies) == 0 {
		return nil, errors.New("unexpected question: " + req.Params.Message)
	}
	r := u.replies[0]
	u.replies = u.replies[1:]
	return r, nil
}

func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

var keys = func() *elicitrt.Keyring {
	k, err := elicitrt.NewKeyring([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		panic(err)
	}
	return k
}()

// session connects a client over transport ("memory" or "http") on era
// ("modern" or "legacy"). u nil means the client declares no elicitation.
func session(t *testing.T, transport, era string, u *user) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	opts := &mcp.ClientOptions{}
	if u != nil {
		opts.ElicitationHandler = u.handle
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, opts)
	server := newServer(&elicitrt.ToolOptions{Keys: keys})
	var ct mcp.Transport
	switch transport {
	case "memory":
		st, c := mcp.NewInMemoryTransports()
		ss, err := server.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		ct = c
	case "http":
		srv := httptest.NewServer(elicitrt.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
		t.Cleanup(srv.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: srv.URL}
	}
	var sopts *mcp.ClientSessionOptions
	if era == "legacy" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	cs, err := client.Connect(ctx, ct, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, *mcp.CallToolResult, error) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: args})
	if err != nil {
		return "", nil, err
	}
	if len(res.Content) != 1 {
		t.Fatalf("want one content, got %+v", res)
	}
	return res.Content[0].(*mcp.TextContent).Text, res, nil
}

func TestDeployFlows(t *testing.T) {
	for _, transport := range []string{"memory", "http"} {
		for _, era := range []string{"modern", "legacy"} {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cases := []struct {
					name    string
					args    map[string]any
					replies []*mcp.ElicitResult
					want    string
					asks    int
				}{
					{"accept", map[string]any{"service": "api"},
						[]*mcp.ElicitResult{accept(map[string]any{"environment": "staging", "notify": true})},
						"Deploying api to staging and posting in #deployments.", 1},
					{"prod two rounds", map[string]any{"service": "api"},
						[]*mcp.ElicitResult{accept(map[string]any{"environment": "prod", "notify": false}), accept(map[string]any{"confirm": true})},
						"Deploying api to prod without notifying.", 2},
					{"prod not confirmed", map[string]any{"service": "api"},
						[]*mcp.ElicitResult{accept(map[string]any{"environment": "prod"}), accept(map[string]any{"confirm": false})},
						"Nothing was deployed: api to production was not confirmed.", 2},
					{"decline first", map[string]any{"service": "api"},
						[]*mcp.ElicitResult{{Action: "decline"}},
						"Nothing was deployed: the target question was declined.", 1},
					{"cancel second", map[string]any{"service": "api"},
						[]*mcp.ElicitResult{accept(map[string]any{"environment": "prod"}), {Action: "cancel"}},
						"Nothing was deployed: the confirm question was cancelled.", 2},
					{"prefilled skips the form", map[string]any{"service": "api", "environment": "dev"},
						nil, "Deploying api to dev without notifying.", 0},
					{"prefilled prod still confirms", map[string]any{"service": "api", "environment": "prod", "notify": true},
						[]*mcp.ElicitResult{accept(map[string]any{"confirm": true})},
						"Deploying api to prod and posting in #deployments.", 1},
				}
				for _, c := range cases {
					u := &user{replies: c.replies}
					cs := session(t, transport, era, u)
					got, res, err := call(t, cs, c.args)
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					if got != c.want || res.IsError {
						t.Errorf("%s: got %q (isError %v), want %q", c.name, got, res.IsError, c.want)
					}
					if len(u.asked) != c.asks {
						t.Errorf("%s: asked %d times, want %d", c.name, len(u.asked), c.asks)
					}
					if c.asks == 2 && u.asked[1].Message != "Deploy api to production now?" {
						t.Errorf("%s: confirm message %q", c.name, u.asked[1].Message)
					}
				}
			})
		}
	}
}

func TestNoElicitation(t *testing.T) {
	for _, transport := range []string{"memory", "http"} {
		t.Run(transport, func(t *testing.T) {
			cs := session(t, transport, "modern", nil)
			got, res, err := call(t, cs, map[string]any{"service": "api"})
			if err != nil || !res.IsError || got != "environment is required: one of dev, staging, prod" {
				t.Fatalf("fallback=arguments: %q %v %v", got, res, err)
			}
			got, _, err = call(t, cs, map[string]any{"service": "api", "environment": "staging"})
			if err != nil || got != "Deploying api to staging without notifying." {
				t.Fatalf("prefilled without elicitation: %q %v", got, err)
			}
			// Production needs a confirmation nobody can give: -32021.
			_, _, err = call(t, cs, map[string]any{"service": "api", "environment": "prod"})
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != mcp.CodeMissingRequiredClientCapabilities {
				t.Fatalf("want -32021, got %v", err)
			}
			var data struct {
				RequiredCapabilities json.RawMessage `json:"requiredCapabilities"`
			}
			if err := json.Unmarshal(werr.Data, &data); err != nil || string(data.RequiredCapabilities) != `{"elicitation":{"form":{}}}` {
				t.Fatalf("data %s", werr.Data)
			}
			// Invalid prefilled arguments are a tool error naming them (the
			// SDK validates them against the input schema, which carries the
			// form's enum, before the machine does).
			got, res, err = call(t, cs, map[string]any{"service": "api", "environment": "moon"})
			if err != nil || !res.IsError || !strings.Contains(got, "environment") {
				t.Fatalf("invalid argument: %q %v", got, err)
			}
		})
	}
}
