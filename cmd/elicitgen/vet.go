package main

import (
	"cmp"
	"fmt"
	"go/token"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/elicitgen/elicitgen/gen"
	"github.com/elicitgen/elicitgen/vet"
)

// vetProtocol reports whether go vet runs this binary as its -vettool
// (go vet -vettool=$(go tool -n elicitgen)): it asks -V=full or -flags,
// or hands it one *.cfg file after flags. Then main hands the process to
// unitchecker before cobra sees the arguments.
func vetProtocol(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if args[0] == "-V=full" || args[0] == "-flags" {
		return true
	}
	last := args[len(args)-1]
	if !strings.HasSuffix(last, ".cfg") {
		return false
	}
	for _, a := range args[:len(args)-1] {
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

func newVetCmd(stdout, stderr io.Writer) *cobra.Command {
	var tags string
	var hosts bool
	cmd := &cobra.Command{
		Use:   "vet [packages]",
		Short: "Report elicitgen's diagnostics, stale generated files and a missing //go:generate line, as go vet does",
		Long: `vet runs elicitgen's analyzer (package github.com/elicitgen/elicitgen/vet)
over the packages given (default "."), as go vet runs its own: every
diagnostic elicitgen reports when it generates, a generated file that is not
what elicitgen would write now (at the declaration whose code changed), and
a package that declares forms, tools, prompts or resources with no
//go:generate line running elicitgen. It prints file:line:col: message,
writes nothing, and exits 1 when it found something, 0 when not, 2 when the
packages cannot be loaded. With --hosts it also reports, at each step, what
a host people use cannot show (a number field Codex shows as approve or
decline only, a URL step without a fallback on hosts with no URL mode) and
what the person gets there instead: the notes of elicitgen docs.

The same binary is a go vet tool: go vet -vettool=$(go tool -n elicitgen) ./...
(and gopls, and golangci-lint as a module plugin: docs/reference/vet.md).`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return &exitError{exitUsage, err}
			}
			found, err := vetPackages(wd, tags, args)
			if err == nil && hosts {
				var notes []string
				notes, err = vetHosts(wd, tags, args)
				found = append(found, notes...)
			}
			if err != nil {
				return &exitError{exitUsage, err}
			}
			for _, line := range found {
				fmt.Fprintln(stderr, line)
			}
			if len(found) > 0 {
				return &exitError{code: exitDiag}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&tags, "tags", "", "comma-separated build tags")
	cmd.Flags().BoolVar(&hosts, "hosts", false, "also report, at each step, what a host of the host matrix cannot show and what its person gets instead (docs/reference/vet.md)")
	return cmd
}

// vetMode is what the analyzer needs: syntax and types of the packages
// named, their dependencies from export data (it uses no facts).
const vetMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
	packages.NeedTypesInfo | packages.NeedTypesSizes | packages.NeedModule | packages.NeedImports

// vetPackages loads the packages matching patterns in dir and runs the
// analyzer on them. It returns every finding as file:line:col: message,
// the file relative to dir: the packages' own errors (which stop the
// analysis of a package, as in go vet), then the analyzer's diagnostics.
func vetPackages(dir, tags string, patterns []string) ([]string, error) {
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	cfg := &packages.Config{Mode: vetMode, Dir: dir}
	if tags != "" {
		cfg.BuildFlags = []string{"-tags=" + tags}
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, gen.NoPackageError(dir, nil, patterns)
	}
	var found gen.Diagnostics
	for _, pkg := range pkgs {
		if len(pkg.GoFiles)+len(pkg.OtherFiles) == 0 && len(pkg.Errors) > 0 {
			return nil, fmt.Errorf("no Go package: %s", pkg.Errors[0].Msg)
		}
		found = append(found, packageErrors(pkg)...)
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{vet.Analyzer}, pkgs, nil)
	if err != nil {
		return nil, err
	}
	for act := range graph.All() {
		if act.Err != nil && len(act.Package.Errors) == 0 {
			return nil, act.Err
		}
		for _, d := range act.Diagnostics {
			found = append(found, gen.Diagnostic{Pos: act.Package.Fset.Position(d.Pos), Message: d.Message})
		}
	}
	slices.SortStableFunc(found, func(a, b gen.Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Pos.Filename, b.Pos.Filename), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Column, b.Pos.Column))
	})
	lines := make([]string, 0, len(found))
	for _, d := range slices.Compact(found) {
		lines = append(lines, d.Format(dir))
	}
	return lines, nil
}

// packageErrors are pkg's errors as diagnostics: the type checker's once
// (not again in the go command's "# pkg" block that repeats them), then,
// when a name is missing, a line saying that the package was not analysed
// and that elicitgen may be what would declare the name.
func packageErrors(pkg *packages.Package) gen.Diagnostics {
	typed := slices.ContainsFunc(pkg.Errors, func(e packages.Error) bool {
		return e.Kind == packages.TypeError || e.Kind == packages.ParseError
	})
	var found gen.Diagnostics
	missing := false
	for _, e := range pkg.Errors {
		if typed && e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ") {
			continue
		}
		missing = missing || strings.HasPrefix(e.Msg, "undefined: ") || strings.Contains(e.Msg, "has no field or method")
		found = append(found, gen.Diagnostic{Pos: errorPos(e), Message: e.Msg})
	}
	if missing {
		found = append(found, gen.Diagnostic{Pos: token.Position{Filename: pkg.PkgPath}, Message: "not analysed: the package does not type-check; " +
			"if the missing names are what elicitgen generates (a handler interface, a Register function, a form's methods), run go generate first"})
	}
	return found
}

// errorPos reads the "file:line:col" of a go/packages error.
func errorPos(e packages.Error) token.Position {
	var pos token.Position
	parts := strings.Split(e.Pos, ":")
	if len(parts) >= 3 {
		pos.Filename = strings.Join(parts[:len(parts)-2], ":")
		fmt.Sscan(parts[len(parts)-2], &pos.Line)
		fmt.Sscan(parts[len(parts)-1], &pos.Column)
	} else if e.Pos != "-" {
		pos.Filename = e.Pos
	}
	return pos
}
