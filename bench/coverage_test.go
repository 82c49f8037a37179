package bench

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryExampleFormIsBenchmarked keeps the decode table complete: every
// form of the examples (a type with a generated DecodeElicit) has a
// baseline.BenchDecode, here or in its own package's tests.
func TestEveryExampleFormIsBenchmarked(t *testing.T) {
	forms := map[string]bool{}   // "pkg.Type" of every example form
	benched := map[string]bool{} // "pkg.Type" of every BenchDecode
	files, err := filepath.Glob("../examples/*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	here, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range append(files, here...) {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		pkg := filepath.Base(filepath.Dir(name)) // examples/X: X; main packages too
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Name.Name == "DecodeElicit" && n.Recv != nil {
					if star, ok := n.Recv.List[0].Type.(*ast.StarExpr); ok {
						if id, ok := star.X.(*ast.Ident); ok {
							forms[pkg+"."+id.Name] = true
						}
					}
				}
			case *ast.IndexListExpr:
				if sel, ok := n.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "BenchDecode" {
					switch form := n.Indices[0].(type) {
					case *ast.Ident:
						benched[pkg+"."+form.Name] = true
					case *ast.SelectorExpr:
						benched[form.X.(*ast.Ident).Name+"."+form.Sel.Name] = true
					}
				}
			}
			return true
		})
	}
	if len(forms) < 10 {
		t.Fatalf("found only %d example forms: %v", len(forms), forms)
	}
	var missing []string
	for form := range forms {
		if !benched[form] {
			missing = append(missing, form)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("example forms without a decode benchmark (baseline.BenchDecode): %v", missing)
	}
}

// TestEveryGeneratedFormIsFuzzed keeps docs/security/guarantees.md's "FuzzDecode*,
// one per generated form of the repository" true: every form of the
// examples and of bench/forms (a type with a generated DecodeElicit) has
// a fuzz target of its package that runs formcheck.Fuzz on it.
func TestEveryGeneratedFormIsFuzzed(t *testing.T) {
	forms := map[string]bool{}  // "pkg.Type" of every form
	fuzzed := map[string]bool{} // "pkg.Type" of every formcheck.Fuzz in a Fuzz function
	var files []string
	for _, pattern := range []string{"../examples/*/*.go", "forms/*.go"} {
		f, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		pkg := filepath.Base(filepath.Dir(name))
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if fd.Name.Name == "DecodeElicit" && fd.Recv != nil {
				if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
					if id, ok := star.X.(*ast.Ident); ok {
						forms[pkg+"."+id.Name] = true
					}
				}
			}
			if fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Fuzz") || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				ix, ok := n.(*ast.IndexExpr)
				if !ok {
					return true
				}
				if sel, ok := ix.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Fuzz" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "formcheck" {
						if id, ok := ix.Index.(*ast.Ident); ok {
							fuzzed[pkg+"."+id.Name] = true
						}
					}
				}
				return true
			})
		}
	}
	if len(forms) < 20 {
		t.Fatalf("found only %d generated forms: %v", len(forms), forms)
	}
	var missing []string
	for form := range forms {
		if !fuzzed[form] {
			missing = append(missing, form)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("generated forms without a FuzzDecode target (formcheck.Fuzz in a Fuzz function of their package): %v", missing)
	}
	t.Logf("%d generated forms, each fuzzed", len(forms))
}
