package rawrpc

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCall: over a real SDK server in memory, Call returns a request's
// result as it came, and a JSON-RPC error as the error the server sent
// (here an unknown method), the connection staying usable after it.
func TestCall(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "v0"}, nil)
	conn := Memory(t, server)
	result, rpcErr, err := conn.Call("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "raw-test", "version": "0"},
	})
	if err != nil || rpcErr != nil {
		t.Fatalf("initialize: %v, %v", rpcErr, err)
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct{ Name string }
	}
	if err := json.Unmarshal(result, &init); err != nil || init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "raw" {
		t.Fatalf("initialize result %s (%v)", result, err)
	}
	_, rpcErr, err = conn.Call("no/such/method", map[string]any{})
	if err != nil || rpcErr == nil || rpcErr.Code != -32601 {
		t.Fatalf("unknown method: %v, %v; want JSON-RPC error -32601", rpcErr, err)
	}
	result, rpcErr, err = conn.Call("ping", map[string]any{})
	if err != nil || rpcErr != nil || string(result) != "{}" {
		t.Fatalf("ping after the error: %s, %v, %v", result, rpcErr, err)
	}
	conn.Close()
	if _, _, err := conn.Call("ping", map[string]any{}); err == nil {
		t.Error("Call after Close: no error")
	}
}
