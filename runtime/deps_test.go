package runtime_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/elicitgen/elicitgen/"

// layers is the picture of docs/design.md#layers as a table: every package
// of the module that servers link, with its layer. A package imports only
// packages of lower layers (never its own layer: no sideways arrows, so the
// transport cannot import tasks) and, from other modules, only what its
// row's external list allows; the standard library is always allowed.
var layers = map[string]struct {
	layer    int
	external []string // module path prefixes
}{
	// Leaves: the standard library only. The generator shares format,
	// contract and templates; seal is the key ring and sealed states.
	"internal/format":   {0, nil},
	"internal/contract": {0, nil},
	"internal/seal":     {0, nil},
	// The contract of stores and hooks (tasks, grants, single-use claims,
	// events): what a backend implements, with the memory defaults.
	"runtime/backend": {0, nil},
	"templates":       {0, nil},

	// What users hold: the options, the task, the answers, the errors,
	// the key ring (docs/design.md#packages). Below the interpreter,
	// which is built on these types, as protobuf-go's proto is below its
	// internal/impl.
	"runtime": {1, []string{sdk}},
	// Why a state, token or link was refused, logged for the operator.
	"internal/refuse": {1, nil},

	// The task runtime: a task's run (its record, lease, watcher, end,
	// restart), bounds, leases, drain, status messages, the
	// names the Tasks wire shares with the interpreter.
	"internal/taskrun": {2, []string{sdk}},

	// The interpreter of step tables, on the SDK.
	"internal/machine": {3, []string{sdk, jsonschema}},

	// Features in rooms of their own, above the interpreter: the
	// transports (HTTP for both eras, legacy sessions). Tasks plug into
	// the transport through its hooks (transport.Hooks), wired by
	// runtime/serve.
	"internal/transport": {4, []string{sdk}},
	"internal/tasks":     {4, []string{sdk}},

	// The entry points and what generated code imports.
	"runtime/serve":      {5, []string{sdk}},
	"runtime/elicitimpl": {5, []string{sdk}},
	"runtime/signin":     {5, nil},
	// The public test kit (docs/testing.md): on top of the entry points,
	// for tests only (see testHelpers).
	"runtime/elicittest": {6, []string{sdk}},
	// The adapters, modules of their own (docs/modules.md): they import
	// the contract and the user package, never the interpreter.
	"runtime/redisstore": {2, []string{"github.com/redis/go-redis/v9"}},
	// The runtime's hooks as OpenTelemetry: the API only (its SDK and
	// exporters are the server's choice, as in examples/deploy).
	"runtime/otelelicit": {2, []string{otelAPI + "/"}},
	// The opt-in setup of the SDK, its exporters and Prometheus from the
	// OTEL_* environment, above the hooks it returns
	// (docs/observability.md#telemetry-in-five-lines-otelsetup).
	"runtime/otelelicit/otelsetup": {3, []string{otelAPI + "/", "github.com/prometheus/client_golang/"}},
}

const (
	otelAPI    = "go.opentelemetry.io/otel"
	sdk        = "github.com/modelcontextprotocol/go-sdk/"
	jsonschema = "github.com/google/jsonschema-go/"
)

// generator is the generator's side: it shares only the leaves with the
// runtime.
var generator = map[string]bool{"gen": true, "vet": true, "cmd/elicitgen": true}

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
	if len(pkgs) < len(layers) {
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
		row, ok := layers[name]
		if !ok {
			continue // examples, bench, the generator, test tools: checked below
		}
		seen++
		for _, imp := range p.Imports {
			checkImport(t, name, row.layer, row.external, imp)
		}
	}
	if seen != len(layers) {
		t.Errorf("%d of the %d packages of the table exist", seen, len(layers))
	}
}

// checkImport reports imp when package name, of layer, may not import it.
func checkImport(t *testing.T, name string, layer int, external []string, imp string) {
	t.Helper()
	if stdlib(imp) {
		return
	}
	if dep, ok := strings.CutPrefix(imp, module); ok {
		row, known := layers[dep]
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
		if !generator[name] {
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if row, server := layers[dep]; server && row.layer > 0 {
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

// testHelpers are the packages that only tests import: the repository's
// test kit and the adapters' public test helpers (docs/modules.md).
var testHelpers = []string{"internal/testkit/", "runtime/elicittest", "runtime/redisstore/redistest", "runtime/otelelicit/oteltest"}

func isTestHelper(name string) bool {
	for _, h := range testHelpers {
		if strings.HasPrefix(name+"/", h) || strings.HasPrefix(name, h) {
			return true
		}
	}
	return false
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
	if helpers < len(testHelpers) {
		t.Errorf("found %d test helper packages", helpers)
	}
}
