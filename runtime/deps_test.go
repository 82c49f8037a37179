package runtime_test

import (
	"os/exec"
	"strings"
	"testing"
)

// allowedImports are the packages of other modules, or of this module, the
// runtime may import, each with its reason; anything else it imports is
// the standard library.
var allowedImports = map[string]string{
	// The sign-in pages (ConnectHandlers) are prose an author edits, kept
	// with the rest of elicitgen's prose; the package imports only the
	// standard library (checked below).
	"github.com/elicitgen/elicitgen/templates": "the sign-in pages",
	// AddTool validates a flat tool's arguments itself, with the SDK's own
	// validator (a dependency of the SDK), its schema resolved once.
	"github.com/google/jsonschema-go/jsonschema": "argument validation",
	// The leaves the generator shares: the format rules and the values
	// generated code and the runtime agree on.
	"github.com/elicitgen/elicitgen/internal/format":   "the format checks",
	"github.com/elicitgen/elicitgen/internal/contract": "the version, the round limit, the token argument",
}

// goList returns the direct imports of pkg.
func goList(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", pkg, err, out)
	}
	imports := strings.Fields(string(out))
	if len(imports) == 0 && pkg == "." {
		t.Fatalf("no imports listed for %s", pkg) // go list failed quietly
	}
	return imports
}

// stdlib reports whether imp is a standard library package.
func stdlib(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

// TestImportsOnlySDKAndStdlib pins the runtime's direct imports: the
// standard library, the Go MCP SDK and allowedImports, nothing else (no
// generator packages, no other modules); the allowed packages of this
// module import only the standard library.
func TestImportsOnlySDKAndStdlib(t *testing.T) {
	for _, imp := range goList(t, ".") {
		_, allowed := allowedImports[imp]
		if !stdlib(imp) && !allowed && !strings.HasPrefix(imp, "github.com/modelcontextprotocol/go-sdk/") {
			t.Errorf("runtime imports %s", imp)
		}
	}
	for pkg := range allowedImports {
		for _, imp := range goList(t, pkg) {
			if !stdlib(imp) {
				t.Errorf("%s, which the runtime imports, imports %s", pkg, imp)
			}
		}
	}
}
