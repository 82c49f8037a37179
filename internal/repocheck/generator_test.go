package repocheck

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGeneratorLinksNoServerStack: the generator shares the runtime's
// rules through leaf packages (internal/format, internal/contract) and
// links neither net/http nor the go-sdk, nor the runtime itself; the
// leaves import only the standard library.
func TestGeneratorLinksNoServerStack(t *testing.T) {
	for _, imp := range goList(t, "-deps", module+"cmd/elicitgen") {
		if imp == "net/http" || strings.HasPrefix(imp, "github.com/modelcontextprotocol/go-sdk") ||
			strings.HasPrefix(imp, "github.com/elicitgen/elicitgen/runtime") {
			t.Errorf("the generator links %s", imp)
		}
	}
	for _, leaf := range []string{module + "internal/format", module + "internal/contract"} {
		for _, imp := range goList(t, "-deps", leaf) {
			if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") && imp != leaf {
				t.Errorf("leaf %s links %s", leaf, imp)
			}
		}
	}
}

// goList lists the packages go list prints for its arguments.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, out)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) == 0 {
		t.Fatalf("go list %v listed nothing", args)
	}
	return pkgs
}
