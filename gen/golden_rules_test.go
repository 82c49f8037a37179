package gen_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/elicitgen/elicitgen/gen"
)

// TestGoldenRules checks what the byte-for-byte comparison of TestGolden
// cannot: that every schema of every successful case keeps to the
// 2026-07-28 requestedSchema subset, that every generated file is
// gofmt-clean, and that a run with diagnostics writes nothing.
func TestGoldenRules(t *testing.T) {
	root := t.TempDir()
	newModule(t, root, "example.com/golden")
	forms := 0
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, c.name)
			writeCase(t, c, dir, false)
			if c.stderr != nil {
				res, err := gen.Generate(gen.Config{Dir: dir}, false)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Diagnostics) == 0 || len(res.Changes) != 0 {
					t.Fatalf("want diagnostics and no changes, got %d diagnostics, changes %v", len(res.Diagnostics), res.Changes)
				}
				written, _ := filepath.Glob(filepath.Join(dir, "*_elicit.go"))
				if len(written) > 0 {
					t.Fatalf("a run with diagnostics wrote %v", written)
				}
				return
			}
			pkgs, fset, diags, _, err := gen.Load(gen.Config{Dir: dir})
			if err != nil || len(diags) > 0 {
				t.Fatalf("%v %v", err, diags)
			}
			model, diags := gen.Check(pkgs, fset)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			for _, p := range model.Packages {
				for _, f := range p.Files {
					for _, form := range f.Forms {
						forms++
						for _, problem := range schemaProblems(form.Schema) {
							t.Errorf("%s: %s\n%s", form.Name, problem, form.Schema)
						}
					}
				}
			}
			out, err := gen.Emit(model)
			if err != nil {
				t.Fatal(err)
			}
			for path, b := range out.Files {
				formatted, err := format.Source(b)
				if err != nil {
					t.Errorf("%s: %v", filepath.Base(path), err)
				} else if !bytes.Equal(formatted, b) {
					t.Errorf("%s is not gofmt-clean", filepath.Base(path))
				}
			}
		})
	}
	if forms == 0 {
		t.Fatal("no forms checked")
	}
}

// TestSchemaProblems makes sure the subset check below is not vacuous.
func TestSchemaProblems(t *testing.T) {
	for _, bad := range []string{
		`{"type":"object","properties":{},"$schema":"x"}`,
		`{"type":"object","properties":{"a":{"type":"object"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"x"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","format":"phone"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":["x","x"]}}}`,
		`{"type":"object","properties":{"a":{"type":"string","enum":["x"],"default":"y"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","oneOf":[{"const":"x"}]}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","minimum":1.5}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","minimum":2,"maximum":1}}}`,
		`{"type":"object","properties":{"a":{"type":"integer","maximum":9007199254740992}}}`,
		`{"type":"object","properties":{"a":{"type":"number","default":"1"}}}`,
		`{"type":"object","properties":{"a":{"type":"boolean","minimum":1}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","enum":["x"]},"default":["y"]}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]},"uniqueItems":true}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`,
		`{"type":"object","properties":{"a":{"type":"string","anyOf":[{"const":"x","title":"X"}]}}}`,
	} {
		if len(schemaProblems([]byte(bad))) == 0 {
			t.Errorf("no problem found in %s", bad)
		}
	}
	good := `{"type":"object","properties":{"a":{"type":"string","title":"A","description":"d","minLength":1,"maxLength":2,"format":"email","default":"x"},` +
		`"b":{"type":"array","minItems":0,"maxItems":1,"items":{"anyOf":[{"const":"x","title":"X"}]},"default":[]}},"required":["a"]}`
	if p := schemaProblems([]byte(good)); len(p) > 0 {
		t.Errorf("problems in a good schema: %v", p)
	}
}

// schemaProblems lists the ways schema strays from the requestedSchema
// subset: the root has only type (object), properties and required; a
// property only the keywords its type allows.
func schemaProblems(schema []byte) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return []string{err.Error()}
	}
	for k := range root {
		if k != "type" && k != "properties" && k != "required" {
			bad("root keyword %q", k)
		}
	}
	if root["type"] != "object" {
		bad("root type %v", root["type"])
	}
	props, ok := root["properties"].(map[string]any)
	if !ok {
		bad("no properties object")
	}
	if req, ok := root["required"]; ok {
		list, ok := req.([]any)
		if !ok || len(list) == 0 {
			bad("required %v", req)
		}
		seen := map[any]bool{}
		for _, r := range list {
			if s, ok := r.(string); !ok || props[s] == nil || seen[r] {
				bad("required entry %v", r)
			}
			seen[r] = true
		}
	}
	common := []string{"type", "title", "description", "default"}
	allowed := map[string][]string{
		// enumNames: the spec's deprecated LegacyTitledEnumSchema (enumnames).
		"string":  append(slices.Clone(common), "minLength", "maxLength", "format", "enum", "oneOf", "enumNames"),
		"integer": append(slices.Clone(common), "minimum", "maximum"),
		"number":  append(slices.Clone(common), "minimum", "maximum"),
		"boolean": common,
		"array":   append(slices.Clone(common), "items", "minItems", "maxItems"),
	}
	for name, raw := range props {
		p, ok := raw.(map[string]any)
		if name == "" || !ok {
			bad("property %q: %v", name, raw)
			continue
		}
		typ, _ := p["type"].(string)
		keys, ok := allowed[typ]
		if !ok {
			bad("property %s: type %v", name, p["type"])
			continue
		}
		for k := range p {
			if !slices.Contains(keys, k) {
				bad("property %s (%s): keyword %q", name, typ, k)
			}
		}
		for _, k := range []string{"title", "description"} {
			if v, ok := p[k]; ok {
				if s, ok := v.(string); !ok || s == "" {
					bad("property %s: %s %v", name, k, v)
				}
			}
		}
		def, hasDef := p["default"]
		switch typ {
		case "string":
			checkCount(bad, name, p, "minLength", "maxLength")
			if f, ok := p["format"]; ok && !slices.Contains([]any{"email", "uri", "date", "date-time"}, f) {
				bad("property %s: format %v", name, f)
			}
			_, hasEnum := p["enum"]
			_, hasOneOf := p["oneOf"]
			values := []string(nil)
			switch {
			case hasEnum && hasOneOf:
				bad("property %s: both enum and oneOf", name)
			case hasEnum:
				values = stringList(bad, name, p["enum"])
			case hasOneOf:
				values = constList(bad, name, p["oneOf"])
			}
			if hasDef {
				s, ok := def.(string)
				if !ok || (hasEnum || hasOneOf) && !slices.Contains(values, s) {
					bad("property %s: default %v", name, def)
				}
			}
		case "integer", "number":
			lo, hasLo := p["minimum"].(float64)
			hi, hasHi := p["maximum"].(float64)
			for _, k := range []string{"minimum", "maximum", "default"} {
				v, ok := p[k]
				if !ok {
					continue
				}
				n, isNum := v.(float64)
				switch {
				case !isNum:
					bad("property %s: %s %v", name, k, v)
				case typ == "integer" && (n != math.Trunc(n) || math.Abs(n) > 1<<53-1):
					bad("property %s: %s %v is not a safe integer", name, k, v)
				case k == "default" && (hasLo && n < lo || hasHi && n > hi):
					bad("property %s: default %v out of bounds", name, v)
				}
			}
			if hasLo && hasHi && lo > hi {
				bad("property %s: minimum > maximum", name)
			}
		case "boolean":
			if _, ok := def.(bool); hasDef && !ok {
				bad("property %s: default %v", name, def)
			}
		case "array":
			checkCount(bad, name, p, "minItems", "maxItems")
			items, ok := p["items"].(map[string]any)
			if !ok {
				bad("property %s: items %v", name, p["items"])
				continue
			}
			var values []string
			switch {
			case len(items) == 2 && items["type"] == "string" && items["enum"] != nil:
				values = stringList(bad, name, items["enum"])
			case len(items) == 1 && items["anyOf"] != nil:
				values = constList(bad, name, items["anyOf"])
			default:
				bad("property %s: items %v", name, items)
			}
			if hasDef {
				seen := map[string]bool{}
				list, ok := def.([]any)
				if !ok {
					bad("property %s: default %v", name, def)
				}
				for _, v := range list {
					s, _ := v.(string)
					if !slices.Contains(values, s) || seen[s] {
						bad("property %s: default item %v", name, v)
					}
					seen[s] = true
				}
			}
		}
	}
	return problems
}

// checkCount checks a pair of non-negative whole-number bounds.
func checkCount(bad func(string, ...any), name string, p map[string]any, lo, hi string) {
	var vals [2]float64
	for i, k := range []string{lo, hi} {
		v, ok := p[k]
		if !ok {
			vals[i] = math.NaN()
			continue
		}
		n, isNum := v.(float64)
		if !isNum || n < 0 || n != math.Trunc(n) {
			bad("property %s: %s %v", name, k, v)
		}
		vals[i] = n
	}
	if vals[0] > vals[1] {
		bad("property %s: %s > %s", name, lo, hi)
	}
}

// stringList checks a non-empty list of distinct strings.
func stringList(bad func(string, ...any), name string, v any) []string {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		bad("property %s: enum %v", name, v)
		return nil
	}
	var out []string
	for _, x := range list {
		s, ok := x.(string)
		if !ok || slices.Contains(out, s) {
			bad("property %s: enum value %v", name, x)
		}
		out = append(out, s)
	}
	return out
}

// constList checks a non-empty list of {"const": string, "title": string}
// with distinct consts and non-empty titles.
func constList(bad func(string, ...any), name string, v any) []string {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		bad("property %s: titled values %v", name, v)
		return nil
	}
	var out []string
	for _, x := range list {
		m, ok := x.(map[string]any)
		c, cOK := m["const"].(string)
		title, tOK := m["title"].(string)
		if !ok || len(m) != 2 || !cOK || !tOK || strings.TrimSpace(title) == "" || slices.Contains(out, c) {
			bad("property %s: titled value %v", name, x)
		}
		out = append(out, c)
	}
	return out
}
