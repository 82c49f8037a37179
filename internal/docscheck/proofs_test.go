package docscheck

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
)

// TestGuaranteesProvedBesideTheirCode: the pages of guarantees link no
// test under examples/. A guarantee is proven in the module that
// holds it, so that `go test ./...` at the root (and in the adapters'
// modules) proves every section; the examples' tests, which hold the
// guarantees again from outside, are listed on security/from-outside.md.
func TestGuaranteesProvedBesideTheirCode(t *testing.T) {
	root := testmod.Root(t)
	for _, page := range []string{"guarantees.md", "hardening-http.md"} {
		d, err := Read(filepath.Join(root, "docs", "security", page))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range d.Links {
			target := filepath.ToSlash(filepath.Join("docs", "security", l.Target))
			if strings.HasPrefix(target, "examples/") && strings.HasSuffix(target, "_test.go") {
				t.Errorf("%s:%d links %s, a test of an example: prove the guarantee beside its code and list the example's test on from-outside.md", page, l.Line, l.Target)
			}
		}
	}
}
