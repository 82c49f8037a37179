package runtime_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlySDKAndStdlib pins the runtime's direct imports: the
// standard library and the Go MCP SDK, nothing else (no generator packages,
// no other modules).
func TestImportsOnlySDKAndStdlib(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := strings.Fields(string(out))
	if len(imports) == 0 {
		t.Fatal("no imports listed")
	}
	for _, imp := range imports {
		first, _, _ := strings.Cut(imp, "/")
		if !strings.Contains(first, ".") {
			continue // standard library
		}
		if !strings.HasPrefix(imp, "github.com/modelcontextprotocol/go-sdk/") {
			t.Errorf("runtime imports %s", imp)
		}
	}
}
