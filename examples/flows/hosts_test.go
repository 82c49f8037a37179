package flows

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitgen/elicitgen/runtime/elicittest/hosttest"
	"github.com/elicitgen/elicitgen/runtime/serve"
)

// stdioServerVar, set in this test binary's environment, makes it the
// flows server on standard input and output instead of running tests:
// the stdio transport of the host tables is a process, as a host starts.
const stdioServerVar = "ELICITGEN_FLOWS_STDIO_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(stdioServerVar) == "1" {
		server := newServer()
		if err := server.Run(context.Background(), &serve.StdioTransport{Server: server}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// surveyPerson answers as a person who likes blue and red, gives four
// stars and is called Ada.
func surveyPerson(p *mcp.ElicitParams) *mcp.ElicitResult {
	switch p.Message {
	case "How many stars?":
		return hosttest.Accept(map[string]any{"stars": 4})
	case "What is your name?":
		return hosttest.Accept(map[string]any{"name": "Ada"})
	}
	return hosttest.Accept(map[string]any{"favorite": "blue", "also": []any{"red"}})
}

// TestHostsSurvey: what a person of each host of docs/results/hosts.md sees of
// survey {"topic":"tea"}: a form with a multi-select field, one with an
// integer and one with strings, emulated on the wire against this test
// binary serving over stdio and the server in-process over HTTP on
// 127.0.0.1, which agree on each era; the table of docs/results/hosts.md is
// generated from it. A host that shows no integer or multi-select field
// (Codex) approves those forms with no field: the colours take their
// defaults, and the rating, re-asked, ends in the handler's fallback.
func TestHostsSurvey(t *testing.T) {
	rows := hosttest.HostRows(t, func(h hosttest.Host, transport, era string) string {
		o := h.Options(surveyPerson)
		o.Command = func() *exec.Cmd {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), stdioServerVar+"=1")
			return cmd
		}
		cs := hosttest.Connect(t, newServer, transport, era, o)
		res, err := hosttest.CallTool(t.Context(), cs, o.User, &mcp.CallToolParams{Name: "survey", Arguments: map[string]any{"topic": "tea"}})
		return hosttest.Sees(o.User, res, err)
	})
	hosttest.HostTable(t, "../../docs/results/hosts.md", "survey", rows)
}
