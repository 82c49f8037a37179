package main

import (
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// TestHostsBilling: what a person of each host of docs/results/hosts.md sees of
// list_invoices for a user with no grant, emulated on the wire against
// the billing binary over stdio and its server over HTTP on 127.0.0.1,
// which agree: a host that can show URL mode shows the sign-in (the person
// here dismisses it), any other gets the link in the result; the table of
// docs/results/hosts.md is generated from it.
func TestHostsBilling(t *testing.T) {
	s := startSite(t)
	dismiss := func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "cancel"} }
	users := 0
	rows := hosttest.HostRows(t, func(h hosttest.Host, transport, era string) string {
		users++
		o := h.Options(dismiss)
		cs := s.mcpClientEra(t, transport, era, "host-user-"+strconv.Itoa(users), o)
		res, err := list(cs, "", nil)
		return hosttest.Sees(o.User, res, err)
	})
	hosttest.HostTable(t, "../../docs/results/hosts.md", "billing", rows)
}
