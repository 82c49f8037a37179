package gen

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fatih/structtag"
)

// FuzzParseStructTag runs the tag parser on arbitrary struct tags: it must
// never panic, and what it accepts must be well formed.
func FuzzParseStructTag(f *testing.F) {
	for _, s := range []string{
		`elicit:"environment,required,title=Environment"`,
		`json:"e,omitempty" elicit:",min=1,max=9,default=3"`,
		`elicit:"tags,enum=a|b|c,default=a|b"`,
		`elicit:"-"`, `elicit:""`, `elicit:"x,"`, `elicit:"x,,required"`, `elicit:"x,title="`,
		`elicit:"x`, `elicit`, ` `, `elicit:"x,enum=a||b"`, `elicit:"x,required,required"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		spec, problems := parseStructTag(raw)
		// The value is read with reflect's Lookup; it must be what
		// structtag parsed, joined back.
		if tags, err := structtag.Parse(raw); err == nil && tags != nil {
			if tag, err := tags.Get("elicit"); err == nil {
				wantSpec, wantProblems := parseElicitTag(strings.Join(append([]string{tag.Name}, tag.Options...), ","))
				if !reflect.DeepEqual(spec, wantSpec) || !reflect.DeepEqual(problems, wantProblems) {
					t.Fatalf("%q: got %+v %q, structtag's value gives %+v %q", raw, spec, problems, wantSpec, wantProblems)
				}
			}
		}
		if len(problems) > 0 {
			for _, p := range problems {
				if p == "" {
					t.Fatalf("empty problem for %q", raw)
				}
			}
			return
		}
		if !spec.Present {
			return
		}
		if strings.Contains(spec.Name, ",") {
			t.Fatalf("name with a comma from %q: %q", raw, spec.Name)
		}
		seen := map[string]bool{}
		for _, e := range spec.Enum {
			if e == "" || strings.ContainsAny(e, "|,") || seen[e] {
				t.Fatalf("bad enum value %q from %q", e, raw)
			}
			seen[e] = true
		}
		for _, v := range []string{spec.Title, spec.Min, spec.Max, spec.Format} {
			if strings.Contains(v, ",") {
				t.Fatalf("option value with a comma from %q: %q", raw, v)
			}
		}
	})
}
