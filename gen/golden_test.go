package gen_test

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/elicitgen/elicitgen/gen"
)

var update = flag.Bool("update", false, "rewrite the wanted sections of testdata/gen/*.txtar")

// A golden case is testdata/gen/NAME.txtar: Go source files (the package
// under test; a go.mod is added), then either one want/FILE section per
// generated file, or a stderr section with the wanted diagnostics. Files
// named *_test.go are not inputs to elicitgen: they are compiled and run
// with the generated code (TestGoldenCompile).
type goldenCase struct {
	name    string
	path    string
	archive *txtar.Archive
	inputs  []txtar.File // .go sources, including _test.go
	want    map[string][]byte
	stderr  *txtar.File
}

func loadCases(t *testing.T) []*goldenCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "gen", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	var cases []*goldenCase
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := &goldenCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), path: p, archive: a, want: map[string][]byte{}}
		for i := range a.Files {
			f := a.Files[i]
			switch {
			case f.Name == "stderr":
				c.stderr = &a.Files[i]
			case strings.HasPrefix(f.Name, "want/"):
				c.want[strings.TrimPrefix(f.Name, "want/")] = f.Data
			default:
				c.inputs = append(c.inputs, f)
			}
		}
		cases = append(cases, c)
	}
	return cases
}

// writeCase lays the case's inputs out in dir (without _test.go files when
// withTests is false).
func writeCase(t *testing.T, c *goldenCase, dir string, withTests bool) {
	t.Helper()
	for _, f := range c.inputs {
		if !withTests && strings.HasSuffix(f.Name, "_test.go") {
			continue
		}
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// repoRoot is the elicitgen module root.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// newModule writes a go.mod (and go.sum) in dir that requires elicitgen,
// replaced by this working tree, with the same dependency versions.
func newModule(t *testing.T, dir, path string) {
	t.Helper()
	root := repoRoot(t)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var requires []string
	for _, line := range strings.Split(string(mod), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "github.com/") || strings.HasPrefix(line, "golang.org/") {
			requires = append(requires, "\t"+strings.TrimSuffix(line, " // indirect"))
		}
	}
	gomod := "module " + path + "\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/elicitgen/elicitgen v0.0.0\n" + strings.Join(requires, "\n") +
		"\n)\n\nreplace github.com/elicitgen/elicitgen => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
}

// generate runs the pipeline (without writing) on a case laid out in dir.
func generate(t *testing.T, dir string) (*gen.Result, *gen.Output) {
	t.Helper()
	cfg := gen.Config{Dir: dir, Patterns: []string{"."}}
	pkgs, fset, diags, err := gen.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) > 0 {
		return &gen.Result{Diagnostics: diags}, nil
	}
	model, diags := gen.Check(pkgs, fset)
	if len(diags) > 0 {
		return &gen.Result{Diagnostics: diags}, nil
	}
	out, err := gen.Emit(model)
	if err != nil {
		t.Fatal(err)
	}
	return &gen.Result{}, out
}

// TestGolden compares every case's output, byte for byte, with its wanted
// files or diagnostics. With -update it rewrites them instead.
func TestGolden(t *testing.T) {
	root := t.TempDir()
	newModule(t, root, "example.com/golden")
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, c.name)
			writeCase(t, c, dir, false)
			res, out := generate(t, dir)
			got := map[string][]byte{}
			var stderr []byte
			if len(res.Diagnostics) > 0 {
				stderr = []byte(res.Diagnostics.Format(dir))
			} else {
				for p, b := range out.Files {
					got[filepath.Base(p)] = b
				}
			}
			if *update {
				rewriteCase(t, c, got, stderr)
				return
			}
			if c.stderr != nil {
				if len(res.Diagnostics) == 0 {
					t.Fatalf("want diagnostics, got none (files %v)", slices.Sorted(mapsKeys(got)))
				}
				if !bytes.Equal(stderr, c.stderr.Data) {
					t.Errorf("diagnostics differ\n--- got\n%s--- want\n%s", stderr, c.stderr.Data)
				}
				if out != nil && len(out.Files) > 0 {
					t.Errorf("files emitted despite diagnostics")
				}
				return
			}
			if len(res.Diagnostics) > 0 {
				t.Fatalf("unexpected diagnostics:\n%s", stderr)
			}
			for name, want := range c.want {
				if !bytes.Equal(got[name], want) {
					t.Errorf("%s differs from want/%s (run go test ./gen -update and review the diff)\n%s", name, name, got[name])
				}
			}
			for name := range got {
				if _, ok := c.want[name]; !ok {
					t.Errorf("unexpected generated file %s", name)
				}
			}
			for name, b := range got {
				f, err := parser.ParseFile(token.NewFileSet(), name, b, parser.ParseComments|parser.PackageClauseOnly)
				if err != nil {
					t.Fatal(err)
				}
				if !ast.IsGenerated(f) {
					t.Errorf("%s: not recognised as generated by ast.IsGenerated", name)
				}
				if f.Doc != nil {
					t.Errorf("%s: the header must not be package documentation", name)
				}
			}
		})
	}
}

func mapsKeys(m map[string][]byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func rewriteCase(t *testing.T, c *goldenCase, got map[string][]byte, stderr []byte) {
	t.Helper()
	a := &txtar.Archive{Comment: c.archive.Comment}
	a.Files = append(a.Files, c.inputs...)
	if stderr != nil {
		a.Files = append(a.Files, txtar.File{Name: "stderr", Data: stderr})
	} else {
		for _, name := range slices.Sorted(mapsKeys(got)) {
			a.Files = append(a.Files, txtar.File{Name: "want/" + name, Data: got[name]})
		}
	}
	if err := os.WriteFile(c.path, txtar.Format(a), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenCompile builds every successful case's inputs with their
// generated files in one module, vets them, and runs their _test.go files,
// which exercise the decoders on valid and invalid content.
func TestGoldenCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	root := t.TempDir()
	newModule(t, root, "example.com/golden")
	n := 0
	for _, c := range loadCases(t) {
		if c.stderr != nil {
			continue
		}
		dir := filepath.Join(root, c.name)
		writeCase(t, c, dir, true)
		for name, b := range c.want {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		n++
	}
	if n == 0 {
		t.Fatal("no successful golden cases")
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("go %s:\n%s", strings.Join(args, " "), out)
	}
}
