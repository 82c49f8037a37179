package gen_test

import (
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/gen"
)

func ptr[T any](v T) *T { return &v }

// baseContract is a tool with one form step: a titled enum, a bounded
// integer and an optional string.
func baseContract() *gen.Reference {
	return &gen.Reference{Version: gen.ReferenceVersion, Packages: []gen.RefPackage{{Path: "example.com/m", Declarations: []gen.RefDecl{{
		Kind: "tool", Name: "deploy", Description: "Deploys.",
		Arguments: []gen.RefArg{{Name: "service", Type: "string", Required: true}},
		Steps: []gen.RefStep{{Key: "target", Field: "Target", Mode: "form", Message: "Where?", Asked: "always", Fallback: "error", Digest: "d1",
			Fields: []gen.RefField{
				{Property: "env", Title: "Environment", Type: "enum", Required: true, Enum: []gen.RefEnum{{Value: "dev", Title: "Development"}, {Value: "prod", Title: "Production"}}},
				{Property: "replicas", Title: "Replicas", Type: "integer", Required: true, Minimum: ptr(1.0), Maximum: ptr(10.0)},
				{Property: "note", Title: "Note", Type: "string"},
			}}},
	}}}}}
}

// TestDiffEdits runs diff on a table of edits, each in both directions,
// and compares its exact words.
func TestDiffEdits(t *testing.T) {
	step := func(r *gen.Reference) *gen.RefStep { return &r.Packages[0].Declarations[0].Steps[0] }
	field := func(r *gen.Reference, i int) *gen.RefField { return &step(r).Fields[i] }
	restart := `restarts flows in flight: tool "deploy": a step's digest changed (what the person sees or what an answer means): on a rolling deploy, its flows in flight restart from the first question`
	for _, c := range []struct {
		name          string
		edit          func(r *gen.Reference) // applied to the new side, with a new digest when it changes what the person sees
		digest        bool
		forward, back string
	}{
		{"required", func(r *gen.Reference) { field(r, 2).Required = true }, true,
			`breaking: tool "deploy", step "target", field "note": made required, without a default: an answer without it is refused`,
			`restarts flows in flight: tool "deploy", step "target", field "note": required true → false`},
		{"retitle", func(r *gen.Reference) { field(r, 1).Title = "Pod count" }, true,
			`restarts flows in flight: tool "deploy", step "target", field "replicas": title "Replicas" → "Pod count"`,
			`restarts flows in flight: tool "deploy", step "target", field "replicas": title "Pod count" → "Replicas"`},
		{"enum value", func(r *gen.Reference) {
			f := field(r, 0)
			f.Enum = append(f.Enum, gen.RefEnum{Value: "qa", Title: "QA"})
		}, true,
			`compatible: tool "deploy", step "target", field "env": enum value "qa" added`,
			`breaking: tool "deploy", step "target", field "env": enum value "qa" removed: an answer with it is refused`},
		{"enum title", func(r *gen.Reference) { field(r, 0).Enum[1].Title = "Live" }, true,
			`restarts flows in flight: tool "deploy", step "target", field "env": enum value "prod" retitled Production → "Live"`,
			`restarts flows in flight: tool "deploy", step "target", field "env": enum value "prod" retitled Live → "Production"`},
		{"bounds", func(r *gen.Reference) { field(r, 1).Maximum = ptr(5.0) }, true,
			`breaking: tool "deploy", step "target", field "replicas": maximum 10 → 5 (tightened: an answer the old form took is refused)`,
			`compatible: tool "deploy", step "target", field "replicas": maximum 5 → 10 (loosened)`},
		{"type", func(r *gen.Reference) { field(r, 1).Type = "number" }, true,
			`breaking: tool "deploy", step "target", field "replicas": type integer → number`,
			`breaking: tool "deploy", step "target", field "replicas": type number → integer`},
		{"field", func(r *gen.Reference) { s := step(r); s.Fields = s.Fields[:2] }, true,
			`breaking: tool "deploy", step "target", field "note": removed: an answer that carries it is refused`,
			`restarts flows in flight: tool "deploy", step "target", field "note": added (optional or with a default): the person sees a new field`},
		{"key", func(r *gen.Reference) { step(r).Key = "where" }, true,
			`breaking: tool "deploy", step "where": key "target" → "where": an answer under the old key is not taken`,
			`breaking: tool "deploy", step "target": key "where" → "target": an answer under the old key is not taken`},
		{"message", func(r *gen.Reference) { step(r).Message = "Which environment?" }, true,
			`restarts flows in flight: tool "deploy", step "target": message "Where?" → "Which environment?"`,
			`restarts flows in flight: tool "deploy", step "target": message "Which environment?" → "Where?"`},
		{"description", func(r *gen.Reference) { r.Packages[0].Declarations[0].Description = "Deploys a service." }, false,
			`compatible: tool "deploy": description edited (only the model reads it)`,
			`compatible: tool "deploy": description edited (only the model reads it)`},
		{"tool", func(r *gen.Reference) { r.Packages[0].Declarations = nil }, false,
			`breaking: tool "deploy": removed: a client that calls it gets an error`,
			`compatible: tool "deploy": added`},
		{"argument", func(r *gen.Reference) {
			d := &r.Packages[0].Declarations[0]
			d.Arguments = append(d.Arguments, gen.RefArg{Name: "force", Type: "boolean"})
		}, false,
			`compatible: tool "deploy", argument "force": added, optional`,
			`breaking: tool "deploy", argument "force": removed: a call that passes it is refused`},
	} {
		t.Run(c.name, func(t *testing.T) {
			old, edited := baseContract(), baseContract()
			c.edit(edited)
			if c.digest && len(edited.Packages[0].Declarations) > 0 {
				step(edited).Digest = "d2"
			}
			for _, dir := range []struct {
				a, b *gen.Reference
				want string
			}{{old, edited, c.forward}, {edited, old, c.back}} {
				got := gen.DiffReferences(dir.a, dir.b)
				if len(got) == 0 {
					t.Fatalf("no change found")
				}
				lines := make([]string, len(got))
				for i, ch := range got {
					lines[i] = ch.String()
				}
				if lines[0] != dir.want {
					t.Errorf("got\n%s\nwant first\n%s", strings.Join(lines, "\n"), dir.want)
				}
				if c.digest && lines[len(lines)-1] != restart {
					t.Errorf("got\n%s\nwant last\n%s", strings.Join(lines, "\n"), restart)
				}
				if !c.digest && len(lines) != 1 {
					t.Errorf("got\n%s\nwant one line", strings.Join(lines, "\n"))
				}
			}
		})
	}
}

// TestDiffModeChange: a form step made a URL step is breaking, its
// fields removed with it.
func TestDiffModeChange(t *testing.T) {
	old, edited := baseContract(), baseContract()
	s := &edited.Packages[0].Declarations[0].Steps[0]
	s.Mode, s.Fields, s.Digest = "url", nil, "d2"
	got := gen.DiffReferences(old, edited)
	if got[0].String() != `breaking: tool "deploy", step "target": mode form → url` {
		t.Errorf("got %v", got)
	}
}

// TestDiffSame: a contract compared with itself has no change.
func TestDiffSame(t *testing.T) {
	if got := gen.DiffReferences(baseContract(), baseContract()); len(got) != 0 {
		t.Errorf("got %v", got)
	}
}
