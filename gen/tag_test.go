package gen

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func strp(s string) *string { return &s }

// parseStructTag reads a whole struct tag as Check does; messages only.
func parseStructTag(raw string) (tagSpec, []string) {
	t, problems := readTag(raw)
	spec, more := parseFormTag(t)
	spec.at = nil
	var msgs []string
	for _, p := range append(problems, more...) {
		msgs = append(msgs, p.msg)
	}
	return spec, msgs
}

// parseElicitTag reads the value of an elicit tag; messages only.
func parseElicitTag(value string) (tagSpec, []string) {
	return parseStructTag("elicit:" + strconv.Quote(value))
}

// TestParseElicitTag covers the option grammar: every option, the name, and
// every bad form. Option values are kept verbatim (not trimmed); option keys
// and the name are trimmed.
func TestParseElicitTag(t *testing.T) {
	tests := []struct {
		value    string
		want     tagSpec
		problems []string
	}{
		{"-", tagSpec{Present: true, Skip: true}, nil},
		{"", tagSpec{Present: true}, nil},
		{"name", tagSpec{Present: true, Name: "name"}, nil},
		{" name ", tagSpec{Present: true, Name: "name"}, nil},
		{",required", tagSpec{Present: true, Required: true}, nil},
		{"n,required", tagSpec{Present: true, Name: "n", Required: true}, nil},
		{"n,notsecret", tagSpec{Present: true, Name: "n", NotSecret: true}, nil},
		{"n,title=Full name", tagSpec{Present: true, Name: "n", Title: "Full name"}, nil},
		{"n,title= spaced ", tagSpec{Present: true, Name: "n", Title: " spaced "}, nil},
		{"n,title=a=b", tagSpec{Present: true, Name: "n", Title: "a=b"}, nil},
		{"n,min=1", tagSpec{Present: true, Name: "n", Min: "1"}, nil},
		{"n,max=-2.5", tagSpec{Present: true, Name: "n", Max: "-2.5"}, nil},
		{"n,format=email", tagSpec{Present: true, Name: "n", Format: "email"}, nil},
		{"n,default=x", tagSpec{Present: true, Name: "n", Default: strp("x")}, nil},
		{"n,default=", tagSpec{Present: true, Name: "n", Default: strp("")}, nil},
		{"n,enum=a", tagSpec{Present: true, Name: "n", Enum: []string{"a"}}, nil},
		{"n,enum=a|b|c", tagSpec{Present: true, Name: "n", Enum: []string{"a", "b", "c"}}, nil},
		{"n, required , notsecret", tagSpec{Present: true, Name: "n", Required: true, NotSecret: true}, nil},
		{
			"n,required,notsecret,title=T,min=1,max=9,format=uri,default=d,enum=x|y",
			tagSpec{Present: true, Name: "n", Required: true, NotSecret: true, Title: "T", Min: "1", Max: "9", Format: "uri", Default: strp("d"), Enum: []string{"x", "y"}},
			nil,
		},

		// bad forms
		{"n,", tagSpec{Present: true, Name: "n"}, []string{`empty option in elicit tag "n,"`}},
		{"n, ,required", tagSpec{Present: true, Name: "n", Required: true}, []string{`empty option in elicit tag "n, ,required"`}},
		{"n,=x", tagSpec{Present: true, Name: "n"}, []string{`empty option in elicit tag "n,=x"`}},
		{"n,requird", tagSpec{Present: true, Name: "n", Required: true}, []string{`unknown elicit option "requird": did you mean required? (known: default, enum, enumnames, format, max, min, notsecret, required, title)`}},
		{"n,Required", tagSpec{Present: true, Name: "n", Required: true}, []string{`unknown elicit option "Required": did you mean required? (known: default, enum, enumnames, format, max, min, notsecret, required, title)`}},
		{"n,required,required", tagSpec{Present: true, Name: "n", Required: true}, []string{`elicit option "required" given twice`}},
		{"n,min=1,min=2", tagSpec{Present: true, Name: "n", Min: "1"}, []string{`elicit option "min" given twice`}},
		{"n,title", tagSpec{Present: true, Name: "n"}, []string{`elicit option "title" needs a value: title=VALUE`}},
		{"n,default", tagSpec{Present: true, Name: "n"}, []string{`elicit option "default" needs a value: default=VALUE`}},
		{"n,enum", tagSpec{Present: true, Name: "n"}, []string{`elicit option "enum" needs a value: enum=VALUE`}},
		{"n,required=true", tagSpec{Present: true, Name: "n"}, []string{`elicit option "required" takes no value`}},
		{"n,notsecret=", tagSpec{Present: true, Name: "n"}, []string{`elicit option "notsecret" takes no value`}},
		{"n,min=", tagSpec{Present: true, Name: "n"}, []string{`elicit option "min" has an empty value`}},
		{"n,title=", tagSpec{Present: true, Name: "n"}, []string{`elicit option "title" has an empty value`}},
		{"n,format=", tagSpec{Present: true, Name: "n"}, []string{`elicit option "format" has an empty value`}},
		{"n,enum=a||b", tagSpec{Present: true, Name: "n", Enum: []string{"a"}}, []string{`enum "a||b" has an empty value`}},
		{"n,enum=a|", tagSpec{Present: true, Name: "n", Enum: []string{"a"}}, []string{`enum "a|" has an empty value`}},
		{"n,enum=a|b|a", tagSpec{Present: true, Name: "n", Enum: []string{"a", "b"}}, []string{`enum "a|b|a" repeats the value "a"`}},
		// an unquoted value cannot hold a comma: the rest is read as another
		// option, and the message says how to quote it
		{"n,default=a,b", tagSpec{Present: true, Name: "n", Default: strp("a")}, []string{`unknown elicit option "b" (known: default, enum, enumnames, format, max, min, notsecret, required, title)`}},
		{"n,default=a, b", tagSpec{Present: true, Name: "n", Default: strp("a")}, []string{`unknown elicit option "b": a comma ends an option, so the value of default stopped before ", b"; to put commas in a value, quote it: default='a, b'`}},
		{"n,title=Your email, please", tagSpec{Present: true, Name: "n", Title: "Your email"}, []string{`unknown elicit option "please": a comma ends an option, so the value of title stopped before ", please"; to put commas in a value, quote it: title='Your email, please'`}},
		{"n,title=It's, ok", tagSpec{Present: true, Name: "n", Title: "It's"}, []string{`unknown elicit option "ok": a comma ends an option, so the value of title stopped before ", ok"; to put commas in a value, quote it: title='It''s, ok'`}},
		// the value to quote ends at the next known option, with or
		// without a value: applying the fix keeps the options
		{"n,title=Region, please,required", tagSpec{Present: true, Name: "n", Title: "Region", Required: true}, []string{`unknown elicit option "please": a comma ends an option, so the value of title stopped before ", please"; to put commas in a value, quote it: title='Region, please'`}},
		{"n,title=Region, please, ok,notsecret,min=1", tagSpec{Present: true, Name: "n", Title: "Region", NotSecret: true, Min: "1"}, []string{`unknown elicit option "please": a comma ends an option, so the value of title stopped before ", please"; to put commas in a value, quote it: title='Region, please, ok'`, `unknown elicit option "ok" (known: default, enum, enumnames, format, max, min, notsecret, required, title)`}},
		// quoted values
		{"n,title='Your email, please',required", tagSpec{Present: true, Name: "n", Title: "Your email, please", Required: true}, nil},
		{"n,title='It''s, ok'", tagSpec{Present: true, Name: "n", Title: "It's, ok"}, nil},
		{"n,default='',required", tagSpec{Present: true, Name: "n", Default: strp(""), Required: true}, nil},
		{"n,enum='a,b'|c", tagSpec{Present: true, Name: "n", Enum: []string{"a,b"}}, []string{`option enum: "|c" after the closing quote: the option ends at its closing quote (a quote inside is written twice: '')`}},
		{"n,enum='a,b|c'", tagSpec{Present: true, Name: "n", Enum: []string{"a,b", "c"}}, nil},
		{"n,title='open", tagSpec{Present: true, Name: "n", Title: "open"}, []string{`option title: the quoted value has no closing quote: write title='TEXT' (a quote inside is written twice: '')`}},
		// every problem is reported, not only the first
		{
			"n,bogus,title,required,required",
			tagSpec{Present: true, Name: "n", Required: true},
			[]string{
				`unknown elicit option "bogus" (known: default, enum, enumnames, format, max, min, notsecret, required, title)`,
				`elicit option "title" needs a value: title=VALUE`,
				`elicit option "required" given twice`,
			},
		},
	}
	for _, tt := range tests {
		got, problems := parseElicitTag(tt.value)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseElicitTag(%q) = %+v, want %+v", tt.value, got, tt.want)
		}
		if !reflect.DeepEqual(problems, tt.problems) {
			t.Errorf("parseElicitTag(%q) problems = %q, want %q", tt.value, problems, tt.problems)
		}
	}
}

// TestParseStructTag covers reading the elicit entry out of a whole struct
// tag.
func TestParseStructTag(t *testing.T) {
	tests := []struct {
		raw      string
		want     tagSpec
		problems []string // prefixes
	}{
		{"", tagSpec{}, nil},
		{"   ", tagSpec{}, nil},
		{"\t", tagSpec{}, nil},
		{`json:"a"`, tagSpec{}, nil},
		{`json:"a,omitempty" yaml:"b"`, tagSpec{}, nil},
		{`elicit:"-"`, tagSpec{Present: true, Skip: true}, nil},
		{`elicit:""`, tagSpec{Present: true}, nil},
		{`elicit:",required"`, tagSpec{Present: true, Required: true}, nil},
		{`json:"j" elicit:"e,required"`, tagSpec{Present: true, Name: "e", Required: true}, nil},
		{`elicit:"e"   json:"j"`, tagSpec{Present: true, Name: "e"}, nil},
		{`  elicit:"e"  `, tagSpec{Present: true, Name: "e"}, nil},
		{`elicit:"e,title=Say \"hi\""`, tagSpec{Present: true, Name: "e", Title: `Say "hi"`}, nil},
		// the first elicit entry wins, as with reflect.StructTag.Get
		{`elicit:"a" elicit:"b"`, tagSpec{Present: true, Name: "a"}, nil},
		// a trailing empty option is not lost on the way through structtag
		{`elicit:"e,"`, tagSpec{Present: true, Name: "e"}, []string{`empty option in elicit tag "e,"`}},
		{`elicit:"-,"`, tagSpec{Present: true, Name: "-"}, []string{`empty option in elicit tag "-,"`}},
		{`elicit:"e,bogus"`, tagSpec{Present: true, Name: "e"}, []string{`unknown elicit option "bogus"`}},

		// malformed tags
		{`elicit:e`, tagSpec{}, []string{`malformed struct tag "elicit:e": bad syntax for struct tag value`}},
		{`elicit`, tagSpec{}, []string{`malformed struct tag "elicit": bad syntax for struct tag pair`}},
		{`elicit:"e`, tagSpec{}, []string{`malformed struct tag "elicit:\"e": bad syntax for struct tag value`}},
		{`elicit: "e"`, tagSpec{}, []string{`malformed struct tag "elicit: \"e\"": bad syntax for struct tag value`}},
		{"json:\"a\"\telicit:\"b\"", tagSpec{}, []string{`malformed struct tag "json:\"a\"\telicit:\"b\"": bad syntax for struct tag key`}},
		{`"elicit":"e"`, tagSpec{}, []string{`malformed struct tag "\"elicit\":\"e\"": bad syntax for struct tag key`}},
	}
	for _, tt := range tests {
		got, problems := parseStructTag(tt.raw)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseStructTag(%q) = %+v, want %+v", tt.raw, got, tt.want)
		}
		if len(problems) != len(tt.problems) {
			t.Errorf("parseStructTag(%q) problems = %q, want %q", tt.raw, problems, tt.problems)
			continue
		}
		for i, p := range problems {
			if !strings.HasPrefix(p, tt.problems[i]) {
				t.Errorf("parseStructTag(%q) problem %d = %q, want prefix %q", tt.raw, i, p, tt.problems[i])
			}
		}
	}
}

// TestStepCommaHint: in a step's tag, the value the hint quotes ends at
// the next known option, bare or with a value, so that applying the hint
// keeps confirm and once (a destructive tool's confirmation stays one).
func TestStepCommaHint(t *testing.T) {
	for _, c := range []struct{ tag, quote string }{
		{"confirm,message=Purge now, really?,confirm,once", "message='Purge now, really?'"},
		{"where,message=Which region, exactly?,prefill,fallback=arguments", "message='Which region, exactly?'"},
		{"where,message=Which, exactly, region?", "message='Which, exactly, region?'"},
	} {
		tag, problems := readTag("elicit:" + strconv.Quote(c.tag))
		spec, more := parseStepTag(tag)
		problems = append(problems, more...)
		if len(problems) == 0 || !strings.HasSuffix(problems[0].msg, "quote it: "+c.quote) {
			t.Errorf("%s: %+v, want the hint to quote %s", c.tag, problems, c.quote)
		}
		value := strings.Trim(strings.TrimPrefix(c.quote, "message="), "'")
		fixed, _ := readTag("elicit:" + strconv.Quote(strings.Replace(c.tag, value, "'"+value+"'", 1)))
		again, left := parseStepTag(fixed)
		if len(left) != 0 || again.Confirm != spec.Confirm || again.Once != spec.Once || again.Prefill != spec.Prefill || again.Fallback != spec.Fallback {
			t.Errorf("%s with the hint applied: %+v %v, want the same options as before (%+v)", c.tag, again, left, spec)
		}
	}
}

// TestMisspeltOptionCheckedAsMeant: a misspelt option with a
// did-you-mean is read as the option it almost is (reported once, not
// again as the option missing), when it has the value that option wants.
func TestMisspeltOptionCheckedAsMeant(t *testing.T) {
	tag, _ := readTag(`elicit:"where,mesage=Which region?,prefil,onse=x"`)
	spec, problems := parseStepTag(tag)
	if spec.Message != "Which region?" || !spec.Prefill || spec.Once || len(problems) != 3 {
		t.Errorf("got %+v, %d problems %+v; want the message and prefill read, once not (it takes no value)", spec, len(problems), problems)
	}
	for i, want := range []string{"did you mean message?", "did you mean prefill?", "did you mean once?"} {
		if i < len(problems) && !strings.Contains(problems[i].msg, want) {
			t.Errorf("problem %d: %q, want %q", i, problems[i].msg, want)
		}
	}
}

// TestTagOptionsTable keeps the error message's list of known options in
// step with the table.
func TestTagOptionsTable(t *testing.T) {
	_, problems := parseElicitTag("n,nope")
	for opt := range formGrammar.options {
		if len(problems) != 1 || !strings.Contains(problems[0], opt) {
			t.Errorf("unknown-option message %q does not list %q", problems, opt)
		}
	}
	if len(formGrammar.options) != 9 {
		t.Errorf("formGrammar has %d options; update this test and docs/reference/grammar.md", len(formGrammar.options))
	}
}

// TestHasElicitKey: a struct whose tags have an elicit key, even a malformed
// one, is a form; keys that only end in elicit are not elicit's.
func TestHasElicitKey(t *testing.T) {
	for raw, want := range map[string]bool{
		`elicit:"x"`:            true,
		`json:"a" elicit:"x"`:   true,
		`elicit:x`:              true,
		`elicit`:                true,
		`json:"a"  elicit`:      true,
		"json:\"a\"\telicit:x":  true,
		`noelicit:"x"`:          false,
		`json:"elicit"`:         false,
		`json:"a" xelicit:"b"`:  false,
		`elicitor:"x"`:          false,
		``:                      false,
		`   `:                   false,
		`json:"a,omitempty"`:    false,
		`Elicit:"x"`:            false,
		`json:"a" Elicit:"x" `:  false,
		`json:"x" elicit:"-"`:   true,
		`yaml:"x" elicit:",,,"`: true,
	} {
		if got := hasElicitKey(raw); got != want {
			t.Errorf("hasElicitKey(%q) = %v, want %v", raw, got, want)
		}
	}
}
