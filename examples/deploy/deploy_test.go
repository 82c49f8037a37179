package main

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

type user = hosttest.User

func accept(content map[string]any) *mcp.ElicitResult { return hosttest.Accept(content) }

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
	return hosttest.Connect(t, func() *mcp.Server { return newServer(&elicitrt.ToolOptions{Keys: keys}) }, transport, era,
		hosttest.Options{User: u, Command: func() *exec.Cmd { return exec.Command(serverBin, "-stdio") }})
}

// serverBin is this example built as a binary, for the stdio transport.
var serverBin string

func TestMain(m *testing.M) { os.Exit(hosttest.RunWithBinary(m, ".", &serverBin)) }

// transports: in memory, over HTTP on 127.0.0.1, and the binary over stdio.
var transports = append([]string{"stdio"}, hosttest.Transports...)

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
	for _, transport := range transports {
		for _, era := range hosttest.Eras {
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
					u := &user{Replies: c.replies}
					cs := session(t, transport, era, u)
					got, res, err := call(t, cs, c.args)
					if err != nil {
						t.Fatalf("%s: %v", c.name, err)
					}
					if got != c.want || res.IsError {
						t.Errorf("%s: got %q (isError %v), want %q", c.name, got, res.IsError, c.want)
					}
					if len(u.Asked) != c.asks {
						t.Errorf("%s: asked %d times, want %d", c.name, len(u.Asked), c.asks)
					}
					if c.asks == 2 && u.Asked[1].Message != "Deploy api to production now?" {
						t.Errorf("%s: confirm message %q", c.name, u.Asked[1].Message)
					}
				}
			})
		}
	}
}

// tokenOf reads the confirmation token out of a preview result, as the
// kit's Outcome.PreviewToken does.
func tokenOf(t *testing.T, preview *mcp.CallToolResult) string {
	t.Helper()
	token := (&elicittest.Outcome{Result: preview}).PreviewToken()
	if token == "" {
		t.Fatalf("no token in %+v", preview)
	}
	return token
}
