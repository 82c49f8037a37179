package repocheck

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const (
	maxLines      = 60
	maxComplexity = 25
)

// roots are the trees the rule holds for, from the module root.
var roots = []string{"gen", "vet", "runtime", "internal/format", "internal/contract", "internal/seal", "internal/machine", "internal/transport", "internal/tasks", "internal/taskrun", "runtime/otelelicit/oteltest"}

type figures struct{ lines, complexity int }

// TestFunctionSize holds the project's size rules for hand-written code:
// no function in gen/, runtime/ or the leaves they share (internal/format,
// internal/contract; tests and generated files aside) over
// maxLines lines or over cyclomatic complexity maxComplexity, as gocyclo
// counts it. The functions that break the rule today are listed in
// oversized.txt with their figures; the list may only shrink: a new
// function over the limits fails, and so does a listed one that grew,
// that shrank without its figures written down, or that is now within
// them and should leave the list.
func TestFunctionSize(t *testing.T) {
	allowed := readAllowed(t)
	found := map[string]figures{}
	for _, root := range roots {
		for name, f := range measureTree(t, filepath.Join("..", "..", root)) {
			found[name] = f
		}
	}
	for name, f := range found {
		over := f.lines > maxLines || f.complexity > maxComplexity
		was, listed := allowed[name]
		switch {
		case over && !listed:
			t.Errorf("%s: %d lines, complexity %d (at most %d and %d): split it", name, f.lines, f.complexity, maxLines, maxComplexity)
		case over && (f.lines > was.lines || f.complexity > was.complexity):
			t.Errorf("%s grew to %d lines, complexity %d (listed at %d, %d): split it instead", name, f.lines, f.complexity, was.lines, was.complexity)
		case over && (f.lines < was.lines || f.complexity < was.complexity):
			t.Errorf("%s shrank to %d lines, complexity %d: write these figures in oversized.txt, so that it cannot grow back", name, f.lines, f.complexity)
		case !over && listed:
			t.Errorf("%s is within the limits now (%d lines, complexity %d): remove it from oversized.txt", name, f.lines, f.complexity)
		}
	}
	for name := range allowed {
		if _, ok := found[name]; !ok {
			t.Errorf("%s is listed in oversized.txt but no longer exists: remove it", name)
		}
	}
	if t.Failed() {
		t.Log("the list as it would be now:\n" + listing(found))
	}
}

// measureTree measures every function of the non-test, non-generated Go
// files under dir, by "package/dir.Recv.Name" (a move between the files of
// a package keeps the name).
func measureTree(t *testing.T, dir string) map[string]figures {
	out := map[string]figures{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), path)
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				out[filepath.ToSlash(filepath.Dir(rel))+"."+funcName(fn)] = figures{lines, complexity(fn)}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr:
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// complexity is gocyclo's: 1, plus one for each if, for, range, non-default
// case and communication clause, && and ||. Function literals count in the
// function that holds them.
func complexity(fn *ast.FuncDecl) int {
	n := 1
	ast.Inspect(fn.Body, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

// readAllowed reads oversized.txt: "name lines complexity" a line.
func readAllowed(t *testing.T) map[string]figures {
	f, err := os.Open("oversized.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]figures{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var name string
		var fig figures
		if _, err := fmt.Sscanf(line, "%s %d %d", &name, &fig.lines, &fig.complexity); err != nil {
			t.Fatalf("oversized.txt: %q: %v", line, err)
		}
		out[name] = fig
	}
	return out
}

// listing prints the oversized functions of found in oversized.txt's form.
func listing(found map[string]figures) string {
	var lines []string
	for name, f := range found {
		if f.lines > maxLines || f.complexity > maxComplexity {
			lines = append(lines, fmt.Sprintf("%s %d %d", name, f.lines, f.complexity))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
