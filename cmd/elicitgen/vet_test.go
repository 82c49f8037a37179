package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/internal/testkit/testmod"
)

// fixtures are the analyzer's test packages: a did-you-mean of each kind,
// and stale, missing and un-generated code; vettool.stderr lists what vet
// reports there, sorted.
var fixtures = []string{"./vet/testdata/fixes/...", "./vet/testdata/stale/..."}

func wantedFindings(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "vet", "testdata", "vettool.stderr"))
	if err != nil {
		t.Fatal(err)
	}
	return sortedLines(string(b))
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(lines)
	return lines
}

// TestVetTool builds elicitgen and runs it as go vet's tool, as .ci/run
// does: go vet -vettool=BIN over the examples finds nothing (exit 0), and
// over the fixtures exactly the diagnostics of vettool.stderr (exit 1).
func TestVetTool(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "elicitgen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	vet := func(patterns ...string) (string, error) {
		cmd := exec.Command("go", append([]string{"vet", "-vettool=" + bin}, patterns...)...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := vet("./examples/..."); err != nil {
		t.Errorf("go vet -vettool over the examples: %v\n%s", err, out)
	}
	out, err := vet(fixtures...)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("go vet -vettool over the fixtures: %v, want exit status 1", err)
	}
	if got, want := sortedLines(out), wantedFindings(t, root); !slices.Equal(got, want) {
		t.Errorf("go vet -vettool over the fixtures printed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestVetCommand: elicitgen vet prints the same findings as go vet's tool,
// sorted, and exits 1; over the examples nothing, exit 0; a pattern that
// names no package is exit 2.
func TestVetCommand(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := elicitgen(t, root, append([]string{"vet"}, fixtures...)...)
	if code != exitDiag {
		t.Errorf("elicitgen vet over the fixtures: exit %d, want 1", code)
	}
	if got, want := strings.Split(strings.TrimSpace(errOut), "\n"), wantedFindings(t, root); !slices.Equal(sortedLines(errOut), want) || len(got) != len(want) {
		t.Errorf("elicitgen vet printed\n%s\nwant\n%s", errOut, strings.Join(want, "\n"))
	}
	if code, _, errOut := elicitgen(t, root, "vet", "./examples/..."); code != exitOK || errOut != "" {
		t.Errorf("elicitgen vet ./examples/...: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := elicitgen(t, root, "vet", "./no/such/dir"); code != exitUsage {
		t.Errorf("elicitgen vet ./no/such/dir: exit %d, want 2\n%s", code, errOut)
	}
}

// TestVetProtocol: the arguments go vet gives its tool are told apart
// from elicitgen's own.
func TestVetProtocol(t *testing.T) {
	for args, want := range map[string]bool{
		"-V=full": true, "-flags": true, "/tmp/go-build1/b001/vet.cfg": true, "-json /tmp/vet.cfg": true,
		"": false, "./...": false, "--check ./...": false, "vet ./...": false, "stub deploy": false, "x.cfg y.cfg": false,
	} {
		if got := vetProtocol(strings.Fields(args)); got != want {
			t.Errorf("vetProtocol(%q) = %v, want %v", args, got, want)
		}
	}
}

// TestVetBeforeGenerate: over a package whose code uses what elicitgen
// has not generated yet, vet prints each type error once (not again in
// the go command's "# pkg" block) and then says that the package was not
// analysed and that go generate may declare the missing names.
func TestVetBeforeGenerate(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": formSrc, "use.go": "package app\n\nvar _ = (*Ask).DecodeElicit\n\nvar _ = RegisterAsk\n"})
	code, _, errOut := elicitgen(t, dir, "vet")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	want := []string{
		"use.go:3:16: (*Ask).DecodeElicit undefined (type *Ask has no field or method DecodeElicit)",
		"use.go:5:9: undefined: RegisterAsk",
		"example.com/app: not analysed: the package does not type-check; if the missing names are what elicitgen generates (a handler interface, a Register function, a form's methods), run go generate first",
	}
	if code != exitDiag || !slices.Equal(lines, want) {
		t.Fatalf("exit %d, printed\n%s\nwant\n%s", code, errOut, strings.Join(want, "\n"))
	}
}

// TestVetStaleNestedField: a nested struct added to a generated form makes
// the generated file fail to compile; elicitgen vet still prints the
// nested-field rule at its position, and says the generated file is stale.
func TestVetStaleNestedField(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": formSrc})
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	nested := strings.Replace(formSrc, "type Ask struct {\n", "type Inner struct{ A int }\n\ntype Ask struct {\n\tIn Inner `elicit:\"in\"`\n", 1)
	testmod.WriteFiles(t, dir, map[string]string{"app.go": nested})
	code, _, errOut := elicitgen(t, dir, "vet")
	if code != exitDiag || !strings.Contains(errOut, "app.go:15:2: field In is a nested struct") ||
		!strings.Contains(errOut, "app_elicit.go is stale: it no longer compiles against its declarations") {
		t.Fatalf("exit %d, printed\n%s", code, errOut)
	}
}

// TestCheckStaleNestedField: --check over the same package prints the
// nested-field rule and says the generated file is stale, in the
// analyzer's words.
func TestCheckStaleNestedField(t *testing.T) {
	dir := newApp(t, map[string]string{"app.go": formSrc})
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	nested := strings.Replace(formSrc, "type Ask struct {\n", "type Inner struct{ A int }\n\ntype Ask struct {\n\tIn Inner `elicit:\"in\"`\n", 1)
	testmod.WriteFiles(t, dir, map[string]string{"app.go": nested})
	code, _, errOut := elicitgen(t, dir, "--check")
	if code != exitDiag || !strings.Contains(errOut, "app.go:15:2: field In is a nested struct") ||
		!regexp.MustCompile(`app_elicit\.go:\d+:\d+: app_elicit\.go is stale: it no longer compiles against its declarations \(cannot convert .*\); run go generate`).MatchString(errOut) {
		t.Fatalf("exit %d, printed\n%s", code, errOut)
	}
}

// TestGoVetToolStaleNestedField: real go vet -vettool over the same
// package prints the nested-field rule at its position and the stale
// line, where unitchecker alone prints only the compiler's error.
func TestGoVetToolStaleNestedField(t *testing.T) {
	if testing.Short() {
		t.Skip("builds elicitgen and runs go vet")
	}
	tool := filepath.Join(t.TempDir(), "elicitgen")
	if out, err := exec.Command("go", "build", "-o", tool, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := newApp(t, map[string]string{"app.go": formSrc})
	if code, _, stderr := elicitgen(t, dir); code != exitOK {
		t.Fatalf("generate: %d %s", code, stderr)
	}
	nested := strings.Replace(formSrc, "type Ask struct {\n", "type Inner struct{ A int }\n\ntype Ask struct {\n\tIn Inner `elicit:\"in\"`\n", 1)
	testmod.WriteFiles(t, dir, map[string]string{"app.go": nested})
	cmd := exec.Command("go", "vet", "-vettool="+tool, ".")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "app.go:15:2: field In is a nested struct") ||
		!regexp.MustCompile(`app_elicit\.go:\d+:\d+: app_elicit\.go is stale: it no longer compiles against its declarations`).Match(out) {
		t.Fatalf("go vet: %v, printed\n%s", err, out)
	}
}
