// Package templates holds the prose templates of elicitgen: text that is
// written once for the author to edit, such as handler stubs. Generated Go
// code itself is built with jennifer in package gen.
package templates

import (
	"embed"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// Stub is the handler skeleton `elicitgen stub` writes for a tool.
var Stub = template.Must(template.New("stub.go.tmpl").ParseFS(files, "stub.go.tmpl"))

// StubData is what the stub template reads.
type StubData struct {
	Package  string
	Tool     string // the tool's MCP name
	Type     string // the handler type to write, e.g. deployHandler
	Handler  string // the generated interface, e.g. DeployHandler
	Args     string // the argument type, e.g. DeployArgs
	Answers  string // e.g. DeployAnswers
	Step     string // e.g. DeployStep
	Register string // e.g. RegisterDeploy
	// Unavailable is true when a step's fallback is handler.
	Unavailable bool
	// Messages and Asks name the steps whose message or asking the handler
	// decides (their Go field names).
	Messages, Asks []string
}
