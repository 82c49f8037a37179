package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/internal/mcptest"
)

// reportPerson wants the report in HTML, without salaries.
func reportPerson(p *mcp.ElicitParams) *mcp.ElicitResult {
	if p.Message == formatMessage {
		return mcptest.Accept(map[string]any{"format": "html"})
	}
	return mcptest.Accept(map[string]any{"include": false})
}

// TestHostsReport: what a person of each host of docs/hosts.md sees of
// report {"topic":"Q3","seconds":1}, emulated on the wire against the
// report binary over stdio and in-process over HTTP on 127.0.0.1, which
// agree. None of these hosts declares the tasks extension, so the report
// runs in the foreground and its during question is asked before the
// work; the table of docs/hosts.md is generated from it.
func TestHostsReport(t *testing.T) {
	bin := reportBinary(t)
	var rows []mcptest.HostRow
	for _, h := range mcptest.Hosts {
		seen := map[string]string{}
		for _, transport := range []string{"stdio", "http"} {
			o := h.Options(reportPerson)
			o.Command = func() *exec.Cmd {
				cmd := exec.Command(bin, "-stdio")
				cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS=", "ELICITGEN_REDIS_URL=")
				return cmd
			}
			cs := mcptest.Connect(t, newTestServer, transport, h.Era, o)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "report", Arguments: map[string]any{"topic": "Q3", "seconds": 1}})
			seen[transport] = mcptest.Sees(o.User, res, err)
		}
		if seen["stdio"] != seen["http"] {
			t.Errorf("%s: over stdio %q, over HTTP %q", h.Name, seen["stdio"], seen["http"])
		}
		rows = append(rows, mcptest.HostRow{Host: h, Sees: seen["http"]})
	}
	mcptest.HostTable(t, "../..", "report", rows)
}
