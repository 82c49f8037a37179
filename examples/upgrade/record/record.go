// Package record is the handler both releases of examples/upgrade give
// every tool: Complete answers with the tool's name and the typed answers
// it received, as JSON (a step not answered is null), so a test reads back
// exactly what reached the handler; Declined and Cancelled say which step.
package record

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// Handler implements the generated handler interface of a tool whose
// arguments are A, answers T and steps S. Release names the release in
// every result.
type Handler[A, T any, S fmt.Stringer] struct{ Release, Tool string }

// Complete returns "RELEASE TOOL complete ANSWERS".
func (h Handler[A, T, S]) Complete(ctx context.Context, req *mcp.CallToolRequest, args A, answers T) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	return elicitrt.Text(h.Release + " " + h.Tool + " complete " + string(b)), nil
}

// Declined returns "RELEASE TOOL declined STEP".
func (h Handler[A, T, S]) Declined(ctx context.Context, req *mcp.CallToolRequest, args A, answers T, step S) (*mcp.CallToolResult, error) {
	return elicitrt.Text(h.Release + " " + h.Tool + " declined " + step.String()), nil
}

// Cancelled returns "RELEASE TOOL cancelled STEP".
func (h Handler[A, T, S]) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args A, answers T, step S) (*mcp.CallToolResult, error) {
	return elicitrt.Text(h.Release + " " + h.Tool + " cancelled " + step.String()), nil
}
