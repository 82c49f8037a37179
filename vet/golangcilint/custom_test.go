package golangcilint_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// golangciVersion is the golangci-lint the plugin is built into: the one
// docs/reference/vet.md is written against.
const golangciVersion = "v2.15.0"

// TestGolangciLintCustom builds a golangci-lint with the plugin in it, as
// golangci-lint custom does, and runs it: over the analyzer's fixtures it
// reports exactly vet/testdata/vettool.stderr (what go vet -vettool
// reports there), over the examples (./... in their module) nothing, and
// with a setting the plugin does not have it stops with the plugin's
// error. It takes minutes
// and a few hundred megabytes of modules, so it runs only when asked:
//
//	ELICITGEN_GOLANGCI=1 go test -count=1 -timeout 30m -run TestGolangciLintCustom -v ./vet/golangcilint/
func TestGolangciLintCustom(t *testing.T) {
	if os.Getenv("ELICITGEN_GOLANGCI") != "1" {
		t.Skip("builds golangci-lint " + golangciVersion + " with the plugin (minutes): " +
			"ELICITGEN_GOLANGCI=1 go test -count=1 -timeout 30m -run TestGolangciLintCustom -v ./vet/golangcilint/")
	}
	root := workingTree(t)
	bin := buildCustom(t, root)

	start := time.Now()
	issues, code := runLint(t, bin, root, config(t, ""), "./vet/testdata/fixes/...", "./vet/testdata/stale/...")
	t.Logf("run over the fixtures: %v", time.Since(start).Round(100*time.Millisecond))
	want := wantedFindings(t, root)
	if code != 1 || !slices.Equal(issues, want) {
		t.Errorf("over the fixtures: exit %d and\n%s\nwant exit 1 and\n%s", code, strings.Join(issues, "\n"), strings.Join(want, "\n"))
	}

	start = time.Now()
	issues, code = runLint(t, bin, filepath.Join(root, "examples"), config(t, ""), "./...") // a module of its own
	t.Logf("run over the examples: %v", time.Since(start).Round(100*time.Millisecond))
	if code != 0 || len(issues) != 0 {
		t.Errorf("over the examples: exit %d and\n%s\nwant exit 0 and nothing", code, strings.Join(issues, "\n"))
	}

	cmd := lintCmd(bin, root, config(t, "        settings:\n          strict: true\n"), "./vet/testdata/stale/missing")
	out, err := cmd.CombinedOutput()
	wantErr := "plugin(elicitgen): newPlugin the elicitgen linter takes no settings, but linters.settings.custom.elicitgen.settings has strict"
	if err == nil || !strings.Contains(string(out), wantErr) {
		t.Errorf("with a setting: %v\n%s\nwant a failure saying %q", err, out, wantErr)
	}
}

// buildCustom builds golangci-lint golangciVersion with the plugin, as
// golangci-lint custom does (pkg/commands/internal of its module) but
// without git: the module's source from the module proxy instead of a
// clone, a file importing the plugin in its cmd/golangci-lint (custom
// rewrites plugins.go there with the same import), elicitgen replaced by
// the checkout at root (custom's path:) and so is the plugin's module,
// vet/golangcilint, a module of its own there (a replace in its go.mod
// does not reach golangci-lint's build), go mod tidy, go build.
func buildCustom(t *testing.T, root string) string {
	t.Helper()
	start := time.Now()
	out := goCmd(t, "", "mod", "download", "-json", "github.com/golangci/golangci-lint/v2@"+golangciVersion)
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download: %v %s\n%s", err, mod.Error, out)
	}
	t.Logf("download golangci-lint %s: %v", golangciVersion, time.Since(start).Round(100*time.Millisecond))

	repo := filepath.Join(t.TempDir(), "golangci-lint")
	if err := os.CopyFS(repo, os.DirFS(mod.Dir)); err != nil { // files made writable
		t.Fatal(err)
	}
	plugins := "package main\n\nimport _ \"github.com/elicitgen/elicitgen/vet/golangcilint\"\n"
	if err := os.WriteFile(filepath.Join(repo, "cmd", "golangci-lint", "elicitgen_plugin.go"), []byte(plugins), 0o644); err != nil {
		t.Fatal(err)
	}
	goCmd(t, repo, "mod", "edit", "-replace", "github.com/elicitgen/elicitgen="+root,
		"-replace", "github.com/elicitgen/elicitgen/vet/golangcilint="+filepath.Join(root, "vet", "golangcilint"))
	start = time.Now()
	goCmd(t, repo, "mod", "tidy")
	t.Logf("go mod tidy (downloads what golangci-lint and the plugin need): %v", time.Since(start).Round(100*time.Millisecond))

	start = time.Now()
	bin := filepath.Join(t.TempDir(), "custom-gcl")
	goCmd(t, repo, "build", "-ldflags", "-s -w -X main.version="+golangciVersion+"-custom-gcl-elicitgen", "-o", bin, "./cmd/golangci-lint")
	t.Logf("go build: %v", time.Since(start).Round(100*time.Millisecond))
	return bin
}

// goCmd runs the go command in dir (the current one if empty), outside
// any workspace, and returns its standard output; it fails t on an error.
func goCmd(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return out
}

// config writes a .golangci.yml enabling the plugin, and nothing else,
// with custom appended to the linter's settings, and returns its path.
// Issues come out as JSON with absolute paths and no statistics after
// them, all of them (no limit per linter, per text or per line).
func config(t *testing.T, custom string) string {
	t.Helper()
	yml := `version: "2"
linters:
  default: none
  enable:
    - elicitgen
  settings:
    custom:
      elicitgen:
        type: module
        description: elicitgen's declarations and generated files
` + custom + `issues:
  max-issues-per-linter: 0
  max-same-issues: 0
  uniq-by-line: false
output:
  show-stats: false
  path-mode: abs
  formats:
    json:
      path: stdout
`
	path := filepath.Join(t.TempDir(), ".golangci.yml")
	if err := os.WriteFile(path, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// lintCmd is bin run with the configuration cfg over patterns, in root,
// with a cache of its own.
func lintCmd(bin, root, cfg string, patterns ...string) *exec.Cmd {
	cmd := exec.Command(bin, append([]string{"run", "--config", cfg}, patterns...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOLANGCI_LINT_CACHE="+filepath.Join(filepath.Dir(cfg), "cache"))
	return cmd
}

// runLint runs bin over patterns and returns its issues as sorted
// path:line:col: message lines (path relative to root), and its exit code.
// An issue of another linter (typecheck) fails t.
func runLint(t *testing.T, bin, root, cfg string, patterns ...string) ([]string, int) {
	t.Helper()
	cmd := lintCmd(bin, root, cfg, patterns...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Issues []struct {
			FromLinter, Text string
			Pos              struct {
				Filename     string
				Line, Column int
			}
		}
	}
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&res); err != nil {
		t.Fatalf("golangci-lint run %v: exit %d, %v\n%s%s", patterns, code, err, out, stderr.String())
	}
	var lines []string
	for _, is := range res.Issues {
		rel, err := filepath.Rel(root, is.Pos.Filename)
		if err != nil {
			rel = is.Pos.Filename
		}
		if is.FromLinter != "elicitgen" {
			t.Errorf("an issue of %s: %s: %s", is.FromLinter, rel, is.Text)
		}
		lines = append(lines, fmt.Sprintf("%s:%d:%d: %s", filepath.ToSlash(rel), is.Pos.Line, is.Pos.Column, is.Text))
	}
	slices.Sort(lines)
	return lines, code
}

// wantedFindings are the lines of vet/testdata/vettool.stderr, sorted.
func wantedFindings(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "vet", "testdata", "vettool.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(lines)
	return lines
}
