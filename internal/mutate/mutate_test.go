package main

import (
	"os"
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

// TestTableIsCurrent: docs/mutations.md is what go run ./internal/mutate
// -write writes for .ci/mutations.
func TestTableIsCurrent(t *testing.T) {
	root := testmod.Root(t)
	ms, err := Load(filepath.Join(root, ".ci", "mutations"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "docs", "mutations.md"))
	if err != nil || string(got) != Table(ms) {
		t.Fatalf("docs/mutations.md is not current (%v): run go run ./internal/mutate -write", err)
	}
}

// TestGuaranteesNamePages: every mutation names the page of its
// guarantee, which exists: "security: ROW" (a row of security.md) or
// "PAGE.md, SECTION" (docs/PAGE.md).
func TestGuaranteesNamePages(t *testing.T) {
	root := testmod.Root(t)
	ms, err := Load(filepath.Join(root, ".ci", "mutations"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		page, _, ok := strings.Cut(m.Guarantee, ", ")
		if strings.HasPrefix(m.Guarantee, "security: ") {
			page, ok = "security.md", true
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
