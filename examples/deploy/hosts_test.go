package main

import (
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
)

// deployPerson answers as a person who wants production: the environment
// question with prod, a confirmation with yes.
func deployPerson(p *mcp.ElicitParams) *mcp.ElicitResult {
	if p.Message == "Which environment should I deploy to?" {
		return hosttest.Accept(map[string]any{"environment": "prod"})
	}
	return hosttest.Accept(map[string]any{"confirm": true})
}

// TestHostsDeploy: what a person of each host of docs/results/hosts.md sees of
// deploy {"service":"api"}, emulated on the wire (the era, the declared
// modes, declining or answering for the person) against the deploy binary
// over stdio and in-process over HTTP on 127.0.0.1, which agree; the
// table of docs/results/hosts.md is generated from it. A host with no elicitation
// gets the missing argument named, and, called again with it as a model
// does, the preview and its token.
func TestHostsDeploy(t *testing.T) {
	keys := elicitrt.RandomKeyring()
	rows := hosttest.HostRows(t, func(h hosttest.Host, transport, era string) string {
		o := h.Options(deployPerson)
		o.Command = func() *exec.Cmd {
			cmd := exec.Command(serverBin, "-stdio")
			cmd.Env = append(os.Environ(), "ELICITGEN_STATE_KEYS="+procKeys)
			return cmd
		}
		cs := hosttest.Connect(t, func() *mcp.Server { return newServer(&elicitrt.ToolOptions{Keys: keys}) }, transport, era, o)
		res, err := hosttest.CallTool(t.Context(), cs, o.User, &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api"}})
		sees := hosttest.Sees(o.User, res, err)
		if o.User == nil {
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"service": "api", "environment": "prod"}})
			sees += "; called again with environment=prod → " + hosttest.Sees(nil, res, err)
		}
		return sees
	})
	hosttest.HostTable(t, "../../docs/results/hosts.md", "deploy", rows)
}
