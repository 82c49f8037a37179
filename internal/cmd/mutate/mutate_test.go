package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
)

// TestMutationsApply: every mutation of .ci/mutations reads and still
// applies to the code (its function exists and holds its snippet once),
// without building or running anything; the mutant run is .ci/run's.
// When code moves, this says which mutation to update.
func TestMutationsApply(t *testing.T) {
	root := testmod.Root(t)
	ms, err := Load(filepath.Join(root, ".ci", "mutations"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if _, err := Apply(root, m); err != nil {
			t.Error(err)
		}
	}
}

// TestTableIsCurrent: docs/results/mutations.md is what go run ./internal/cmd/mutate
// -write writes for .ci/mutations.
func TestTableIsCurrent(t *testing.T) {
	root := testmod.Root(t)
	ms, err := Load(filepath.Join(root, ".ci", "mutations"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "docs", "results", "mutations.md"))
	if err != nil || string(got) != Table(ms) {
		t.Fatalf("docs/results/mutations.md is not current (%v): run go run ./internal/cmd/mutate -write", err)
	}
}

// TestGuaranteesNamePages: every mutation names the page of its
// guarantee, which exists: "security: ROW" (a section of docs/security/guarantees.md)
// or "FOLDER/PAGE.md, SECTION" (docs/FOLDER/PAGE.md).
func TestGuaranteesNamePages(t *testing.T) {
	root := testmod.Root(t)
	ms, err := Load(filepath.Join(root, ".ci", "mutations"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		page, _, ok := strings.Cut(m.Guarantee, ", ")
		if strings.HasPrefix(m.Guarantee, "security: ") {
			page, ok = "security/guarantees.md", true
		}
		if _, err := os.Stat(filepath.Join(root, "docs", page)); !ok || !strings.HasSuffix(page, ".md") || err != nil {
			t.Errorf("%s: guarantee %q names no page of docs/ (%v)", m.File, m.Guarantee, err)
		}
	}
}

// TestApplyByFunction: an edit lands in the named function only, in
// whichever file of the package holds it; a snippet missing from it, or
// found twice, or a function that is gone, is an error that says to
// update the mutation.
func TestApplyByFunction(t *testing.T) {
	dir := t.TempDir()
	testmod.WriteFiles(t, dir, map[string]string{
		"p/a.go":      "package p\n\nfunc f() bool { return true }\n\nfunc g() bool { return true }\n",
		"p/b.go":      "package p\n\ntype T struct{}\n\nfunc (*T) h() int { x := 1; x++; return x + x }\n",
		"p/a_test.go": "package p\n\nfunc f2() bool { return true }\n",
	})
	parse := func(body string) *Mutation {
		t.Helper()
		m, err := Parse("m.txt", []byte("guarantee: g\nmutant: m\ntest: ./p TestX\n"+body))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	files, err := Apply(dir, parse("-- find ./p g --\nreturn true\n-- replace --\nreturn false\n"))
	if got := string(files[filepath.Join(dir, "p", "a.go")]); err != nil || !strings.Contains(got, "func f() bool { return true }") || !strings.Contains(got, "func g() bool { return false }") {
		t.Fatalf("g: %q %v", got, err)
	}
	if _, err := Apply(dir, parse("-- find ./p (*T).h --\nx := 1\n-- replace --\nx := 2\n")); err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]string{
		"-- find ./p g --\nreturn 1\n-- replace --\nreturn 2\n":  "no longer applies: its snippet is not in func g",
		"-- find ./p (*T).h --\nx\n-- replace --\ny\n":           "appears 4 times",
		"-- find ./p f2 --\nreturn true\n-- replace --\nfalse\n": "no longer applies: no func f2",
	} {
		if _, err := Apply(dir, parse(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
	for _, bad := range []string{"guarantee: g\nmutant: m\n-- find ./p g --\na\n-- replace --\nb\n", "guarantee: g\nmutant: m\ntest: ./p T\n-- find ./p g --\na\n", "guarantee: g\nmutant: m\ntest: ./p T\n-- find ./p g --\na\n-- replace --\na\n"} {
		if _, err := Parse("bad.txt", []byte(bad)); err == nil {
			t.Errorf("Parse(%q) took it", bad)
		}
	}
}

// TestSchemataSelectsEachMutant: one build of a package holding every
// mutant behaves as the original without ELICITGEN_MUTANT and as exactly
// one mutant with it, for the shapes a mutated function can have
// (results or none, a method on a pointer or generic receiver, unnamed,
// blank and variadic parameters, type parameters, two edits of one
// mutant in two functions, two mutants of one function), and keeps every
// line of the original where it was. A mutant that changes a signature
// is left out, to run alone.
func TestSchemataSelectsEachMutant(t *testing.T) {
	dir := t.TempDir()
	const p = `package p

import "fmt"

type T struct{ n int }

type G[K comparable] struct{ k K }

func Add(a, b int) int { return a + b }

func (t *T) Bump(_ int, _ string) { t.n++ }

func (*T) Unnamed(int, string) int { return 1 }

func Join(sep string, parts ...string) (s string) {
	for _, p := range parts {
		s += p + sep
	}
	return s
}

func Pick[V any](ok bool, a, b V) V {
	if ok {
		return a
	}
	return b
}

func (g G[K]) Is(k K) bool { return g.k == k }

func Line() string { return fmt.Sprint(line()) }
`
	const main = `package main

import (
	"fmt"

	"m/p"
)

func main() {
	t := &p.T{}
	t.Bump(1, "x")
	fmt.Println(p.Add(2, 3), p.Join(",", "a", "b"), p.Pick(true, "a", "b"), p.G[int]{}.Is(0), t.Unnamed(0, ""), p.Line(), *t)
}
`
	testmod.WriteFiles(t, dir, map[string]string{
		"go.mod": "module m\n\ngo 1.26\n", "p/p.go": p, "main.go": main,
		"p/line.go": "package p\n\nimport \"runtime\"\n\nfunc line() int { _, _, n, _ := runtime.Caller(1); return n }\n",
	})
	mutants := map[string]string{
		"add.txt":  "-- find ./p Add --\na + b\n-- replace --\na - b\n",
		"add2.txt": "-- find ./p Add --\na + b\n-- replace --\na * b\n",
		"two.txt":  "-- find ./p (*T).Bump --\nt.n++\n-- replace --\nt.n += 2\n-- find ./p Join --\np + sep\n-- replace --\nsep + p\n",
		"pick.txt": "-- find ./p Pick --\nreturn a\n-- replace --\nreturn b\n",
		"is.txt":   "-- find ./p G.Is --\ng.k == k\n-- replace --\ng.k != k\n",
		"un.txt":   "-- find ./p (*T).Unnamed --\nreturn 1\n-- replace --\nreturn 2\n",
		"line.txt": "-- find ./p Line --\nline()\n-- replace --\nline() * 0\n",
		"sig.txt":  "-- find ./p Add --\na, b int) int\n-- replace --\na, b int) int64\n",
	}
	var ms []*Mutation
	for name, body := range mutants {
		m, err := Parse(name, []byte("guarantee: g\nmutant: m\ntest: ./p TestX\n"+body))
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	files, alone, err := Schemata(dir, ms)
	if err != nil || len(alone) != 1 || alone[0].File != "sig.txt" {
		t.Fatalf("left out %v (%v), want sig.txt", alone, err)
	}
	if got := strings.Split(string(files[filepath.Join(dir, "p", "p.go")]), "\n")[30]; !strings.HasPrefix(got, "func Line() string {") {
		t.Fatalf("line 31 of the schemata is %q, want Line's", got)
	}
	overlay, err := writeOverlay(t.TempDir(), files)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "m")
	if out, err := testmod.Go(t, dir, "build", "-overlay", overlay, "-o", bin, "."); err != nil {
		t.Fatalf("the schemata do not build: %v\n%s", err, out)
	}
	for mutant, want := range map[string]string{
		"":         "5 a,b, a true 1 31 {1}",
		"add.txt":  "-1 a,b, a true 1 31 {1}",
		"add2.txt": "6 a,b, a true 1 31 {1}",
		"two.txt":  "5 ,a,b a true 1 31 {2}",
		"pick.txt": "5 a,b, b true 1 31 {1}",
		"is.txt":   "5 a,b, a false 1 31 {1}",
		"un.txt":   "5 a,b, a true 2 31 {1}",
		"line.txt": "5 a,b, a true 1 0 {1}",
	} {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), MutantVar+"="+mutant)
		out, err := cmd.CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != want {
			t.Errorf("%s=%q: %q %v, want %q", MutantVar, mutant, got, err, want)
		}
	}
}
