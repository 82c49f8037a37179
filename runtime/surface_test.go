package runtime_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUserSurface holds the user package to what a server author reads:
// every exported name is one an author meets, named by an example server, the package's godoc
// examples, the stub elicitgen writes or a documentation page. A name only
// generated code or tests need belongs in runtime/elicitimpl or a test
// helper, not here.
func TestUserSurface(t *testing.T) {
	code, docs := readUses(t)
	names := exportedNames(t)
	if len(names) < 40 {
		t.Fatalf("found %d exported names in runtime", len(names))
	}
	for _, name := range names {
		qualified := regexp.MustCompile(`\b(elicitrt|runtime)\.` + name + `\b`)
		span := regexp.MustCompile("`[^`\n]*\\b" + name + "\\b[^`\n]*`")
		if !qualified.MatchString(code) && !qualified.MatchString(docs) && !span.MatchString(docs) {
			t.Errorf("runtime.%s is named by no example server, godoc example, stub or documentation page: document it, or move it out of the user package", name)
		}
	}
}

// exportedNames returns the package-level exported names declared by the
// package's non-test files.
func exportedNames(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	var names []string
	files, _ := filepath.Glob("*.go")
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			names = append(names, declNames(d)...)
		}
	}
	return names
}

func declNames(d ast.Decl) []string {
	var names []string
	add := func(id *ast.Ident) {
		if id.IsExported() {
			names = append(names, id.Name)
		}
	}
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			add(d.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				add(s.Name)
			case *ast.ValueSpec:
				for _, id := range s.Names {
					add(id)
				}
			}
		}
	}
	return names
}

// readUses returns the Go a server author reads (the example servers
// without their tests, the package's godoc examples, the stub generator)
// and the documentation pages.
func readUses(t *testing.T) (code, docs string) {
	t.Helper()
	var c, d strings.Builder
	read := func(b *strings.Builder, path string) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	err := filepath.WalkDir("../examples", func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			read(&c, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	read(&c, "example_test.go")
	read(&c, "../gen/stub.go")
	var pages []string
	_ = filepath.WalkDir("../docs", func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	for _, path := range append(pages, "../README.md") {
		read(&d, path)
	}
	if c.Len() == 0 || len(pages) < 10 {
		t.Fatalf("read %d bytes of examples and %d pages", c.Len(), len(pages))
	}
	return c.String(), d.String()
}

// TestUserTypesAreDefinedHere: the types a handler or main holds are
// defined in the user packages, so that go doc and pkg.go.dev show their
// fields and methods where users look (issue 37): no exported type of
// runtime, runtime/serve or runtime/backend is an alias, and go doc shows
// ToolOptions' fields and Task's methods.
func TestUserTypesAreDefinedHere(t *testing.T) {
	for _, dir := range []string{".", "serve", "backend"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.TYPE {
					continue
				}
				for _, s := range g.Specs {
					if ts := s.(*ast.TypeSpec); ts.Assign.IsValid() && ts.Name.IsExported() {
						t.Errorf("%s: type %s is an alias: define it here, with its fields and methods", path, ts.Name.Name)
					}
				}
			}
		}
	}
	for name, want := range map[string][]string{
		"ToolOptions": {"Keys *Keyring", "Tasks backend.TaskStore", "TaskLimits *TaskLimits", "Hooks backend.Hooks"},
		"Task":        {"Ask(ctx context.Context, steps ...int) (Reply, error)", "Progress(ctx context.Context, message string) error"},
		"HTTPOptions": {"MaxRequestBodyBytes int64"},
	} {
		out, err := exec.Command("go", "doc", ".", name).Output()
		if err != nil {
			t.Fatalf("go doc %s: %v", name, err)
		}
		for _, w := range want {
			if !strings.Contains(string(out), w) {
				t.Errorf("go doc ./runtime %s does not show %q:\n%s", name, w, out)
			}
		}
	}
}
