package gen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// A Package is one type-checked package as a go/analysis pass gives it:
// what Vet runs Check on.
type Package struct {
	Fset  *token.FileSet
	Files []*ast.File
	Types *types.Package
	Info  *types.Info
	// ReadFile reads a file of the package; nil means os.ReadFile.
	ReadFile func(string) ([]byte, error)
	// IgnoredFiles are the package's .go files that the build excludes
	// (build constraints): a //go:generate line there counts too.
	IgnoredFiles []string
	// TypeErrors are the type checker's errors (a pass's TypeErrors). Vet
	// analyses a package whose only errors are in generated files (stale
	// ones, which no longer compile against their declarations), and no
	// other ill-typed package.
	TypeErrors []types.Error
}

// Findings are what Vet finds in one package.
type Findings struct {
	// Diagnostics are Check's, with At and Fix set. When there are any,
	// nothing is emitted, so nothing below is looked at.
	Diagnostics Diagnostics
	// Stale lists the generated files whose bytes differ from what
	// Generate would write now.
	Stale []Stale
	// GoGenerate, when not nil, is the missing //go:generate line: a
	// diagnostic at the package clause of the first file that declares
	// something, whose Fix adds the line AddGoGenerate would add.
	GoGenerate *Diagnostic
}

// Stale is one generated file that is not what Generate would write.
type Stale struct {
	Path string // the generated file
	// Want is what Generate would write; nil when no source declares
	// anything for the file any more (Generate removes it).
	Want []byte
	// Exists is false when the file is missing.
	Exists bool
	// Decls are the declarations whose generated code changed, in source
	// order; when none can be told apart (only the file's header or
	// imports differ), the first declaration of the source file.
	Decls []Decl
	// Source is the file the declarations are in ("" for a left-over file).
	Source string
	// Broken, when not empty, is the first type error in the file, at
	// BrokenAt: the file no longer compiles against its declarations.
	Broken   string
	BrokenAt token.Pos
}

// Decl is a declaration of a form, tool, prompt or resource.
type Decl struct {
	Name string
	At   token.Pos // its type name
}

// Vet runs Check on one package, as Generate would, then Emit, and
// compares the generated files with what they should be. Its error is
// for unreadable files and internal errors, never the user's.
func Vet(p Package) (*Findings, error) {
	broken, ok := brokenGenerated(p)
	if !ok {
		return &Findings{}, nil
	}
	c := &checker{fset: p.Fset}
	pm := c.checkPackage(&unit{Syntax: p.Files, Types: p.Types, TypesInfo: p.Info})
	if len(c.diags) > 0 {
		return &Findings{Diagnostics: sortDiagnostics(c.diags), Stale: broken}, nil
	}
	f := &Findings{Stale: broken}
	if pm == nil {
		return f, nil
	}
	out, err := emit(&model{Packages: []*pkgModel{pm}})
	if err != nil {
		return nil, err
	}
	read := p.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	if f.Stale, err = staleFiles(pm, out, read, p.Types.Scope()); err != nil {
		return nil, err
	}
	f.GoGenerate = missingGoGenerate(p, pm, read)
	return f, nil
}

// brokenGenerated returns the generated files of p with type errors, each
// with its first, and whether every type error of p is in one of them.
func brokenGenerated(p Package) ([]Stale, bool) {
	ours := map[string]bool{}
	for _, f := range p.Files {
		if name := sourceName(p.Fset, f); isOurs(name, f) {
			ours[name] = true
		}
	}
	var broken []Stale
	seen := map[string]bool{}
	for _, e := range p.TypeErrors {
		name := p.Fset.Position(e.Pos).Filename
		if !ours[name] {
			return nil, false
		}
		if !seen[name] {
			seen[name] = true
			broken = append(broken, Stale{Path: name, Exists: true, Broken: e.Msg, BrokenAt: e.Pos})
		}
	}
	return broken, true
}

// staleFiles compares the output with the files on disk.
func staleFiles(pm *pkgModel, out *output, read func(string) ([]byte, error), scope *types.Scope) ([]Stale, error) {
	var stale []Stale
	for _, file := range pm.Files {
		want, ok := out.Files[file.Output]
		if !ok {
			continue
		}
		have, err := read(file.Output)
		exists := !errors.Is(err, fs.ErrNotExist)
		if err != nil && exists {
			return nil, err
		}
		if exists && bytes.Equal(have, want) {
			continue
		}
		decls, err := changedDecls(pm, file, have, want, scope)
		if err != nil {
			return nil, err
		}
		stale = append(stale, Stale{Path: file.Output, Want: want, Exists: exists, Decls: decls, Source: file.Source})
	}
	for _, g := range out.Stale {
		stale = append(stale, Stale{Path: g, Exists: true})
	}
	return stale, nil
}

// changedDecls tells which declarations of file have generated code that
// differs between have and want. Each declaration's part of want is found
// by printing the file with that declaration alone: the top-level
// declarations of want are those of each declaration in turn (forms, then
// tools), after the version lock.
func changedDecls(pm *pkgModel, file *fileModel, have, want []byte, scope *types.Scope) ([]Decl, error) {
	var all []Decl
	var counts []int
	add := func(name string, solo *fileModel) error {
		src, err := emitFile(pm, solo)
		if err != nil {
			return err
		}
		n, err := topDecls(src)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", errInternal, name, err)
		}
		all = append(all, Decl{Name: name, At: scope.Lookup(name).Pos()})
		counts = append(counts, len(n)-1) // without the version lock
		return nil
	}
	for _, form := range file.Forms {
		if err := add(form.Name, &fileModel{Source: file.Source, Output: file.Output, Build: file.Build, Forms: []*formModel{form}, Imports: file.Imports}); err != nil {
			return nil, err
		}
	}
	for _, tool := range file.Tools {
		if err := add(tool.Name, &fileModel{Source: file.Source, Output: file.Output, Build: file.Build, Tools: []*toolModel{tool}, Imports: file.Imports}); err != nil {
			return nil, err
		}
	}
	wantDecls, _ := topDecls(want)
	haveDecls, _ := topDecls(have)
	sum := 1
	for _, n := range counts {
		sum += n
	}
	if len(have) == 0 || sum != len(wantDecls) {
		return firstDecl(all), nil
	}
	var changed []Decl
	next := 1
	for i, d := range all {
		for _, text := range wantDecls[next : next+counts[i]] {
			if !slices.Contains(haveDecls, text) {
				changed = append(changed, d)
				break
			}
		}
		next += counts[i]
	}
	if len(changed) == 0 {
		return firstDecl(all), nil
	}
	slices.SortFunc(changed, func(a, b Decl) int { return int(a.At - b.At) })
	return changed, nil
}

func firstDecl(all []Decl) []Decl {
	if len(all) == 0 {
		return nil
	}
	return []Decl{slices.MinFunc(all, func(a, b Decl) int { return int(a.At - b.At) })}
}

// topDecls returns the text of each top-level declaration of a Go file
// but its imports, with its doc comment, in order.
func topDecls(src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var texts []string
	for _, d := range f.Decls {
		start := d.Pos()
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue // the file's, not a declaration's
			}
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		case *ast.FuncDecl:
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
		}
		texts = append(texts, string(src[fset.Position(start).Offset:fset.Position(d.End()).Offset]))
	}
	return texts, nil
}

// missingGoGenerate is the diagnostic of a package that declares something
// and has no //go:generate line running elicitgen in any of its files.
func missingGoGenerate(p Package, pm *pkgModel, read func(string) ([]byte, error)) *Diagnostic {
	for _, name := range p.IgnoredFiles {
		if src, err := read(name); err == nil && strings.HasSuffix(name, ".go") && runsElicitgen(src) {
			return nil
		}
	}
	var first *ast.File
	for _, f := range p.Files {
		name := sourceName(p.Fset, f)
		for _, cg := range f.Comments {
			for _, cm := range cg.List {
				if runsElicitgen([]byte(cm.Text)) {
					return nil
				}
			}
		}
		if first == nil && declaresIn(pm, name) {
			first = f
		}
	}
	if first == nil {
		return nil
	}
	at, text := goGenerateInsert(first)
	return &Diagnostic{
		Pos: p.Fset.Position(first.Name.Pos()), At: first.Name.Pos(),
		Message: "package " + first.Name.Name + " declares forms, tools, prompts or resources, but no //go:generate line runs elicitgen: add " + GoGenerateLine,
		Fix:     Edit{Pos: at, End: at, Text: text},
	}
}

// declaresIn reports whether source file name declares a form, tool,
// prompt or resource.
func declaresIn(pm *pkgModel, name string) bool {
	for _, f := range pm.Files {
		if f.Source == name && len(f.Forms)+len(f.Tools) > 0 {
			return true
		}
	}
	return false
}
