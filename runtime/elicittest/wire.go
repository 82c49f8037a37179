package elicittest

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/machine"
)

// The Go SDK's client speaks no Tasks extension: it cannot decode a
// CreateTaskResult, and has no tasks/get or tasks/update. A client that
// declares the extension (Options.Tasks, 2026-07-28) sends its tools/call
// requests, and the tasks/* requests of the tasks they start, over a wire
// of its own: a second connection to the same server, speaking
// JSON-RPC with the 2026-07-28 per-request _meta (protocol version,
// capabilities with the extension, client info), as a host that speaks
// the extension does.

// wire is a raw JSON-RPC connection to the server, one request at a time.
type wire struct {
	conn mcp.Connection
	meta map[string]any
	mu   sync.Mutex
	id   int64
}

// dialWire connects over ct, the client's end of a transport to the
// server; the connection ends with t.
func dialWire(t testing.TB, ct mcp.Transport, caps *mcp.ClientCapabilities, impl *mcp.Implementation) *wire {
	conn, err := ct.Connect(context.Background())
	if err != nil {
		t.Fatalf("elicittest: client: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	withTasks := *caps
	withTasks.Extensions = maps.Clone(caps.Extensions)
	withTasks.AddExtension(machine.TasksExtension, nil)
	return &wire{conn: conn, meta: map[string]any{
		mcp.MetaKeyProtocolVersion:    string(Modern),
		mcp.MetaKeyClientCapabilities: &withTasks,
		mcp.MetaKeyClientInfo:         impl,
	}}
}

// call sends method with params (to which it adds the _meta) and decodes
// its result into out; a JSON-RPC error is a *jsonrpc.Error.
func (w *wire) call(ctx context.Context, method string, params map[string]any, out any) error {
	params["_meta"] = w.meta
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.id++
	id, err := jsonrpc.MakeID(float64(w.id))
	if err != nil {
		return err
	}
	if err := w.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		return err
	}
	return w.response(ctx, id, out)
}

// response reads until the response of id, skipping notifications.
func (w *wire) response(ctx context.Context, id jsonrpc.ID, out any) error {
	for {
		msg, err := w.conn.Read(ctx)
		if err != nil {
			return err
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok || resp.ID != id {
			continue
		}
		if resp.Error != nil {
			var werr *jsonrpc.Error
			if errors.As(resp.Error, &werr) {
				return werr
			}
			return resp.Error
		}
		return json.Unmarshal(resp.Result, out)
	}
}
