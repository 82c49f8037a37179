// Package repocheck holds rules about the repository itself, as tests:
// what git tracks (source only, never a build output), and what the
// modules import (no module but the root imports its internal/ packages;
// the sign-in pages link no interpreter). It has no code of its own;
// `go test ./internal/repocheck` runs the rules.
package repocheck
