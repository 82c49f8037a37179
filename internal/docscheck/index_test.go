package docscheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
)

// TestDocsIndexNamesEveryPage: docs/README.md, the index, links every
// Markdown page under docs/ (in folders too), and each once.
func TestDocsIndexNamesEveryPage(t *testing.T) {
	root := testmod.Root(t)
	docs := filepath.Join(root, "docs")
	index, err := Read(filepath.Join(docs, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]int{}
	for _, l := range index.Links {
		if External(l.Target) {
			continue
		}
		target, _, _ := strings.Cut(l.Target, "#")
		linked[filepath.Clean(filepath.Join(docs, target))]++
	}
	pages := 0
	err = filepath.WalkDir(docs, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(path) != ".md" || path == index.Path {
			return err
		}
		pages++
		rel, _ := filepath.Rel(docs, path)
		switch n := linked[path]; {
		case n == 0:
			t.Errorf("docs/README.md does not name %s: add it under the heading of its readers", rel)
		case n > 1:
			t.Errorf("docs/README.md names %s %d times: once is an index", rel, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 20 {
		t.Fatalf("found %d pages under docs/: the walk missed them", pages)
	}
}

// historyPage reports whether path is a page that records how the project
// got here (docs/results/, measured or generated, and docs/design/history.md),
// where a tracker's issue number is a date of sorts; every other page, and
// the README, is read by users and names none.
func historyPage(path string) bool {
	slash := filepath.ToSlash(path)
	return strings.Contains(slash, "/docs/results/") || strings.HasSuffix(slash, "/docs/design/history.md")
}

var trackerIssue = regexp.MustCompile(`(?i)\bissues? #?[0-9]+`)

// TestUserPagesNameNoIssue: the pages a user reads name no issue of the
// project's tracker ("issue 37"): they say what is, not which issue did it.
func TestUserPagesNameNoIssue(t *testing.T) {
	for _, path := range markdown(t) {
		if historyPage(path) {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := trackerIssue.FindString(line); m != "" && !strings.Contains(line, "/issues/") {
				t.Errorf("%s:%d names %q: say what is, without the tracker's number", filepath.Base(path), i+1, m)
			}
		}
	}
}
