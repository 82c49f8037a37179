package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/mcptest"
	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// Tests of issue 29's runtime items, over the real SDK: a task-only
// tool's era message, argument errors in the form decoder's words, and
// the defaults a form is asked with (a partial prefill, a re-ask).

type taskOnlyArgs struct {
	Size string `json:"size,omitempty"`
}

// taskOnlyServer has one tool, "brew", that runs only as a task.
func taskOnlyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "newuser", Version: "v0"}, nil)
	flow := elicitrt.Flow{
		Tasks: elicitrt.TaskRequired,
		Run: func(context.Context, *elicitrt.Task, *mcp.CallToolRequest, any, elicitrt.Answers) (*mcp.CallToolResult, error) {
			return elicitrt.Text("brewed"), nil
		},
	}
	elicitrt.AddTool[taskOnlyArgs](s, &mcp.Tool{Name: "brew", InputSchema: json.RawMessage(`{"type":"object","properties":{"size":{"type":"string"}}}`)},
		elicitrt.NewMachine("brew", nil, flow, nil))
	return s
}

// TestTaskOnlyToolOnOldProtocol: a 2025-11-25 client that declared the
// tasks extension gets -32021 saying that tasks need protocol 2026-07-28,
// not that it should declare what it declared.
func TestTaskOnlyToolOnOldProtocol(t *testing.T) {
	caps := &mcp.ClientCapabilities{Extensions: map[string]any{elicitrt.TasksExtension: map[string]any{}}}
	for _, transport := range mcptest.Transports {
		t.Run(transport, func(t *testing.T) {
			cs := mcptest.Connect(t, taskOnlyServer, transport, "legacy", mcptest.Options{Capabilities: caps})
			_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "brew", Arguments: map[string]any{}})
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingRequiredClientCapabilities {
				t.Fatalf("want -32021, got %v", err)
			}
			if !strings.Contains(rpcErr.Message, "tasks need protocol 2026-07-28") || !strings.Contains(rpcErr.Message, "2025-11-25") {
				t.Errorf("message %q does not say that tasks need protocol 2026-07-28", rpcErr.Message)
			}
		})
	}
	// On 2026-07-28, a client without the extension is still asked to
	// declare it.
	cs := mcptest.Connect(t, taskOnlyServer, "memory", "modern", mcptest.Options{})
	_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "brew", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "needs the client to support the "+elicitrt.TasksExtension) {
		t.Errorf("modern client without the extension: %v", err)
	}
}
