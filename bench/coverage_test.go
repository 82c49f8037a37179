package bench

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
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
