package gen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/elicitgen/elicitgen/gen"
)

// TestGoldenReference renders the reference of every golden case that
// generates (no diagnostics) in each format and compares it with
// testdata/gen/reference/NAME.{md,html,json}; -update rewrites them.
func TestGoldenReference(t *testing.T) {
	root := t.TempDir()
	newModule(t, root, "example.com/golden")
	for _, c := range loadCases(t) {
		if c.stderr != nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, c.name)
			writeCase(t, c, dir, false)
			diags, ref, err := gen.Docs(gen.Config{Dir: dir, Patterns: []string{"."}})
			if err != nil || len(diags) > 0 {
				t.Fatalf("err %v, diagnostics:\n%s", err, diags.Format(dir))
			}
			for _, format := range []string{"md", "html", "json"} {
				got, err := ref.Render(format)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("..", "testdata", "gen", "reference", c.name+"."+format)
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test ./gen -run TestGoldenReference -update)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from %s (run go test ./gen -run TestGoldenReference -update and review the diff)\n%s", format, path, got)
				}
			}
			again, err := ref.Render("json")
			if err != nil {
				t.Fatal(err)
			}
			if parsed, err := gen.ParseReference(again); err != nil {
				t.Errorf("the json does not parse back: %v", err)
			} else if d := gen.DiffReferences(ref, parsed); len(d) > 0 {
				t.Errorf("the json read back differs: %v", d)
			}
		})
	}
}
