package main

import (
	"context"
	"net/url"

	"github.com/elicitgen/elicitgen/runtime/backend"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
)

// invoices implements ListInvoicesHandler.
type invoices struct {
	// base is this server's public address, for the connect link.
	base   string
	grants backend.GrantStore
}

var _ ListInvoicesHandler = (*invoices)(nil)

const notConnected = "The billing account isn't connected, so no invoices were read."

func (h *invoices) Complete(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a ListInvoicesAnswers) (*mcp.CallToolResult, error) {
	grant, ok, err := h.grants.Grant(ctx, elicitrt.PrincipalFrom(ctx), "billing")
	if err != nil {
		return nil, err
	}
	if !ok || len(grant) == 0 {
		return elicitrt.Text(notConnected), nil
	}
	// A real tool calls the billing API with the grant; it never returns it.
	return elicitrt.Text("2 open invoices."), nil
}

func (h *invoices) Declined(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a ListInvoicesAnswers, step ListInvoicesStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text(notConnected), nil
}

func (h *invoices) Cancelled(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a ListInvoicesAnswers, step ListInvoicesStep) (*mcp.CallToolResult, error) {
	return elicitrt.Text(notConnected), nil
}

// AskBilling asks for the sign-in only when the user has no grant yet.
func (h *invoices) AskBilling(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a ListInvoicesAnswers) bool {
	_, ok, err := h.grants.Grant(ctx, elicitrt.PrincipalFrom(ctx), "billing")
	return err != nil || !ok
}

// BillingURL is this server's connect page, carrying the opaque flow token.
func (h *invoices) BillingURL(ctx context.Context, req *mcp.CallToolRequest, args NoArgs, a ListInvoicesAnswers, token string) string {
	return h.base + "/connect?flow=" + url.QueryEscape(token)
}
