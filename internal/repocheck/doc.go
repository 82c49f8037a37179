// Package repocheck holds rules about the repository itself, as tests:
// what git tracks (source only, never a build output). It has no code of
// its own; `go test ./internal/repocheck` runs the rules.
package repocheck
