package golangcilint_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/elicitgen/elicitgen/vet"
	"github.com/elicitgen/elicitgen/vet/golangcilint"
)

// TestRegisteredPlugin does what golangci-lint does with a module plugin,
// short of building golangci-lint (TestGolangciLintCustom does that): it
// looks the plugin up by the name of .golangci.yml in the register, makes
// it with no settings, checks that it asks for types, and runs the
// analyzers it builds with analysistest over the analyzer's fixtures
// (../testdata: a did-you-mean of each kind, stale, missing and
// un-generated code), each diagnostic a // want comment. A plugin not
// registered, registered under another name, or building no analyzer or
// another one fails here.
func TestRegisteredPlugin(t *testing.T) {
	newPlugin, err := register.GetPlugin("elicitgen")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(nil)
	if err != nil {
		t.Fatalf("the plugin with no settings: %v", err)
	}
	if mode := p.GetLoadMode(); mode != register.LoadModeTypesInfo {
		t.Errorf("load mode %q, want %q: the analyzer reads types", mode, register.LoadModeTypesInfo)
	}
	analyzers, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if len(analyzers) != 1 || analyzers[0] != vet.Analyzer {
		t.Fatalf("the plugin builds %v, want vet.Analyzer alone", analyzers)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata"))); err != nil {
		t.Fatal(err)
	}
	fixtureModule(t, dir, "example.com/golden", workingTree(t)) // the fixtures' import paths
	for _, a := range analyzers {
		results := analysistest.Run(t, dir, a, "./...")
		if len(results) < 6 {
			t.Errorf("%s ran over %d packages, want the 6 fixtures", a.Name, len(results))
		}
	}
}

// TestSettings: the analyzer has no settings, so the plugin accepts none
// (no settings key, or an empty one: nil or an empty map from golangci-lint)
// and fails on any other, naming what it was given and the docs.
func TestSettings(t *testing.T) {
	for _, s := range []any{nil, map[string]any{}, []any{}} {
		if _, err := golangcilint.New(s); err != nil {
			t.Errorf("New(%#v): %v", s, err)
		}
	}
	for _, c := range []struct {
		settings any
		want     string
	}{
		{map[string]any{"strict": true, "fix": false}, "settings has fix, strict: remove them"},
		{"strict", "settings has strict: remove them"},
		{[]any{"x"}, "settings has [x]: remove them"},
	} {
		p, err := golangcilint.New(c.settings)
		if err == nil {
			t.Errorf("New(%#v) accepted settings the analyzer does not have: %v", c.settings, p)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "the elicitgen linter takes no settings, but linters.settings.custom.elicitgen."+c.want) ||
			!strings.Contains(msg, "docs/reference/vet.md") {
			t.Errorf("New(%#v): %q, want it to say %q and point at docs/reference/vet.md", c.settings, msg, c.want)
		}
	}
}

// TestNotLinkedByCommandOrServers: the plugin's register (and the plugin)
// are linked by a golangci-lint that imports the plugin, not by the
// elicitgen command nor by any runtime package a server links.
func TestNotLinkedByCommandOrServers(t *testing.T) {
	root := workingTree(t)
	cmd := exec.Command("go", "list", "-deps", "./cmd/elicitgen", "./runtime/...")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps listed %d packages", len(deps))
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "github.com/golangci/") || strings.HasPrefix(dep, "github.com/elicitgen/elicitgen/vet/golangcilint") {
			t.Errorf("the command or a runtime package links %s", dep)
		}
	}
}

// workingTree is the directory the go command gives module elicitgen
// from this module, outside the workspace: go.mod's replace makes it the
// checkout this module sits in (../..).
func workingTree(t *testing.T) string {
	t.Helper()
	out := goCmd(t, "", "list", "-m", "-f", "{{.Dir}}", "github.com/elicitgen/elicitgen")
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		t.Fatal("go list -m github.com/elicitgen/elicitgen: no directory; go.mod should replace it by the checkout")
	}
	return dir
}

// fixtureModule turns dir into module path on the checkout at root:
// go mod init, elicitgen required and replaced by root, root's go.sum,
// then go mod tidy adds what the files in dir import beside elicitgen
// (the go-sdk, at the version root selects).
func fixtureModule(t *testing.T, dir, path, root string) {
	t.Helper()
	goCmd(t, dir, "mod", "init", path)
	goCmd(t, dir, "mod", "edit",
		"-require", "github.com/elicitgen/elicitgen@v0.0.0",
		"-replace", "github.com/elicitgen/elicitgen="+root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	goCmd(t, dir, "mod", "tidy")
}
