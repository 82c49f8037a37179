package docscheck

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
)

// markdown returns README.md and every Markdown page under docs/ (its
// folders too) of the repository.
func markdown(t *testing.T) []string {
	t.Helper()
	root := testmod.Root(t)
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && filepath.Ext(path) == ".md" {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) < 20 {
		t.Fatalf("found %d pages under docs/ (%v)", len(files)-1, err)
	}
	return files
}

// TestLinks: every relative link of README.md and docs/**/*.md resolves, to a
// file or directory and, with a fragment, to a heading of that Markdown
// file; a link whose text is a test's name points at the file declaring it.
func TestLinks(t *testing.T) {
	for _, path := range markdown(t) {
		d, err := Read(path)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, p := range CheckLinks(d) {
			t.Error(p)
		}
	}
}

// TestExcerptsMatch: every code block of README.md and docs/**/*.md marked
// <!-- excerpt: PATH --> is lines of that file, in order (blank lines
// aside): a declaration quoted "from examples/deploy/tool.go" is what the
// file declares; a block that drifted, or whose lines are out of order,
// is reported.
func TestExcerptsMatch(t *testing.T) {
	root := testmod.Root(t)
	n := 0
	for _, path := range markdown(t) {
		d, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Excerpts {
			n++
			if p := CheckExcerpt(d, s, root); p != "" {
				t.Error(p)
			}
		}
	}
	if n == 0 {
		t.Error("no excerpt is marked")
	}
	d := &Doc{Path: "x.md"}
	drifted := Snippet{Line: 1, Name: "examples/deploy/tool.go", Excerpt: true, Body: "type Deploy struct {\n\tArgs DeployArgs\n}\n"}
	if p := CheckExcerpt(d, drifted, root); !strings.Contains(p, `"\tArgs DeployArgs" is not a line of the file`) {
		t.Errorf("a drifted excerpt: %q", p)
	}
	reordered := Snippet{Line: 1, Name: "examples/deploy/tool.go", Excerpt: true, Body: "type Deploy struct {\npackage main\n"}
	if p := CheckExcerpt(d, reordered, root); p == "" {
		t.Error("an excerpt out of order passed")
	}
}

// TestCodeSpanNamesExist: every test, fuzz target and benchmark that
// README.md or docs/*.md names in a code span (`TestX`, `go test -fuzz
// FuzzX`) is declared in a Go file of the repository: a renamed test does
// not leave its old name in the docs.
func TestCodeSpanNamesExist(t *testing.T) {
	declared, err := Declared(testmod.Root(t))
	if err != nil {
		t.Fatal(err)
	}
	if !declared["TestCodeSpanNamesExist"] {
		t.Fatal("Declared missed this test")
	}
	for _, path := range markdown(t) {
		d, err := Read(path)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, p := range CheckNames(d, declared) {
			t.Error(p)
		}
	}
}

// TestReadFindsNamesInCodeSpans: names in code spans, several to a span,
// but not patterns, path elements, fenced code or plain text.
func TestReadFindsNamesInCodeSpans(t *testing.T) {
	dir := t.TempDir()
	testmod.WriteFiles(t, dir, map[string]string{"a.md": "TestPlain, `TestA` and `go test -run 'TestB|TestC' -fuzz FuzzD`,\n" +
		"[`BenchmarkE`](x_test.go), `FuzzDecode*`, `testdata/fuzz/FuzzX/`, `TestF/sub`, `Testing`, `TestG.`\n```\n`TestH`\n```\n"})
	d, err := Read(filepath.Join(dir, "a.md"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range d.Names {
		got = append(got, n.Name)
	}
	if strings.Join(got, " ") != "TestA TestB TestC FuzzD BenchmarkE TestG" {
		t.Errorf("names %q", got)
	}
	if p := CheckNames(d, map[string]bool{"TestA": true, "TestB": true, "TestC": true, "FuzzD": true, "BenchmarkE": true}); len(p) != 1 || !strings.Contains(p[0], "a.md:2: TestG is named") {
		t.Errorf("problems %q", p)
	}
}

// TestReadFindsLinksAnchorsAndSnippets checks the reader on a document
// with each construct, including the ones it must not take for links.
func TestReadFindsLinksAnchorsAndSnippets(t *testing.T) {
	dir := t.TempDir()
	src := "# Top\n\n## What `--check` does: twice\n\n## What `--check` does: twice\n\n" +
		"See [one](other.md#b-c) and [`TestX`](x_test.go), not `[code](nope.md)`.\n\n" +
		"```md\n[in a block](nope.md)\n# not a heading\n```\n\n" +
		"<!-- file: main.go -->\n```go\npackage main\n```\n\n[web](https://example.com/x.md)\n"
	testmod.WriteFiles(t, dir, map[string]string{
		"a.md":      src,
		"other.md":  "# A\n\n## B, c!\n",
		"x_test.go": "package x\n\nfunc TestX(t *testing.T) {}\n",
	})
	d, err := Read(filepath.Join(dir, "a.md"))
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, l := range d.Links {
		targets = append(targets, l.Target)
	}
	if got := strings.Join(targets, " "); got != "other.md#b-c x_test.go https://example.com/x.md" {
		t.Errorf("links: %s", got)
	}
	anchors := d.Anchors()
	for _, a := range []string{"top", "what---check-does-twice", "what---check-does-twice-1"} {
		if !anchors[a] {
			t.Errorf("no anchor %q in %v", a, anchors)
		}
	}
	if len(d.Files) != 1 || d.Files[0].Name != "main.go" || d.Files[0].Body != "package main\n" || d.Files[0].Lang != "go" {
		t.Errorf("snippets: %+v", d.Files)
	}
	if p := CheckLinks(d); len(p) != 0 {
		t.Errorf("problems in a correct document: %v", p)
	}

	// Each kind of broken link is reported.
	testmod.WriteFiles(t, dir, map[string]string{
		"b.md": "[gone](gone.md) [frag](other.md#nope) [`TestY`](x_test.go) [dirfrag](x_test.go#L3) [self](#top)\n\n# Top\n",
	})
	d, err = Read(filepath.Join(dir, "b.md"))
	if err != nil {
		t.Fatal(err)
	}
	problems := CheckLinks(d)
	want := []string{"gone.md: no such file", "#nope", "does not declare TestY", "not Markdown"}
	if len(problems) != len(want) {
		t.Fatalf("problems: %q", problems)
	}
	for i, w := range want {
		if !strings.Contains(problems[i], w) {
			t.Errorf("problem %d: %q, want %q", i, problems[i], w)
		}
	}

	// A marker without its block is an error.
	testmod.WriteFiles(t, dir, map[string]string{"c.md": "<!-- file: x.go -->\ntext\n"})
	if _, err := Read(filepath.Join(dir, "c.md")); err == nil {
		t.Error("a marker without a block was accepted")
	}
}

// TestWholeFileSnippetsBuild: the whole-file snippets of every docs page
// (README.md's are the quick start, which TestQuickStart builds and runs)
// build as one module per page, after elicitgen ran over it.
func TestWholeFileSnippetsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules")
	}
	for _, path := range markdown(t)[1:] {
		d, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Files) == 0 {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			dir := snippetModule(t, d)
			if out, err := testmod.Go(t, dir, "vet", "./..."); err != nil {
				t.Fatalf("%s: the whole-file snippets do not build: %v\n%s", path, err, out)
			}
		})
	}
}

// snippetModule writes d's whole-file snippets into a new module that
// requires this checkout (as the README's Install does, with elicitgen as
// a tool), and runs go generate in it.
func snippetModule(t *testing.T, d *Doc) string {
	t.Helper()
	dir := t.TempDir()
	testmod.New(t, dir, "example.com/snippets")
	if out, err := testmod.Go(t, dir, "mod", "edit", "-tool", "github.com/elicitgen/elicitgen/cmd/elicitgen"); err != nil {
		t.Fatalf("go mod edit: %v\n%s", err, out)
	}
	files := map[string]string{}
	for _, f := range d.Files {
		if f.Name == "go.mod" || f.Name == "go.sum" {
			t.Fatalf("%s:%d: a snippet module's go.mod is made by the test", d.Path, f.Line)
		}
		if _, dup := files[f.Name]; dup {
			t.Fatalf("%s:%d: file %s given twice", d.Path, f.Line, f.Name)
		}
		files[f.Name] = f.Body
	}
	testmod.WriteFiles(t, dir, files)
	if out, err := testmod.Go(t, dir, "generate", "./..."); err != nil {
		t.Fatalf("go generate: %v\n%s", err, out)
	}
	return dir
}
