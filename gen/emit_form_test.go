package gen_test

import (
	"bytes"
	"go/format"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestEmitIsGofmtClean checks that gofmt leaves every wanted generated
// file of the golden cases as it is: the forms' code is written as text in
// gofmt's layout, not formatted after the fact.
func TestEmitIsGofmtClean(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "testdata", "gen", "*.txtar"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	files := 0
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "want/") || !strings.HasSuffix(f.Name, ".go") {
				continue
			}
			files++
			got, err := format.Source(f.Data)
			if err != nil {
				t.Errorf("%s: %s: %v", filepath.Base(c), f.Name, err)
				continue
			}
			if !bytes.Equal(got, f.Data) {
				t.Errorf("%s: %s is not gofmt-clean", filepath.Base(c), f.Name)
			}
		}
	}
	if files == 0 {
		t.Fatal("no wanted Go files")
	}
}
