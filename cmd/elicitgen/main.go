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
// is enough. Problems are reported all at once as file:line:col: message, and
// then nothing is written.
//
// Flags:
//
//	--check     write nothing; exit 1 and print a diff when a generated file
//	            is missing, stale or left over
//	--tags      build tags, as for go build
//	--version   print the version and exit
//
// Exit status: 0 success, 1 diagnostics or a failed --check, 2 usage or
// another error.
//
// The garbage collector runs at GOGC=400 for the command's short run, unless
// GOGC is set in the environment.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
