module github.com/elicitgen/elicitgen/vet/golangcilint

go 1.26.0

require (
	github.com/elicitgen/elicitgen v0.0.0-00010101000000-000000000000
	github.com/golangci/plugin-module-register v0.1.2
	golang.org/x/tools v0.42.0
)

require (
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/fatih/structtag v1.2.0 // indirect
	golang.org/x/mod v0.33.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
)

// In-repo development: each module of this repository builds against
// the others at the same commit (docs/design/modules.md).
replace github.com/elicitgen/elicitgen v0.0.0-00010101000000-000000000000 => ../..
