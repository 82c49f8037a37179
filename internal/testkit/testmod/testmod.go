// Package testmod makes throwaway Go modules for tests: a go.mod that
// requires elicitgen, replaced by this working tree, at the dependency
// versions of the working tree's own go.mod.
package testmod

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Root is the elicitgen module root (the working tree).
func Root(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// New writes go.mod and go.sum for module path into dir.
func New(t testing.TB, dir, path string) {
	t.Helper()
	root := Root(t)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var requires []string
	for _, line := range strings.Split(string(mod), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "github.com/") || strings.HasPrefix(line, "golang.org/") {
			requires = append(requires, "\t"+line)
		}
	}
	gomod := "module " + path + "\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/elicitgen/elicitgen v0.0.0\n" + strings.Join(requires, "\n") +
		"\n)\n\nreplace github.com/elicitgen/elicitgen => " + root + "\n"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Go runs the go command in dir and returns its combined output and error.
func Go(t testing.TB, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// WriteFiles writes name → content under dir.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
