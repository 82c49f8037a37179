package gen_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/elicitgen/elicitgen/gen"
)

// TestDeterministic runs the pipeline twice on the examples and compares
// the bytes of every output.
func TestDeterministic(t *testing.T) {
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cfg := gen.Config{Dir: dir, Patterns: []string{"./examples/..."}}
	_, first, err := gen.Run(cfg)
	if err != nil || first == nil {
		t.Fatalf("run: %v", err)
	}
	_, second, err := gen.Run(cfg)
	if err != nil || second == nil {
		t.Fatalf("run: %v", err)
	}
	if len(first.Files) == 0 || len(first.Files) != len(second.Files) {
		t.Fatalf("file counts %d, %d", len(first.Files), len(second.Files))
	}
	for p, b := range first.Files {
		if !bytes.Equal(b, second.Files[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
}
