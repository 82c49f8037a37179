// Package vet is elicitgen's checks as a go/analysis analyzer: Analyzer
// reports, where the declarations are written, exactly the diagnostics
// elicitgen reports when it generates (the same rules, run by the same
// code: gen.Vet calls the generator's Check), plus two things only a
// checker of the source can say:
//
//   - a generated file (x_elicit.go) that is not what elicitgen would
//     write now, at each declaration whose generated code changed (an
//     edited tag, an enum constant added, a title changed), with a
//     suggested fix that rewrites the generated file; a missing or
//     left-over generated file is reported without a fix (an analyzer
//     cannot create or remove files): run go generate;
//   - a package that declares forms, tools, prompts or resources with no
//     //go:generate line that runs elicitgen, with a fix adding the line
//     elicitgen stub adds.
//
// Where Check's message suggests a replacement (did you mean ...?, a
// directive written with a space), the diagnostic carries it as a
// suggested fix.
//
// Run it with go vet -vettool=$(command -v elicitgen) (which editors run
// on save), with elicitgen vet, or in golangci-lint as a module plugin
// (package vet/golangcilint): docs/reference/vet.md. The package is apart from
// gen so that a program embedding the analyzer (a multichecker, a
// golangci-lint plugin) imports one small API; it links the generator, and
// no server runtime.
package vet

import (
	"fmt"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"

	"golang.org/x/tools/go/analysis"

	"github.com/elicitgen/elicitgen/gen"
)

// Analyzer reports elicitgen's diagnostics, stale generated files and a
// missing //go:generate line.
var Analyzer = &analysis.Analyzer{
	Name: "elicitgen",
	Doc: `check elicitgen declarations and their generated files

Reports what elicitgen reports when it generates (forms, tools, prompts and
resources declared wrong), a generated x_elicit.go that is not what
elicitgen would write now, and a package that declares forms, tools,
prompts or resources with no //go:generate line running elicitgen.`,
	URL: "https://github.com/elicitgen/elicitgen/blob/main/docs/reference/vet.md",
	Run: run,
	// A stale generated file may no longer compile: the declarations are
	// still checked (gen.Vet analyses no other ill-typed package).
	RunDespiteErrors: true,
}

func run(pass *analysis.Pass) (any, error) {
	f, err := gen.Vet(gen.Package{
		Fset: pass.Fset, Files: pass.Files, Types: pass.Pkg, Info: pass.TypesInfo,
		ReadFile: readFile(pass), IgnoredFiles: pass.IgnoredFiles, TypeErrors: pass.TypeErrors,
	})
	if err != nil {
		return nil, err
	}
	for _, d := range f.Diagnostics {
		pass.Report(diagnostic(d))
	}
	if f.GoGenerate != nil {
		pass.Report(diagnostic(*f.GoGenerate))
	}
	for _, s := range f.Stale {
		reportStale(pass, s)
	}
	return nil, nil
}

// readFile reads a file of the package through the pass; a generated file
// that is not one of the package's files does not exist for it.
func readFile(pass *analysis.Pass) func(string) ([]byte, error) {
	known := map[string]bool{}
	for _, f := range pass.Files {
		known[pass.Fset.File(f.Package).Name()] = true
	}
	for _, name := range slices.Concat(pass.OtherFiles, pass.IgnoredFiles) {
		known[name] = true
	}
	return func(name string) ([]byte, error) {
		if !known[name] {
			return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
		}
		return pass.ReadFile(name)
	}
}

// diagnostic is d as go/analysis reports it, with its fix.
func diagnostic(d gen.Diagnostic) analysis.Diagnostic {
	ad := analysis.Diagnostic{Pos: d.At, Message: d.Message}
	if d.Fix != (gen.Edit{}) {
		ad.SuggestedFixes = []analysis.SuggestedFix{{
			Message:   fixMessage(d.Fix.Text),
			TextEdits: []analysis.TextEdit{{Pos: d.Fix.Pos, End: d.Fix.End, NewText: []byte(d.Fix.Text)}},
		}}
	}
	return ad
}

func fixMessage(text string) string {
	if text == "\n\n"+gen.GoGenerateLine {
		return "add " + gen.GoGenerateLine
	}
	return fmt.Sprintf("replace with %s", text)
}

// reportStale reports a generated file that is not what elicitgen would
// write: at each declaration whose code changed, with a fix that rewrites
// the file when it is one of the package's files.
func reportStale(pass *analysis.Pass, s gen.Stale) {
	name := filepath.Base(s.Path)
	if s.Broken != "" {
		pass.Report(analysis.Diagnostic{Pos: s.BrokenAt, Message: gen.BrokenMessage(name, s.Broken)})
		return
	}
	if s.Want == nil {
		for _, f := range pass.Files {
			if pass.Fset.Position(f.Package).Filename == s.Path {
				pass.Reportf(f.Package, "%s is left over: its source declares no forms, tools, prompts or resources any more; run go generate (it removes the file)", name)
			}
		}
		return
	}
	var fixes []analysis.SuggestedFix
	if tf := fileOf(pass, s.Path); tf != nil && s.Exists {
		start := token.Pos(tf.Base())
		fixes = []analysis.SuggestedFix{{
			Message:   "regenerate " + name,
			TextEdits: []analysis.TextEdit{{Pos: start, End: start + token.Pos(tf.Size()), NewText: s.Want}},
		}}
	}
	for _, d := range s.Decls {
		msg := fmt.Sprintf("%s is stale: the code elicitgen generates for %s changed; run go generate", name, d.Name)
		if !s.Exists {
			msg = fmt.Sprintf("%s is missing: elicitgen generates it for %s; run go generate", name, d.Name)
		}
		pass.Report(analysis.Diagnostic{Pos: d.At, Message: msg, SuggestedFixes: fixes})
	}
}

// fileOf is the token.File of the package file at path, or nil.
func fileOf(pass *analysis.Pass, path string) *token.File {
	for _, f := range pass.Files {
		if tf := pass.Fset.File(f.Package); tf != nil && tf.Name() == path {
			return tf
		}
	}
	return nil
}
