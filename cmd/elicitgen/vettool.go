package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/elicitgen/elicitgen/vet"
)

// unitConfig is what vetStaleUnit reads of the unit go vet describes in
// its *.cfg file (unitchecker's Config).
type unitConfig struct {
	Compiler, ImportPath, GoVersion   string
	GoFiles, NonGoFiles, IgnoredFiles []string
	ImportMap, PackageFile            map[string]string
	VetxOnly                          bool
}

// vetStaleUnit analyses a unit that unitchecker would refuse: one whose
// type errors are all in elicitgen's generated files (stale ones, which no
// longer compile against their declarations). unitchecker stops at the
// first type error, so go vet would print only the compiler's; this prints
// the analyzer's diagnostics instead (Check's and the stale line), as
// unitchecker prints them (file:line:col: message on stderr), and returns
// exit status 1. ok is false for every other unit: unitchecker takes it.
func vetStaleUnit(args []string, stderr io.Writer) (code int, ok bool) {
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		return 0, false
	}
	data, err := os.ReadFile(args[len(args)-1])
	var cfg unitConfig
	if err != nil || json.Unmarshal(data, &cfg) != nil || cfg.VetxOnly {
		return 0, false
	}
	fset := token.NewFileSet()
	files, ours := parseUnit(fset, cfg.GoFiles)
	if len(ours) == 0 {
		return 0, false
	}
	pass, ok := typeCheckUnit(fset, &cfg, files, ours)
	if !ok {
		return 0, false
	}
	var found []analysis.Diagnostic
	pass.Report = func(d analysis.Diagnostic) { found = append(found, d) }
	if _, err := vet.Analyzer.Run(pass); err != nil || len(found) == 0 {
		return 0, false
	}
	for _, d := range found {
		fmt.Fprintf(stderr, "%s: %s\n", fset.Position(d.Pos), d.Message)
	}
	return 1, true
}

// parseUnit parses the unit's files; ours are the names of those elicitgen
// generated. A file that does not parse leaves the unit to unitchecker.
func parseUnit(fset *token.FileSet, names []string) ([]*ast.File, map[string]bool) {
	var files []*ast.File
	ours := map[string]bool{}
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, nil
		}
		if strings.HasSuffix(name, "_elicit.go") && ast.IsGenerated(f) {
			ours[name] = true
		}
		files = append(files, f)
	}
	return files, ours
}

// typeCheckUnit type-checks the unit against its dependencies' export data
// (as unitchecker does), collecting every error. It returns the pass to
// run the analyzer on when there are errors and all are in ours.
func typeCheckUnit(fset *token.FileSet, cfg *unitConfig, files []*ast.File, ours map[string]bool) (*analysis.Pass, bool) {
	compiler := importer.ForCompiler(fset, cfg.Compiler, func(path string) (io.ReadCloser, error) {
		file, ok := cfg.PackageFile[path]
		if !ok {
			return nil, fmt.Errorf("no package file for %q", path)
		}
		return os.Open(file)
	})
	var errs []types.Error
	foreign := false
	tc := &types.Config{
		Importer: importerFunc(func(importPath string) (*types.Package, error) {
			path, ok := cfg.ImportMap[importPath]
			if !ok {
				return nil, fmt.Errorf("can't resolve import %q", importPath)
			}
			return compiler.Import(path)
		}),
		Sizes:     types.SizesFor("gc", build.Default.GOARCH),
		GoVersion: cfg.GoVersion,
		Error: func(err error) {
			te, ok := err.(types.Error)
			foreign = foreign || !ok || !ours[fset.Position(te.Pos).Filename]
			errs = append(errs, te)
		},
	}
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Implicits: map[ast.Node]types.Object{},
		Instances: map[*ast.Ident]types.Instance{}, Scopes: map[ast.Node]*types.Scope{},
		Selections: map[*ast.SelectorExpr]*types.Selection{}, FileVersions: map[*ast.File]string{},
	}
	pkg, _ := tc.Check(cfg.ImportPath, fset, files, info)
	if len(errs) == 0 || foreign {
		return nil, false
	}
	return &analysis.Pass{
		Analyzer: vet.Analyzer, Fset: fset, Files: files, OtherFiles: cfg.NonGoFiles,
		IgnoredFiles: cfg.IgnoredFiles, Pkg: pkg, TypesInfo: info, TypesSizes: tc.Sizes,
		TypeErrors: errs, ReadFile: os.ReadFile, ResultOf: map[*analysis.Analyzer]any{},
	}, true
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
