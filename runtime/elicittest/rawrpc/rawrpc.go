// Package rawrpc is a raw JSON-RPC client of a real SDK server over the
// in-memory transport, for tests that must send what an SDK client would
// not (the Tasks wire, hostile params): one request at a time, its
// response back as it came. It is the public kit's client for the hostile
// cases, beside runtime/elicittest/hosttest's SDK clients; it imports no
// elicitgen package, so the runtime's own tests can use it too.
package rawrpc

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Conn is a raw client connection to one server.
type Conn struct {
	conn   mcp.Connection
	closed func()
	mu     sync.Mutex
	id     int64
}

// Memory connects server over the in-memory transport; tb's cleanup
// closes the connection and waits for the server session.
func Memory(tb testing.TB, server *mcp.Server) *Conn {
	tb.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := ct.Connect(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	c := &Conn{conn: conn}
	c.closed = sync.OnceFunc(func() { conn.Close(); ss.Wait() })
	tb.Cleanup(c.Close)
	return c
}

// Close closes the connection and waits for the server session to end.
func (c *Conn) Close() { c.closed() }

// Call sends one request with params and waits at most 10 s for its
// response: the result, or the JSON-RPC error. err is the transport's.
func (c *Conn) Call(method string, params any) (result json.RawMessage, rpcErr *jsonrpc.Error, err error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.id++
	rid, err := jsonrpc.MakeID(float64(c.id))
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	if err := c.conn.Write(ctx, &jsonrpc.Request{ID: rid, Method: method, Params: raw}); err != nil {
		return nil, nil, err
	}
	for {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		msg, err := c.conn.Read(rctx)
		cancel()
		if err != nil {
			return nil, nil, err
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok || resp.ID != rid {
			continue // a notification, or a request of the server's
		}
		if resp.Error != nil {
			var je *jsonrpc.Error
			if errors.As(resp.Error, &je) {
				return nil, je, nil
			}
			return nil, &jsonrpc.Error{Code: -1, Message: resp.Error.Error()}, nil
		}
		return resp.Result, nil, nil
	}
}
