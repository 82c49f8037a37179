// Command elicitgen generates elicitation code for Go MCP servers.
//
// Usage:
//
//	elicitgen [flags] [packages]
//
// For every struct type that is a form (marked //elicit:form, or with a
// field tagged elicit:"..."), elicitgen writes next to its source file x.go a
// file x_elicit.go with the form's precomputed requestedSchema
// (ElicitSchema), form-mode params (ElicitParams) and a strict typed decoder
// (DecodeElicit). Packages default to ".", so in a package
//
//	//go:generate go tool elicitgen
//
// is enough. For every tool declaration (a struct marked //elicit:tool NAME,
// whose fields are its arguments and its steps), it writes the tool's step
// table, answers type, handler interface and RegisterX function: the
// runtime's interpreter (elicitrt) runs the steps over MRTR rounds and calls
// the handler. Prompts (//elicit:prompt NAME) and resources
// (//elicit:resource URI [MIME-TYPE]) are declared and generated the same
// way. Problems are reported all at once as file:line:col: message, at the
// option of a tag where there is one, and then nothing is written.
//
//	elicitgen stub NAME [package] [-o FILE]
//
// writes a compiling handler skeleton for the tool, prompt or resource NAME,
// with every method of its handler interface; it never overwrites a file,
// and for an unknown NAME lists the declarations there are.
//
//	elicitgen vet [packages]
//
// reports, as go vet does (file:line:col: message; exit 1 on findings),
// every diagnostic above, a generated file that is not what elicitgen would
// write now, and a package with no //go:generate line running elicitgen.
// The binary is also a go vet tool: go vet -vettool=$(go tool -n elicitgen)
// ./... (docs/reference/vet.md).
//
// Flags:
//
//	--check     write nothing; exit 1 and print a diff when a generated file
//	            is missing, stale or left over
//	-q, --quiet print nothing on success (otherwise one summary line:
//	            files written, unchanged, removed)
//	--tags      build tags, as for go build
//	--version   print the version and exit
//
// Exit status: 0 success, 1 diagnostics or a failed --check, 2 usage or
// another error. elicitgen --help describes the declarations, with an
// example; the grammar is in docs/reference/grammar.md and the generated API in
// docs/reference/generated-api.md.
package main

import (
	"os"

	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/elicitgen/elicitgen/vet"
)

func main() {
	if vetProtocol(os.Args[1:]) {
		if code, ok := vetStaleUnit(os.Args[1:], os.Stderr); ok {
			os.Exit(code)
		}
		unitchecker.Main(vet.Analyzer) // exits
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
