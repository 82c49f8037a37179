package gen

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/fatih/structtag"
)

// tagSpec is the parsed `elicit:"NAME,OPTION,..."` struct tag.
type tagSpec struct {
	Present   bool // the field has an elicit tag
	Skip      bool // elicit:"-"
	Name      string
	Required  bool
	Title     string
	Min, Max  string // raw text; typed by the field in check.go
	Format    string
	Default   *string // nil when absent; typed by the field
	Enum      []string
	NotSecret bool
}

// tagOptions lists every option the grammar knows, with whether it takes a
// value. The README documents this table.
var tagOptions = map[string]bool{
	"required":  false,
	"notsecret": false,
	"title":     true,
	"min":       true,
	"max":       true,
	"format":    true,
	"default":   true,
	"enum":      true,
}

// parseStructTag reads the elicit entry of a raw (unquoted) struct tag with
// structtag, then the option grammar. It returns every problem it finds.
func parseStructTag(raw string) (tagSpec, []string) {
	if strings.TrimSpace(raw) == "" {
		return tagSpec{}, nil
	}
	tags, err := structtag.Parse(raw)
	if err != nil {
		return tagSpec{}, []string{fmt.Sprintf("malformed struct tag %q: %v", raw, err)}
	}
	if tags == nil {
		return tagSpec{}, nil
	}
	if tag, err := tags.Get("elicit"); err != nil || tag == nil {
		return tagSpec{}, nil
	}
	// The value as written (structtag's Value() drops a trailing empty
	// option, "name,"). structtag follows reflect's tag grammar, so Lookup
	// finds what it found; FuzzParseStructTag checks that they agree.
	value, _ := reflect.StructTag(raw).Lookup("elicit")
	return parseElicitTag(value)
}

// parseElicitTag parses the value of an elicit tag: a property name followed
// by comma-separated options. Values cannot contain commas.
func parseElicitTag(value string) (tagSpec, []string) {
	spec := tagSpec{Present: true}
	if value == "-" {
		spec.Skip = true
		return spec, nil
	}
	name, rest, hasOptions := strings.Cut(value, ",")
	spec.Name = strings.TrimSpace(name)
	var problems []string
	seen := map[string]bool{}
	for hasOptions {
		var opt string
		opt, rest, hasOptions = strings.Cut(rest, ",")
		key, val, hasVal := strings.Cut(opt, "=")
		key = strings.TrimSpace(key)
		if key == "" {
			problems = append(problems, fmt.Sprintf("empty option in elicit tag %q", value))
			continue
		}
		takesValue, known := tagOptions[key]
		switch {
		case !known:
			problems = append(problems, fmt.Sprintf("unknown elicit option %q (known: default, enum, format, max, min, notsecret, required, title)", key))
			continue
		case seen[key]:
			problems = append(problems, fmt.Sprintf("elicit option %q given twice", key))
			continue
		case takesValue && !hasVal:
			problems = append(problems, fmt.Sprintf("elicit option %q needs a value: %s=VALUE", key, key))
			continue
		case !takesValue && hasVal:
			problems = append(problems, fmt.Sprintf("elicit option %q takes no value", key))
			continue
		case takesValue && val == "" && key != "default":
			problems = append(problems, fmt.Sprintf("elicit option %q has an empty value", key))
			continue
		}
		seen[key] = true
		switch key {
		case "required":
			spec.Required = true
		case "notsecret":
			spec.NotSecret = true
		case "title":
			spec.Title = val
		case "min":
			spec.Min = val
		case "max":
			spec.Max = val
		case "format":
			spec.Format = val
		case "default":
			v := val
			spec.Default = &v
		case "enum":
			for _, e := range strings.Split(val, "|") {
				if e == "" {
					problems = append(problems, fmt.Sprintf("enum %q has an empty value", val))
					break
				}
				if slices.Contains(spec.Enum, e) {
					problems = append(problems, fmt.Sprintf("enum %q repeats the value %q", val, e))
					break
				}
				spec.Enum = append(spec.Enum, e)
			}
		}
	}
	return spec, problems
}
