package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/elicitgen/elicitgen/internal/mcptest"
)

// TestLongBearerTokenDoesNotCrash: the stand-in authentication takes any
// bearer token as the user id, and the URL step seals that user into its
// flow token. A 40,000-character token used to make Keyring.Seal panic and
// the process exit; it is now an internal error for that call, and the
// server goes on serving.
func TestLongBearerTokenDoesNotCrash(t *testing.T) {
	s := startSite(t)
	long := s.mcpClient(t, "http", strings.Repeat("A", 40_000), mcptest.Options{User: &mcptest.User{}, Capabilities: bothModes, Manual: true})
	_, err := list(long, "", nil)
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError {
		t.Fatalf("a 40,000-character principal: want -32603, got %v", err)
	}
	ok := s.mcpClient(t, "http", "alice", mcptest.Options{User: &mcptest.User{}, Capabilities: bothModes, Manual: true})
	res, err := list(ok, "", nil)
	if err != nil || !res.NeedsInput() {
		t.Fatalf("after: %+v %v", res, err)
	}
	if _, req := urlRequest(t, res); req.Mode != "url" {
		t.Fatalf("after: %+v", req)
	}
}
