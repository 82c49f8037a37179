// Package gen is elicitgen's generator: it turns Go structs tagged `elicit`
// into precomputed elicitation schemas and strict typed decoders, and tool
// declarations (//elicit:tool) into step tables for the runtime's
// interpreter with a typed handler interface.
//
// Its API is what cmd/elicitgen needs: Generate (with Config, Result,
// Change and Diagnostics), Stub, and AddGoGenerate; and what package vet's
// analyzer needs: Vet runs Check and Emit on one package as a go/analysis
// pass gives it (Package), and compares with the generated files (vet.go). Behind it, one run is
// a pipeline whose phases each have their files, in this order; only the
// last touches the disk, and each decides nothing the one before should
// have:
//
//	gen.go          Generate: the phases in order; Config and Result
//	load.go         Load: one packages.Load; compiler errors become Diagnostics;
//	                platform.go loads again, for a platform that builds
//	                them, the files the host excludes (x_windows.go);
//	                constraint.go reads a file's build constraints
//	check.go        Check: the walk over packages, files and type specs, which
//	                hands each declaration to the rules of its family:
//	  check_form.go    forms: which structs are forms, their fields, the Go
//	                   types a property takes, property names, secrets
//	                   (secret.go)
//	  check_option.go  enums and options: an enum type's constants and titles;
//	                   the options of a field as a table (optionRules: the
//	                   kinds each is for, its values) and defaults by kind
//	  check_tool.go    steps and tools: Args, each step's options and the rules
//	                   between steps (together, once, during, confirm,
//	                   preview, prefill), rounds, the names a tool generates
//	  check_decl.go    declarations and directives: //elicit: lines, the ones
//	                   almost right with their fix, tool, prompt and resource
//	                   names, the word-valued directives as a table
//	                   (annotations, task); titles and descriptions from Go
//	                   names and doc comments
//	  tag.go           the one reader of elicit tags, form and step alike: the
//	                   options' grammar as a table, offsets for positions,
//	                   quoted values, did-you-mean
//	plan.go         the names the generated code declares and imports, a
//	                tool's handler method set and its steps' digests
//	                (digest.go: what the person is shown); schema.go: a form's
//	                requestedSchema bytes. Check ends with both, so the
//	                model (model.go) holds every decision, or Check returns
//	                every Diagnostic (diag.go) at once
//	emit.go         Emit: prints the model with jennifer, one file at a time,
//	                then go/format; its errors are internal (errInternal).
//	                emit_form.go prints a form (schema, decoder),
//	                emit_tool.go a tool, prompt or resource (step table,
//	                answers, handler interface, Register); stub.go a
//	                handler skeleton from the same model
//	write.go        Write: compares with the disk (diffs: diff.go), writes
//	                changed files, removes stale ones of ours, or in check
//	                mode only reports the differences
//
// A file that checks does not print, and one that prints decides nothing:
// what both need (import paths, the generated-file suffix and header)
// lives in model.go. Nothing here prints to a terminal or exits;
// cmd/elicitgen does.
package gen
