package gen

import (
	"strings"
	"testing"
)

// FuzzParseStructTag runs the tag reader (readTag) on arbitrary struct
// tags: it must never panic, every problem must have a message and an
// offset inside the value, and what it accepts must be well formed. (Its
// name is the one docs/security/guarantees.md gives; the corpus of FuzzReadTag, its
// name for a while, moved under it.)
func FuzzParseStructTag(f *testing.F) {
	for _, s := range []string{
		`elicit:"environment,required,title=Environment"`,
		`json:"e,omitempty" elicit:",min=1,max=9,default=3"`,
		`elicit:"tags,enum=a|b|c,default=a|b"`,
		`elicit:"-"`, `elicit:""`, `elicit:"x,"`, `elicit:"x,,required"`, `elicit:"x,title="`,
		`elicit:"x`, `elicit`, ` `, `elicit:"x,enum=a||b"`, `elicit:"x,required,required"`,
		`elicit:"x,title='a, b',required"`, `elicit:"x,title='a''b'"`, `elicit:"x,title='a"`, `elicit:"x,title='a'b"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		tag, problems := readTag(raw)
		spec, more := parseFormTag(tag)
		problems = append(problems, more...)
		for _, p := range problems {
			if p.msg == "" || p.off < -1 || p.off > len(tag.value) {
				t.Fatalf("bad problem %+v for %q", p, raw)
			}
		}
		if tag.present && tag.off >= 0 && raw[tag.off:tag.off+len(tag.value)] != tag.value {
			t.Fatalf("offset %d of %q in %q is wrong", tag.off, tag.value, raw)
		}
		for _, o := range tag.options {
			if o.off < 0 || o.off > len(tag.value) || !strings.HasPrefix(tag.value[o.off:], o.key) {
				t.Fatalf("option %+v of %q: the offset does not point at its key", o, raw)
			}
		}
		if len(problems) > 0 || !spec.Present {
			return
		}
		if strings.Contains(spec.Name, ",") {
			t.Fatalf("name with a comma from %q: %q", raw, spec.Name)
		}
		seen := map[string]bool{}
		for _, e := range spec.Enum {
			if e == "" || strings.Contains(e, "|") || seen[e] {
				t.Fatalf("bad enum value %q from %q", e, raw)
			}
			seen[e] = true
		}
	})
}
