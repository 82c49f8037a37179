package main

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/mcptest"
)

// TestHostsBilling: what a person of each host of docs/hosts.md sees of
// list_invoices for a user with no grant, emulated on the wire against
// the billing binary over stdio and the site over HTTP on 127.0.0.1,
// which agree: a host that can show URL mode shows the sign-in (the person
// here dismisses it), any other gets the link in the result; the table of
// docs/hosts.md is generated from it.
func TestHostsBilling(t *testing.T) {
	s := startSite(t)
	dismiss := func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "cancel"} }
	var rows []mcptest.HostRow
	for i, h := range mcptest.Hosts {
		seen := map[string]string{}
		for _, transport := range []string{"stdio", "http"} {
			o := h.Options(dismiss)
			user := "host-" + strings.Repeat("x", i+1) + "-" + transport
			cs := s.mcpClientEra(t, transport, h.Era, user, o)
			res, err := list(cs, "", nil)
			seen[transport] = mcptest.Sees(o.User, res, err)
		}
		if seen["stdio"] != seen["http"] {
			t.Errorf("%s: over stdio %q, over HTTP %q", h.Name, seen["stdio"], seen["http"])
		}
		rows = append(rows, mcptest.HostRow{Host: h, Sees: seen["http"]})
	}
	mcptest.HostTable(t, "../..", "billing", rows)
}
