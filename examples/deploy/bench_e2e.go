//go:build e2ebench

package main

// Built with -tags e2ebench by the end-to-end benchmark (bench/e2e), the
// deploy server also serves its own CPU time, allocations and RSS on the
// address in ELICITGEN_E2E_STATS. Without the tag, none of this is built.

import "github.com/elicitgen/elicitgen/bench/e2e/e2estats"

func init() { e2estats.Start() }
