package vet_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/txtar"

	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
	"github.com/elicitgen/elicitgen/vet"
)

// goldenCase is one case of ../testdata/gen: its inputs, its wanted
// generated files, or its wanted diagnostics.
type goldenCase struct {
	name   string
	inputs []txtar.File
	want   []txtar.File
	stderr []byte
}

func loadCases(t *testing.T) []goldenCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "gen", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	var cases []goldenCase
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := goldenCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar")}
		for _, f := range a.Files {
			switch {
			case f.Name == "stderr":
				c.stderr = f.Data
			case strings.HasPrefix(f.Name, "want/"):
				c.want = append(c.want, txtar.File{Name: strings.TrimPrefix(f.Name, "want/"), Data: f.Data})
			case !strings.HasSuffix(f.Name, "_test.go"):
				c.inputs = append(c.inputs, f)
			}
		}
		cases = append(cases, c)
	}
	return cases
}

// notAnalyzed are the cases whose inputs do not parse or type-check: the
// compiler reports them (go vet stops there), not the analyzer; and cgo,
// which needs a C compiler.
var notAnalyzed = map[string]bool{"reject_typecheck": true, "reject_syntax": true, "cgo": true}

// TestSameAsCheck: over every golden case of the generator, the analyzer
// reports exactly the diagnostics elicitgen prints (file:line:col: message,
// byte for byte), and for a case that generates, with its generated files
// in place, nothing but the missing //go:generate line.
func TestSameAsCheck(t *testing.T) {
	root := t.TempDir()
	testmod.New(t, root, "example.com/golden")
	cases := loadCases(t)
	for _, c := range cases {
		if notAnalyzed[c.name] {
			continue
		}
		dir := filepath.Join(root, c.name)
		writeFiles(t, dir, c.inputs)
		writeFiles(t, dir, c.want)
	}
	got := analyze(t, root, "./...")
	families := 0
	for _, c := range cases {
		if notAnalyzed[c.name] {
			continue
		}
		dir := filepath.Join(root, c.name)
		var lines []string
		for _, d := range got[dir] {
			if c.stderr == nil && strings.Contains(d, "no //go:generate line runs elicitgen") {
				continue
			}
			lines = append(lines, d)
		}
		text := strings.Join(lines, "")
		if c.stderr != nil {
			families++
		}
		if text != string(c.stderr) {
			t.Errorf("%s: the analyzer reports\n%s\nelicitgen reports\n%s", c.name, text, c.stderr)
		}
	}
	if families < 20 {
		t.Errorf("only %d cases with diagnostics", families)
	}
}

// analyze runs the analyzer over the packages of the module in dir and
// returns its diagnostics as file:line:col: message lines (file relative
// to its package's directory), by package directory.
func analyze(t *testing.T, dir string, patterns ...string) map[string][]string {
	t.Helper()
	cfg := &packages.Config{Mode: packages.LoadAllSyntax, Dir: dir, Tests: false}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{vet.Analyzer}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for act := range graph.All() {
		if act.Analyzer != vet.Analyzer {
			continue
		}
		if act.Err != nil {
			t.Errorf("%s: %v", act.Package.PkgPath, act.Err)
			continue
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			pkgDir := filepath.Dir(pos.Filename)
			out[pkgDir] = append(out[pkgDir], fmt.Sprintf("%s:%d:%d: %s\n", filepath.Base(pos.Filename), pos.Line, pos.Column, d.Message))
		}
	}
	return out
}

func writeFiles(t *testing.T, dir string, files []txtar.File) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWantComments runs analysistest over every reject case of the
// generator's goldens (../testdata/gen/reject_*.txtar and the other cases
// with a stderr section), each input written with a // want comment per
// diagnostic, from the golden's stderr: every diagnostic family of Check,
// at its line, with its words.
func TestWantComments(t *testing.T) {
	dir := t.TempDir()
	n := 0
	for _, c := range loadCases(t) {
		if c.stderr == nil || notAnalyzed[c.name] {
			continue
		}
		writeFiles(t, filepath.Join(dir, c.name), wantFiles(t, c))
		n++
	}
	if n < 20 {
		t.Fatalf("only %d cases with diagnostics", n)
	}
	testmod.New(t, dir, "example.com/golden") // the goldens' import paths
	analysistest.Run(t, dir, vet.Analyzer, "./...")
}

// moduleCopy copies the tree src into a throwaway module and returns its
// directory.
func moduleCopy(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	testmod.New(t, dir, "example.com/golden") // the goldens' import paths
	return dir
}

// alsoAt is a note's "also at file:line", whose line the comments above
// the package clause move.
var alsoAt = regexp.MustCompile(`\\\.go:\d+`)

var diagLine = regexp.MustCompile(`^([^:]+):(\d+):(\d+): (.*)$`)

// wantFiles are the inputs of c with, above the package clause, one
// "// want +N" comment per line with diagnostics (a comment on the line
// itself would change a directive, a doc or a field's line comment).
func wantFiles(t *testing.T, c goldenCase) []txtar.File {
	t.Helper()
	byFile := map[string]map[int][]string{}
	for line := range strings.Lines(string(c.stderr)) {
		m := diagLine.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
		if m == nil {
			t.Fatalf("%s: stderr line %q has no position", c.name, line)
		}
		var n int
		fmt.Sscan(m[2], &n)
		if byFile[m[1]] == nil {
			byFile[m[1]] = map[int][]string{}
		}
		byFile[m[1]][n] = append(byFile[m[1]][n], strconv.Quote("^"+alsoAt.ReplaceAllString(regexp.QuoteMeta(m[4]), `.go:[0-9]+`)+"$"))
	}
	var out []txtar.File
	for _, f := range c.inputs {
		lines := byFile[f.Name]
		keys := slices.Sorted(maps.Keys(lines))
		var b strings.Builder
		for i, l := range keys {
			// The comment is on line i+1; the header is len(keys) lines and
			// a blank one.
			fmt.Fprintf(&b, "// want +%d %s\n", l+len(keys)+1-(i+1), strings.Join(lines[l], " "))
		}
		if len(keys) > 0 {
			b.WriteString("\n")
		}
		b.Write(f.Data)
		out = append(out, txtar.File{Name: f.Name, Data: []byte(b.String())})
	}
	return out
}

// TestStale runs analysistest over testdata/stale: a generated file made
// stale by a tag edit (tagedit: only the form whose code changed is
// reported, not its neighbour), an enum constant added (enumadd) and a
// title changed (title), each fixed by rewriting the generated file with
// what elicitgen writes now (app_elicit.go.golden); a missing generated
// file (missing: no fix); and a package without a //go:generate line
// (nogenerate: the fix adds the line elicitgen stub adds).
func TestStale(t *testing.T) {
	dir := moduleCopy(t, filepath.Join("testdata", "stale"))
	analysistest.RunWithSuggestedFixes(t, dir, vet.Analyzer, "./...")
}

// TestFixes runs analysistest over testdata/fixes: each did-you-mean of
// Check (a form option, a step option, a fallback value, a directive, an
// annotation, a task value, a directive written with a space) carries the
// replacement its message names as a suggested fix, applied and compared
// with app.go.golden.
func TestFixes(t *testing.T) {
	dir := moduleCopy(t, filepath.Join("testdata", "fixes"))
	analysistest.RunWithSuggestedFixes(t, dir, vet.Analyzer, "./...")
}

// TestBrokenGenerated runs analysistest over testdata/broken: a nested
// struct added to a form whose generated file, now stale, no longer
// compiles; the analyzer still reports the nested field where it is
// written, and names the generated file stale at the compiler's error.
func TestBrokenGenerated(t *testing.T) {
	dir := moduleCopy(t, filepath.Join("testdata", "broken"))
	analysistest.Run(t, dir, vet.Analyzer, "./...")
}
