// Package gen is elicitgen's generator: it turns Go structs tagged `elicit`
// into precomputed elicitation schemas and strict typed decoders, and tool
// declarations (//elicit:tool) into step tables for the runtime's
// interpreter with a typed handler interface.
//
// The pipeline has four phases, and only the last touches the disk:
//
//	Load  (load.go)   one packages.Load; compiler errors become Diagnostics
//	Check (check.go)  finds forms and tools, reads tags (tag.go: one reader
//	                  for form and step tags), applies every rule (options.go,
//	                  secret.go, tool.go) and decides everything Emit needs:
//	                  schemas, prefill, handler methods, generated names,
//	                  import names. The result is a Model (model.go) or
//	                  Diagnostics, all at once
//	Emit  (emit.go)   prints the Model with jennifer (emit_tool.go: tools),
//	                  gofmt-clean bytes keyed by output path; its errors are
//	                  internal ones (errInternal)
//	Write (write.go)  writes changed files, removes stale ones of ours, or in
//	                  check mode only reports differences
//
// Stub (stub.go) prints a tool's handler skeleton from the same Model.
// Nothing here prints or exits; cmd/elicitgen does.
package gen
