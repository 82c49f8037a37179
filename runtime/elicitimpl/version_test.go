package elicitimpl

import (
	"os/exec"
	"strings"
	"testing"
)

// TestVersionLock builds the version lock as generated code of each
// version writes it: code of this version builds; code of an older (4: a *Task, not the Task interface; 3: no step digests) or a
// newer version, and code of version 2 (which imported package runtime),
// fails at its version line, under the comment that says to regenerate.
func TestVersionLock(t *testing.T) {
	if GenVersion != 5 {
		t.Fatalf("GenVersion %d: add testdata/lock/v%d and update this test", GenVersion, GenVersion)
	}
	cases := []struct {
		dir   string
		fails string // "": builds; else the first error's position
	}{
		{"v5", ""},
		{"v4", "lock.go:8:"},
		{"v3", "lock.go:8:"},
		{"v2", "lock.go:8:"},
		{"v6", "lock.go:9:"},
		{"runtime2", "lock.go:11:"},
	}
	for _, c := range cases {
		out, err := exec.Command("go", "build", "./testdata/lock/"+c.dir).CombinedOutput()
		switch {
		case c.fails == "" && err != nil:
			t.Errorf("%s: %v\n%s", c.dir, err, out)
		case c.fails != "" && err == nil:
			t.Errorf("%s builds, want a failure at its version line", c.dir)
		case c.fails != "" && !strings.Contains(firstError(string(out)), c.fails):
			t.Errorf("%s: first error not at %s:\n%s", c.dir, c.fails, out)
		}
	}
}

// firstError is the first line of go build's output that names a file.
func firstError(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, ".go:") {
			return line
		}
	}
	return ""
}
