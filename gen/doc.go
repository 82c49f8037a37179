// Package gen is elicitgen's generator: it turns Go structs tagged `elicit`
// into precomputed elicitation schemas and strict typed decoders.
//
// The pipeline has four phases, one file each, and only the last touches the
// disk:
//
//	Load  (load.go)   one packages.Load; compiler errors become Diagnostics
//	Check (check.go)  finds forms, parses tags, applies every rule; the result
//	                  is a Model (model.go) or Diagnostics, all at once
//	Emit  (emit.go)   renders each source file's forms with jennifer into
//	                  gofmt-clean bytes keyed by output path
//	Write (write.go)  writes changed files, removes stale ones of ours, or in
//	                  check mode only reports differences
//
// Nothing here prints or exits; cmd/elicitgen does.
package gen
