// Package templates holds the prose of elicitgen: text written once for
// the author to edit, such as the doc comment of a handler stub. Go code
// itself, generated or stub, is built with jennifer in package gen.
package templates

import (
	"embed"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// Stub is the doc comment of the handler type `elicitgen stub` writes.
var Stub = template.Must(template.New("stub.tmpl").ParseFS(files, "stub.tmpl"))

// StubData is what the stub template reads.
type StubData struct {
	Tool     string // the tool's MCP name
	Type     string // the handler type to write, e.g. deployHandler
	Handler  string // the generated interface, e.g. DeployHandler
	Register string // e.g. RegisterDeploy
}
