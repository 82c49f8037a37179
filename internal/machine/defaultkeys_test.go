package machine_test

import (
	"encoding/base64"
	"os"
	"os/exec"
	"strings"
	"testing"

	elicitrt "github.com/elicitgen/elicitgen/runtime"
	"github.com/elicitgen/elicitgen/runtime/elicittest/asktest"
)

// TestOptionsWithoutKeysPanic: a server whose ToolOptions name no Keys
// uses the process key ring. With ELICITGEN_STATE_KEYS malformed, building
// it panics (when it is built, never at a call) with LoadKeyring's one
// line: the variable and the entry at fault, never the value; with the
// variable well formed, it builds (docs/reference/runtime.md, keys and rotation).
// Each case is a child process, since the variable is read once per
// process.
func TestOptionsWithoutKeysPanic(t *testing.T) {
	if os.Getenv("ELICITGEN_TEST_BUILD_SERVER") == "1" {
		asktest.Server(&elicitrt.ToolOptions{})
		os.Stdout.WriteString("built\n")
		return
	}
	build := func(keys string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOptionsWithoutKeysPanic$", "-test.v")
		cmd.Env = append(os.Environ(), "ELICITGEN_TEST_BUILD_SERVER=1", elicitrt.KeysEnv+"="+keys)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	short := base64.StdEncoding.EncodeToString([]byte("secret-value"))
	out, err := build(short)
	want := "panic: elicitgen: " + elicitrt.KeysEnv + ": entry 1 decodes to 12 bytes, want 32; set it to"
	if err == nil || !strings.Contains(out, want) || strings.Contains(out, "built") {
		t.Fatalf("a malformed variable: %v, want a panic with %q:\n%s", err, want, out)
	}
	if strings.Contains(out, short) || strings.Contains(out, "secret-value") {
		t.Errorf("the panic shows the value:\n%s", out)
	}
	good := base64.StdEncoding.EncodeToString([]byte("options-without-keys-test-key-01"))
	if out, err := build(good); err != nil || !strings.Contains(out, "built") {
		t.Fatalf("a well-formed variable: %v\n%s", err, out)
	}
}
