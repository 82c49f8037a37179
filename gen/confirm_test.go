package gen_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/gen"
)

// TestConfirmStepModel: the confirm option of testdata/gen/tool_confirm
// names the form's one required boolean in the step (Confirm), and the
// stub, printed from the same method set as the interface, says on
// Complete and Declined that a false is the step's decline.
func TestConfirmStepModel(t *testing.T) {
	root := t.TempDir()
	newModule(t, root, "example.com/golden")
	var found bool
	for _, c := range loadCases(t) {
		if c.name != "tool_confirm" {
			continue
		}
		found = true
		dir := filepath.Join(root, c.name)
		writeCase(t, c, dir, false)
		pkgs, fset, diags, _, err := gen.Load(gen.Config{Dir: dir})
		if err != nil || len(diags) > 0 {
			t.Fatalf("%v %v", err, diags)
		}
		model, diags := gen.Check(pkgs, fset)
		if len(diags) > 0 {
			t.Fatal(diags)
		}
		p := model.Packages[0]
		f := p.Files[0]
		tool := f.Tools[0]
		if got := []string{tool.Steps[0].Confirm, tool.Steps[1].Confirm}; got[0] != "" || got[1] != "ok" {
			t.Errorf("Confirm of the steps = %q, want [\"\" \"ok\"]", got)
		}
		stub, err := gen.StubFile(p, f, tool)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(strings.ReplaceAll(string(stub), "//", "")), " ")
		for _, want := range []string{
			"Complete runs once every step to be asked has been answered: the sure step's ok only with true (false is a decline).",
			"An answer of false to the sure step's ok is its decline, and arrives here, never at Complete.",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("the stub lacks %q:\n%s", want, stub)
			}
		}
	}
	if !found {
		t.Fatal("no case tool_confirm")
	}
}
