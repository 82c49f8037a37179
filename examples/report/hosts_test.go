package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// reportPerson wants the report in HTML, without salaries.
func reportPerson(p *mcp.ElicitParams) *mcp.ElicitResult {
	if p.Message == formatMessage {
		return hosttest.Accept(map[string]any{"format": "html"})
	}
	return hosttest.Accept(map[string]any{"include": false})
}

// TestHostsReport: what a person of each host of docs/results/hosts.md sees of
// report {"topic":"Q3","seconds":1}, emulated on the wire against the
// report binary over stdio and in-process over HTTP on 127.0.0.1, which
// agree. None of these hosts declares the tasks extension, so the report
// runs in the foreground and its during question is asked before the
// work; the table of docs/results/hosts.md is generated from it.
func TestHostsReport(t *testing.T) {
	bin := reportBinary(t)
	rows := hosttest.HostRows(t, func(h hosttest.Host, transport, era string) string {
		o := h.Options(reportPerson)
		o.Command = func() *exec.Cmd {
			cmd := exec.Command(bin, "-stdio")
			cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS=", "ELICITGEN_REDIS_URL=")
			return cmd
		}
		cs := hosttest.Connect(t, newTestServer, transport, era, o)
		res, err := hosttest.CallTool(t.Context(), cs, o.User, &mcp.CallToolParams{Name: "report", Arguments: map[string]any{"topic": "Q3", "seconds": 1}})
		return hosttest.Sees(o.User, res, err)
	})
	hosttest.HostTable(t, "../../docs/results/hosts.md", "report", rows)
}
