package machine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	elicitrt "github.com/elicitgen/elicitgen/runtime"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/elicitgen/elicitgen/internal/format"
	"github.com/elicitgen/elicitgen/internal/refuse"
)

// Arguments that fail a tool's input schema are worded as the form
// decoders word a form's content (docs/reference/runtime.md): "invalid arguments:
// property: reason; ...", in schema order. The schema library still
// decides what is valid (the SDK's outcome); argWords only says why, so a
// model can act on it.

// argWords words the failures of one tool's arguments.
type argWords struct {
	order    []string                      // the input schema's properties, in order
	props    map[string]*jsonschema.Schema // their schemas
	required map[string]bool
	// closed: the schema allows no other property.
	closed bool
	// forms are the decoders of the prefilled properties: a prefilled
	// property's reason is its form's.
	forms map[string]func(map[string]any) error
}

// newArgWords returns the words of the arguments of schema (JSON text) for
// the machine m's prefilled properties, or nil when schema cannot be read.
func newArgWords(schema any, m *Machine) *argWords {
	raw, ok := schema.(json.RawMessage)
	if !ok {
		return nil
	}
	var root jsonschema.Schema
	top, isObject := readObject(raw)
	i := top.index("properties")
	if json.Unmarshal(raw, &root) != nil || !isObject {
		return nil
	}
	w := &argWords{props: root.Properties, required: map[string]bool{}, forms: map[string]func(map[string]any) error{}}
	if i >= 0 {
		props, _ := readObject(top[i].value)
		for _, p := range props {
			w.order = append(w.order, p.key)
		}
	}
	for _, r := range root.Required {
		w.required[r] = true
	}
	if ap := root.AdditionalProperties; ap != nil {
		b, err := json.Marshal(ap)
		w.closed = err == nil && (string(b) == "false" || string(b) == `{"not":{}}`)
	}
	for j := range m.steps {
		for _, p := range m.steps[j].Prefill {
			w.forms[p] = m.steps[j].Check
		}
	}
	return w
}

// explain returns the tool error text of arguments args that the schema
// library refused with err: every property it can word, or, when it can
// word none (a keyword it does not know), the library's text.
func (w *argWords) explain(args map[string]any, err error) string {
	var bad []elicitrt.FieldError
	for _, name := range w.order {
		v, ok := args[name]
		if !ok {
			if w.required[name] {
				bad = append(bad, elicitrt.FieldError{Property: name, Reason: ReasonRequired})
			}
			continue
		}
		if reason := w.reason(name, v); reason != "" {
			bad = append(bad, elicitrt.FieldError{Property: name, Reason: reason})
		}
	}
	if w.closed {
		var unknown []string
		for k := range args {
			if w.props[k] == nil {
				unknown = append(unknown, k)
			}
		}
		slices.Sort(unknown)
		for i, k := range unknown {
			if i == maxUnknownNamed {
				bad = append(bad, elicitrt.FieldError{Property: fmt.Sprintf("and %d more", len(unknown)-i), Reason: "are not arguments of this tool"})
				break
			}
			bad = append(bad, elicitrt.FieldError{Property: refuse.Cut(k, 64), Reason: "is not an argument of this tool (it takes " + strings.Join(w.order, ", ") + ")"})
		}
	}
	if len(bad) == 0 {
		return refuse.Cut("invalid arguments: "+strings.TrimPrefix(err.Error(), "validating root: "), maxArgsErrorLen)
	}
	return refuse.Cut("invalid arguments: "+strings.TrimPrefix((&elicitrt.ContentError{Fields: bad}).Error(), "invalid content: "), maxArgsErrorLen)
}

// maxUnknownNamed bounds the unknown arguments an error names, and
// maxArgsErrorLen its text: the arguments come from the client.
const (
	maxUnknownNamed = 3
	maxArgsErrorLen = 2048
)

// reason says why v is not a valid value of property name, or "".
func (w *argWords) reason(name string, v any) string {
	if check := w.forms[name]; check != nil {
		var ce *elicitrt.ContentError
		if errors.As(check(map[string]any{name: v}), &ce) {
			if r := ce.Reason(name); r != "" {
				return r
			}
		}
	}
	return schemaReason(w.props[name], v)
}

// schemaReason says, in the form decoders' words, which keyword of s the
// value v fails, or "" when it fails none of those it knows.
func schemaReason(s *jsonschema.Schema, v any) string {
	if s == nil {
		return ""
	}
	if vals := allowedValues(s); vals != nil && !slices.ContainsFunc(vals, func(a any) bool { return jsonEqualValue(a, v) }) {
		return "must be one of " + listValues(vals)
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return hasType(t, v) }) {
		return typeReason(types, v)
	}
	switch x := v.(type) {
	case string:
		return stringReason(s, x)
	case float64:
		return numberBoundsReason(s, x)
	case []any:
		return arrayReason(s, x)
	}
	return ""
}

// allowedValues are the values s allows by enum, const or a oneOf or
// anyOf of consts; nil when it does not list them.
func allowedValues(s *jsonschema.Schema) []any {
	if len(s.Enum) > 0 {
		return s.Enum
	}
	if s.Const != nil {
		return []any{*s.Const}
	}
	for _, alts := range [][]*jsonschema.Schema{s.OneOf, s.AnyOf} {
		var vals []any
		for _, a := range alts {
			if a == nil || a.Const == nil {
				vals = nil
				break
			}
			vals = append(vals, *a.Const)
		}
		if vals != nil {
			return vals
		}
	}
	return nil
}

func jsonEqualValue(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// listValues lists values as the form decoders do: "dev, staging, prod".
func listValues(vals []any) string {
	out := make([]string, len(vals))
	for i, v := range vals {
		if s, ok := v.(string); ok {
			out[i] = s
		} else {
			b, _ := json.Marshal(v)
			out[i] = string(b)
		}
	}
	return bounded(strings.Join(out, ", "))
}

// hasType reports whether v, decoded from JSON, is of JSON Schema type t.
func hasType(t string, v any) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case float64:
		return t == "number" || t == "integer" && x == math.Trunc(x)
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

// typeReason says which type v should have been, by the first of types
// that is not null.
func typeReason(types []string, v any) string {
	t := types[0]
	if t == "null" && len(types) > 1 {
		t = types[1]
	}
	switch t {
	case "string":
		return ReasonString
	case "boolean":
		return ReasonBoolean
	case "number":
		return ReasonNumber
	case "integer":
		if _, isNumber := v.(float64); isNumber {
			return ReasonWhole
		}
		return ReasonInteger
	case "array":
		return "must be an array"
	case "object":
		return "must be an object"
	}
	return "must be " + t
}

// stringReason words the length, format and pattern keywords of s for x.
func stringReason(s *jsonschema.Schema, x string) string {
	n := utf8.RuneCountInString(x)
	if s.MinLength != nil && n < *s.MinLength || s.MaxLength != nil && n > *s.MaxLength {
		return countReason(s.MinLength, s.MaxLength, "characters")
	}
	switch {
	case s.Format == "email" && !format.IsEmail(x):
		return ReasonEmail
	case s.Format == "uri" && !format.IsAbsoluteURI(x):
		return ReasonURI
	case s.Format == "date" && !format.IsDate(x):
		return ReasonDate
	case s.Format == "date-time":
		if _, ok := format.ParseDateTime(x); !ok {
			return ReasonDateTime
		}
	}
	if s.Pattern != "" {
		if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(x) {
			return "must match the pattern " + bounded(s.Pattern)
		}
	}
	return ""
}

// arrayReason words the item count and the allowed items of s for x.
func arrayReason(s *jsonschema.Schema, x []any) string {
	if s.MinItems != nil && len(x) < *s.MinItems || s.MaxItems != nil && len(x) > *s.MaxItems {
		return countReason(s.MinItems, s.MaxItems, "items")
	}
	if s.Items == nil {
		return ""
	}
	for _, item := range x {
		if vals := allowedValues(s.Items); vals != nil && !slices.ContainsFunc(vals, func(a any) bool { return jsonEqualValue(a, item) }) {
			return "items must be among " + listValues(vals)
		}
		if r := schemaReason(s.Items, item); r != "" {
			return "each item " + r
		}
	}
	return ""
}

// countReason is the decoders' "must have 1 to 3 items".
func countReason(lo, hi *int, unit string) string {
	units := func(n int) string {
		if n == 1 {
			return strings.TrimSuffix(unit, "s")
		}
		return unit
	}
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("must have %d to %d %s", *lo, *hi, units(*hi))
	case lo != nil:
		return fmt.Sprintf("must have at least %d %s", *lo, units(*lo))
	}
	return fmt.Sprintf("must have at most %d %s", *hi, units(*hi))
}

// numberBoundsReason words the bounds of s for x, as the decoders do.
func numberBoundsReason(s *jsonschema.Schema, x float64) string {
	lo, hi := s.Minimum, s.Maximum
	out := lo != nil && x < *lo || hi != nil && x > *hi ||
		s.ExclusiveMinimum != nil && x <= *s.ExclusiveMinimum || s.ExclusiveMaximum != nil && x >= *s.ExclusiveMaximum
	if !out {
		return ""
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	kind := "a number"
	if s.Type == "integer" {
		kind = "an integer"
	}
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("must be %s from %s to %s", kind, num(*lo), num(*hi))
	case lo != nil:
		return "must be at least " + num(*lo)
	case hi != nil:
		return "must be at most " + num(*hi)
	case s.ExclusiveMinimum != nil:
		return "must be more than " + num(*s.ExclusiveMinimum)
	}
	return "must be less than " + num(*s.ExclusiveMaximum)
}
