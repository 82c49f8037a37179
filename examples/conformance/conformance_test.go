package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

var serverBin string

func TestMain(m *testing.M) { os.Exit(hosttest.RunWithBinary(m, ".", &serverBin)) }

func connect(t *testing.T, transport, era string, o hosttest.Options) *mcp.ClientSession {
	o.Command = func() *exec.Cmd { return exec.Command(serverBin, "-stdio") }
	return hosttest.Connect(t, func() *mcp.Server { return newServer(nil) }, transport, era, o)
}

// TestFixtures runs every fixture tool through the Go SDK client, on both
// eras, over stdio, in memory and over HTTP. (.ci/conformance.sh runs the
// official suite's scenarios against the same server over HTTP.)
func TestFixtures(t *testing.T) {
	for _, transport := range []string{"stdio", "memory", "http"} {
		for _, era := range hosttest.Eras {
			t.Run(transport+"/"+era, func(t *testing.T) {
				cases := []struct {
					tool    string
					replies []*mcp.ElicitResult
					want    string
				}{
					{"test_input_required_result_elicitation", []*mcp.ElicitResult{hosttest.Accept(map[string]any{"name": "Alice"})}, "Hello, Alice!"},
					{"test_input_required_result_multi_round", []*mcp.ElicitResult{
						hosttest.Accept(map[string]any{"name": "Alice"}), hosttest.Accept(map[string]any{"color": "blue"})}, "Alice likes blue."},
					{"test_input_required_result_request_state", []*mcp.ElicitResult{hosttest.Accept(map[string]any{"ok": true})}, "state-ok: confirmed=true"},
					{"test_input_required_result_tampered_state", []*mcp.ElicitResult{{Action: "decline"}}, "The confirm question was declined."},
				}
				for _, c := range cases {
					u := &hosttest.User{Replies: c.replies}
					cs := connect(t, transport, era, hosttest.Options{User: u})
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{}})
					if err != nil || hosttest.Text(res) != c.want || len(u.Asked) != len(c.replies) {
						t.Errorf("%s: %+v %v (asked %d)", c.tool, res, err, len(u.Asked))
					}
				}
			})
		}
	}
}

// TestTamperedState over the wire, by hand: the suite appends -TAMPERED.
func TestTamperedState(t *testing.T) {
	cs := connect(t, "http", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
	ctx := context.Background()
	first, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_tampered_state", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if k := hosttest.OnlyKey(t, first); k != "confirm" {
		t.Fatalf("key %q", k)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_tampered_state", Arguments: map[string]any{},
		RequestState: first.RequestState + "-TAMPERED", InputResponses: mcp.InputResponseMap{"confirm": hosttest.Accept(map[string]any{"ok": true})}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("want -32602, got %v", err)
	}
}
