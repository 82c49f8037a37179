package gen

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// TestEmitErrorsAreInternal: every error emit returns wraps errInternal
// (read from its source: each return of an error is nil or
// fmt.Errorf("%w...", errInternal, ...)), and a model Check would never
// make (a form named as no Go identifier) gives one.
func TestEmitErrorsAreInternal(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "emit.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	returns := 0
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != "emit" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			r, ok := n.(*ast.ReturnStmt)
			if !ok || len(r.Results) != 2 {
				return true
			}
			returns++
			switch e := r.Results[1].(type) {
			case *ast.Ident:
				if e.Name == "nil" {
					return true
				}
			case *ast.CallExpr:
				if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Errorf" && len(e.Args) > 1 {
					format, _ := strconv.Unquote(e.Args[0].(*ast.BasicLit).Value)
					if id, ok := e.Args[1].(*ast.Ident); ok && id.Name == "errInternal" && strings.HasPrefix(format, "%w") {
						return true
					}
				}
			}
			t.Errorf("%s: emit returns an error that is not errInternal", fset.Position(r.Pos()))
			return true
		})
	}
	if returns == 0 {
		t.Fatal("no returns of emit found")
	}

	m := &model{Packages: []*pkgModel{{Path: "example.com/x", Name: "x", Files: []*fileModel{{
		Source: "/x/a.go", Output: "/x/a_elicit.go",
		Forms: []*formModel{{Name: "1 bad", Schema: []byte(`{}`), SchemaVar: "s"}},
	}}}}}
	if _, err := emit(m); !errors.Is(err, errInternal) {
		t.Fatalf("Emit of a model Check would refuse: %v, want errInternal", err)
	}
}

// TestGroupImports: jennifer's one block, sorted by path, becomes the
// standard library, a blank line, the rest; a block of one group, or no
// block, is left as it is.
func TestGroupImports(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{
			"package p\n\nimport (\n\t\"context\"\n\telicitrt \"github.com/e/runtime\"\n\t\"github.com/m/mcp\"\n\tmath_ \"math\"\n)\n\nfunc f() {}\n",
			"package p\n\nimport (\n\t\"context\"\n\tmath_ \"math\"\n\n\telicitrt \"github.com/e/runtime\"\n\t\"github.com/m/mcp\"\n)\n\nfunc f() {}\n",
		},
		{"package p\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n", "package p\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n"},
		{"package p\n\nimport (\n\t\"a.com/x\"\n\t\"b.org/y\"\n)\n", "package p\n\nimport (\n\t\"a.com/x\"\n\t\"b.org/y\"\n)\n"},
		{"package p\n\nimport \"fmt\"\n", "package p\n\nimport \"fmt\"\n"},
	} {
		if got := string(groupImports([]byte(tt.in))); got != tt.want {
			t.Errorf("groupImports(%q) =\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
}
