package repocheck

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildOutputs are the first bytes of the files a build writes: executables
// and objects of the platforms Go builds for, and archives.
var buildOutputs = []struct {
	kind  string
	magic []byte
}{
	{"an ELF executable or object", []byte("\x7fELF")},
	{"a Mach-O executable (64-bit)", []byte{0xcf, 0xfa, 0xed, 0xfe}},
	{"a Mach-O executable (32-bit)", []byte{0xce, 0xfa, 0xed, 0xfe}},
	{"a Mach-O universal binary", []byte{0xca, 0xfe, 0xba, 0xbe}},
	{"a PE (Windows) executable", []byte("MZ")},
	{"a WebAssembly module", []byte("\x00asm")},
	{"an ar archive (a Go package archive or a C library)", []byte("!<arch>\n")},
	{"a Go object file", []byte("go object ")},
}

// kindOf names the build output that head starts with, "" for none.
func kindOf(head []byte) string {
	for _, b := range buildOutputs {
		if bytes.HasPrefix(head, b.magic) {
			return b.kind
		}
	}
	return ""
}

// TestNoBuildOutputsTracked: git tracks source only. Every tracked file is
// read and none may start as an executable, an object or an archive does
// (82 MB of ELF binaries were once committed at the root).
func TestNoBuildOutputsTracked(t *testing.T) {
	root := repoRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): nothing to check", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files listed %d files: the repository has hundreds", len(files))
	}
	for _, name := range files {
		if kind := kindOf(readHead(t, filepath.Join(root, name))); kind != "" {
			t.Errorf("%s is tracked and is %s: git holds source only (git rm --cached it, and list it in .gitignore)", name, kind)
		}
	}
}

// TestKindOf: the check knows a build output from source that looks alike.
func TestKindOf(t *testing.T) {
	self, err := os.Executable() // this test binary, a build output
	if err != nil {
		t.Fatal(err)
	}
	if kindOf(readHead(t, self)) == "" {
		t.Errorf("the test binary %s is not taken for a build output", self)
	}
	for _, src := range []string{"package repocheck\n", "# ELF notes\n", "// go object files\n", "{\"json\": true}\n"} {
		if k := kindOf([]byte(src)); k != "" {
			t.Errorf("%q is taken for %s", src, k)
		}
	}
}

// readHead is a file's first bytes (none for a symlink or a file gone).
func readHead(t *testing.T, path string) []byte {
	t.Helper()
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		t.Fatal(err)
	}
	return head[:n]
}

// repoRoot is the root of the module (this package is internal/repocheck).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}
