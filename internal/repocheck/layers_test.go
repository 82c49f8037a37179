package repocheck

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/elicitgen/elicitgen/"

type listed struct {
	ImportPath string
	Imports    []string
}

// goListAll returns every package of the module, with its direct imports.
func goListAll(t *testing.T) []listed {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < layeredRows() {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}

// stdlib reports whether imp is a standard library package.
func stdlib(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

// TestImportsPointDown holds the layer picture: every import between the
// module's server packages points to a lower layer, every other module's
// package is one its row allows, and no server package imports the
// generator or a package of tests and tools.
func TestImportsPointDown(t *testing.T) {
	seen := 0
	for _, p := range goListAll(t) {
		name := strings.TrimPrefix(p.ImportPath, module)
		row, ok := layered(name)
		if !ok {
			continue // examples, bench, the generator, test tools: checked below
		}
		seen++
		for _, imp := range p.Imports {
			checkImport(t, name, row.layer, row.external, imp)
		}
	}
	if seen != layeredRows() {
		t.Errorf("%d of the %d packages of the table exist", seen, layeredRows())
	}
}

// checkImport reports imp when package name, of layer, may not import it.
func checkImport(t *testing.T, name string, layer int, external []string, imp string) {
	t.Helper()
	if stdlib(imp) {
		return
	}
	if dep, ok := strings.CutPrefix(imp, module); ok {
		row, known := layered(dep)
		switch {
		case !known:
			t.Errorf("%s imports %s, which is not a package servers link (add it to the table of layers)", name, dep)
		case row.layer >= layer:
			t.Errorf("%s (layer %d) imports %s (layer %d): imports point down the layers", name, layer, dep, row.layer)
		}
		return
	}
	for _, prefix := range external {
		if strings.HasPrefix(imp+"/", prefix) {
			return
		}
	}
	t.Errorf("%s imports %s, a module its row does not allow", name, imp)
}

// TestGeneratorSharesOnlyLeaves: gen and the command import, from the
// runtime's side, only the leaves (so the generator links no server stack;
// cmd/elicitgen's TestGeneratorLinksNoServerStack checks the whole build).
func TestGeneratorSharesOnlyLeaves(t *testing.T) {
	for _, p := range goListAll(t) {
		name := strings.TrimPrefix(p.ImportPath, module)
		if !isGenerator(name) {
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if row, server := layered(dep); server && row.layer > 0 {
				t.Errorf("%s imports %s, a server package", name, dep)
			}
		}
	}
}

// TestRuntimeLinksNoOpenTelemetry: what every server links (the user
// package and the generated code's) links no OpenTelemetry; only a server
// that imports runtime/otelelicit does.
func TestRuntimeLinksNoOpenTelemetry(t *testing.T) {
	for _, pkg := range []string{"runtime", "runtime/elicitimpl"} {
		out, err := exec.Command("go", "list", "-deps", module+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for dep := range strings.FieldsSeq(string(out)) {
			if strings.HasPrefix(dep, "go.opentelemetry.io/") {
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
	out, err := exec.Command("go", "list", "-deps", module+"runtime/otelelicit").Output()
	if err != nil {
		t.Fatalf("go list -deps runtime/otelelicit: %v", err)
	}
	for dep := range strings.FieldsSeq(string(out)) {
		if strings.HasPrefix(dep, otelAPI+"/sdk") || strings.HasPrefix(dep, otelAPI+"/exporters") || strings.HasPrefix(dep, "github.com/prometheus/") {
			t.Errorf("runtime/otelelicit links %s: the API only, the SDK is the server's choice (otelsetup's)", dep)
		}
	}
}

// TestTestKitLinksNoBackends: the public test kit links no Redis,
// OpenTelemetry, Prometheus or browser, so that a server's tests build
// with the runtime alone.
func TestTestKitLinksNoBackends(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"runtime/elicittest").Output()
	if err != nil {
		t.Fatalf("go list -deps runtime/elicittest: %v", err)
	}
	for dep := range strings.FieldsSeq(string(out)) {
		for _, banned := range []string{"github.com/redis/", "go.opentelemetry.io/", "github.com/prometheus/", "github.com/chromedp/"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("runtime/elicittest links %s", dep)
			}
		}
	}
}

// TestTestkitOnlyInTests: no package of any module of the repository, test
// helpers aside, imports a test helper outside its tests, so that the
// helpers (which import runtime) are no arrow up the layers.
func TestTestkitOnlyInTests(t *testing.T) {
	helpers := 0
	for _, p := range goListAll(t) {
		name := strings.TrimPrefix(p.ImportPath, module)
		if isTestHelper(name) {
			helpers++
			continue
		}
		for _, imp := range p.Imports {
			if dep, ok := strings.CutPrefix(imp, module); ok && isTestHelper(dep) {
				t.Errorf("%s imports the test helper %s outside its tests", name, dep)
			}
		}
	}
	if helpers < len(rowsOf(testKit)) {
		t.Errorf("found %d test helper packages", helpers)
	}
}
