package elicittest

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A raw answer (a map[string]any the script gives) is sent as is on both
// eras, to test how the server takes an invalid one. On 2025-11-25 the Go
// SDK's client checks the content its handler returns against the
// requested schema and sends an error instead; keepRaw, a receiving
// middleware of the kit's client, sends the raw answer past that check,
// as a host that does not check would. Typed answers keep the check.

type rawSlot struct{ res *mcp.ElicitResult }

type rawKey struct{}

// keepRaw returns the raw answer that the handler put in the request's
// slot when the SDK's check refused it.
func keepRaw(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "elicitation/create" {
			return next(ctx, method, req)
		}
		slot := &rawSlot{}
		res, err := next(context.WithValue(ctx, rawKey{}, slot), method, req)
		if err != nil && slot.res != nil {
			return slot.res, nil
		}
		return res, err
	}
}

// markRaw puts res in the request's slot, when the script's content is a
// raw answer.
func markRaw(ctx context.Context, content any, res *mcp.ElicitResult) {
	if _, raw := content.(map[string]any); !raw || res == nil {
		return
	}
	if slot, ok := ctx.Value(rawKey{}).(*rawSlot); ok {
		slot.res = &mcp.ElicitResult{Action: res.Action, Content: res.Content}
	}
}
