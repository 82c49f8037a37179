package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/serve"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// The rounds of deploy driven by hand, for the example's tests that see
// each input_required result: the request-state guarantees themselves
// are proved in internal/machine (state_test.go there).

// manual connects a client over HTTP that does not run the MRTR loop
// itself, so the test sees each input_required result and sends each retry
// by hand, to the server made with opts.
func manual(t *testing.T, opts *elicitrt.ToolOptions) *mcp.ClientSession {
	t.Helper()
	return hosttest.Connect(t, func() *mcp.Server { return newServer(opts) }, "http", "modern", hosttest.Options{User: &hosttest.User{}, Manual: true})
}

func retry(cs *mcp.ClientSession, args map[string]any, state string, responses mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "deploy", Arguments: args, RequestState: state, InputResponses: responses})
}

func onlyKey(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	return hosttest.OnlyKey(t, res)
}

func wantInvalidState(t *testing.T, what string, err error) {
	t.Helper()
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || werr.Message != "invalid or expired requestState" || len(werr.Data) != 0 {
		t.Errorf("%s: want -32602 without detail, got %v", what, err)
	}
}

// postDeployAs posts one tools/call of deploy through the HTTP handler,
// from a client declaring caps, with arguments and inputResponses spliced
// in as they are; it returns the JSON-RPC reply's result or error, or ok
// false when the body was not JSON.
func postDeployAs(h http.Handler, caps, args, state, inputResponses string) (res *mcp.CallToolResult, rpcErr map[string]any, ok bool) {
	params := `"name":"deploy","arguments":` + args
	if state != "" {
		params += `,"requestState":` + strconv.Quote(state)
	}
	if inputResponses != "" {
		params += `,"inputResponses":` + inputResponses
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + params + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	req := httptest.NewRequest("POST", "/", strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "deploy"} {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	raw, _ := io.ReadAll(rec.Result().Body)
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  map[string]any  `json:"error"`
	}
	if json.Unmarshal(raw, &reply) != nil {
		return nil, nil, false
	}
	if reply.Error != nil {
		return nil, reply.Error, true
	}
	res = new(mcp.CallToolResult)
	if json.Unmarshal(reply.Result, res) != nil {
		return nil, nil, false
	}
	return res, nil, true
}

// rawAnswersTo connects a 2025-11-25 client to the server made with opts
// whose answers reach the server as answer writes them: the Go SDK client
// would check them against the schema and fill in its defaults first.
func rawAnswersTo(t *testing.T, transport string, opts *elicitrt.ToolOptions, answer func(*mcp.ElicitParams) *mcp.ElicitResult) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "raw", Version: "v0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, nil },
	})
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if er, ok := req.(*mcp.ElicitRequest); ok {
				return answer(er.Params), nil
			}
			return next(ctx, method, req)
		}
	})
	server := newServer(opts)
	var ct mcp.Transport
	if transport == "http" {
		srv := httptest.NewServer(serve.NewHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
		t.Cleanup(srv.Close)
		ct = &mcp.StreamableClientTransport{Endpoint: srv.URL}
	} else {
		st, c := mcp.NewInMemoryTransports()
		ss, err := server.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		ct = c
	}
	cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
