package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// loadMode is the least go/packages needs to give for Check: syntax and full
// type information of the named packages, dependencies from export data.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
	packages.NeedTypes | packages.NeedTypesInfo

// loadPackages runs one packages.Load. Compiler errors become Diagnostics, except
// those inside files elicitgen generated, which are stale by definition when
// the forms they were made from changed (they are about to be rewritten).
//
// The fifth result says, for each generated file with type errors, that it
// is stale (BrokenMessage, at its first error): what Generate adds to the
// diagnostics that stop it, since the file is not rewritten then.
func loadPackages(cfg Config) ([]*packages.Package, *token.FileSet, Diagnostics, Diagnostics, error) {
	patterns := cfg.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	fset := token.NewFileSet()
	pcfg := &packages.Config{
		Mode:       loadMode,
		Dir:        cfg.Dir,
		Fset:       fset,
		BuildFlags: cfg.BuildFlags,
		Env:        cfg.Env,
	}
	pkgs, err := packages.Load(pcfg, patterns...)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if len(pkgs) == 0 {
		// The go command found nothing, or refused (for example when go.mod
		// needs updates) without saying so to go/packages.
		return nil, nil, nil, nil, NoPackageError(cfg.Dir, cfg.Env, patterns)
	}
	if err := unloadable(pkgs); err != nil {
		return nil, nil, nil, nil, err
	}
	broken := brokenFiles(fset, pkgs)
	// User code written against a newer generated API fails to type-check
	// against the old generated files. Then load again without them (each
	// reduced to its package clause), so that only errors about what is not
	// generated yet remain, and those Run forgives.
	if overlay := staleOverlay(fset, pkgs); overlay != nil {
		fset = token.NewFileSet()
		pcfg.Fset = fset
		pcfg.Overlay = overlay
		if pkgs, err = packages.Load(pcfg, patterns...); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	var diags Diagnostics
	for _, pkg := range pkgs {
		ours := generatedFiles(fset, pkg)
		hasTypeErrors := false
		for _, e := range pkg.Errors {
			hasTypeErrors = hasTypeErrors || e.Kind == packages.TypeError || e.Kind == packages.ParseError
		}
		for _, e := range pkg.Errors {
			pos := parseErrorPos(e.Pos)
			if ours[pos.Filename] && e.Kind == packages.TypeError {
				continue
			}
			// The go command's own compile of the package repeats the type
			// checker's errors as one "# pkg" block: keep the positioned ones.
			if hasTypeErrors && e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ") {
				continue
			}
			diags = append(diags, Diagnostic{Pos: pos, Message: e.Msg})
		}
	}
	return pkgs, fset, sortDiagnostics(diags), broken, nil
}

// brokenFiles says, for each of elicitgen's files with a type error, that
// it is stale, at its first error.
func brokenFiles(fset *token.FileSet, pkgs []*packages.Package) Diagnostics {
	var broken Diagnostics
	for _, pkg := range pkgs {
		ours := generatedFiles(fset, pkg)
		seen := map[string]bool{}
		for _, e := range pkg.Errors {
			pos := parseErrorPos(e.Pos)
			if e.Kind == packages.TypeError && ours[pos.Filename] && !seen[pos.Filename] {
				seen[pos.Filename] = true
				broken = append(broken, Diagnostic{Pos: pos, Message: BrokenMessage(filepath.Base(pos.Filename), e.Msg)})
			}
		}
	}
	return broken
}

// BrokenMessage says that the generated file name no longer compiles
// against its declarations (cause is the first type error in it): the
// words of the analyzer, elicitgen vet and elicitgen --check.
func BrokenMessage(name, cause string) string {
	return fmt.Sprintf("%s is stale: it no longer compiles against its declarations (%s); run go generate", name, cause)
}

// NoPackageError is the error of a load in dir (with env) where patterns
// matched no package, with the go command's reason: when go.mod needs
// updating, as after the first go generate, whose code imports modules
// go.mod may not require yet, it says so; else it names the remedy that
// most often helps.
func NoPackageError(dir string, env, patterns []string) error {
	cmd := exec.Command("go", append([]string{"list", "-e"}, patterns...)...)
	cmd.Dir, cmd.Env = dir, env
	out, _ := cmd.CombinedOutput()
	if bytes.Contains(out, []byte("updates to go.mod needed")) {
		return fmt.Errorf("no Go package matches %s: go.mod needs updating, as after the first go generate, whose code imports the MCP SDK and the elicitgen runtime: run go mod tidy", strings.Join(patterns, " "))
	}
	return fmt.Errorf("no Go package matches %s (if go.mod needs updating, run go mod tidy)", strings.Join(patterns, " "))
}

// generatedFiles returns the files of pkg that elicitgen wrote: named
// *_elicit.go and headed with the generated-code comment.
func generatedFiles(fset *token.FileSet, pkg *packages.Package) map[string]bool {
	ours := map[string]bool{}
	for _, f := range pkg.Syntax {
		name := sourceName(fset, f)
		if isOurs(name, f) {
			ours[name] = true
		}
	}
	return ours
}

func isOurs(name string, f *ast.File) bool {
	if !strings.HasSuffix(name, generatedSuffix) || !ast.IsGenerated(f) {
		return false
	}
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if c.Text == "// "+header {
				return true
			}
		}
	}
	return false
}

// parseErrorPos reads the "file:line:col" (or "file:line", or "-") of a
// go/packages error.
func parseErrorPos(s string) token.Position {
	if s == "" || s == "-" {
		return token.Position{}
	}
	var pos token.Position
	rest := s
	if i := strings.LastIndexByte(rest, ':'); i > 0 {
		if n, err := strconv.Atoi(rest[i+1:]); err == nil {
			pos.Column = n
			rest = rest[:i]
		}
	}
	if i := strings.LastIndexByte(rest, ':'); i > 0 {
		if n, err := strconv.Atoi(rest[i+1:]); err == nil {
			pos.Line = n
			rest = rest[:i]
		}
	} else if pos.Column != 0 {
		pos.Line, pos.Column = pos.Column, 0
	}
	pos.Filename = filepath.Clean(rest)
	return pos
}

// staleOverlay returns an overlay that empties elicitgen's generated files
// of every package with type errors outside them, or nil when there are
// none.
func staleOverlay(fset *token.FileSet, pkgs []*packages.Package) map[string][]byte {
	var overlay map[string][]byte
	for _, pkg := range pkgs {
		ours := generatedFiles(fset, pkg)
		if len(ours) == 0 {
			continue
		}
		userErrors := false
		for _, e := range pkg.Errors {
			if e.Kind == packages.TypeError && !ours[parseErrorPos(e.Pos).Filename] {
				userErrors = true
			}
		}
		if !userErrors {
			continue
		}
		if overlay == nil {
			overlay = map[string][]byte{}
		}
		for name := range ours {
			overlay[name] = []byte("// " + header + "\n\npackage " + pkg.Name + "\n")
		}
	}
	return overlay
}

// sourceName is the path of the source file f was parsed from. For cgo
// files go/packages parses cmd/cgo's output from the build cache; its line
// directives lead back to the file the user wrote, which is where the
// generated file belongs.
func sourceName(fset *token.FileSet, f *ast.File) string {
	return fset.Position(f.Package).Filename
}

// unloadable is the error of a pattern that names no package (a directory
// that does not exist, say): the go command's own words, as an error
// rather than a diagnostic, since no source position can be fixed.
func unloadable(pkgs []*packages.Package) error {
	var msgs []string
	for _, pkg := range pkgs {
		if len(pkg.GoFiles)+len(pkg.CompiledGoFiles)+len(pkg.OtherFiles) > 0 {
			continue
		}
		for _, e := range pkg.Errors {
			if e.Kind == packages.ListError && e.Pos == "" {
				msgs = append(msgs, e.Msg)
			}
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("no Go package: %s", strings.Join(msgs, "; "))
}
