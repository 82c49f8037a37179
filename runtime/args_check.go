package runtime

import (
	"encoding/json"
	"math"
	"slices"
)

// argsCheck is a quick check of a flat tool's arguments against the
// subset of JSON Schema that generated input schemas use: it says valid
// only where jsonschema-go's Validate would, and when it cannot say, the
// caller runs Validate, whose error is the one users see. So valid
// arguments skip jsonschema-go (reflection, a walk of the whole schema) and
// invalid ones get the same error text as before.
//
// For such a schema it also applies the defaults, which are scalars,
// without ApplyDefaults' reflection.
//
// It is built only for a schema of an object with properties, required,
// additionalProperties (false or absent) and annotations (title,
// description, default, $schema), whose properties use only type (scalar
// types and null), enum, const, minimum, maximum, a oneOf of distinct
// consts, and annotations; any other keyword, anywhere, means no quick
// check.
type argsCheck struct {
	props    map[string]*propCheck
	required []string
	closed   bool // additionalProperties: false
	// defaults are the properties' defaults, all scalars, except those of
	// required properties, which jsonschema-go's ApplyDefaults skips too.
	defaults map[string]any
}

type propCheck struct {
	types    []string // empty: any type
	enum     []any    // nil: no enum
	consts   []any    // const, or the consts of oneOf: exactly one must match
	min, max *float64
}

var (
	checkTopKeys  = map[string]bool{"type": true, "properties": true, "required": true, "additionalProperties": true, "title": true, "description": true, "$schema": true}
	checkPropKeys = map[string]bool{"type": true, "enum": true, "const": true, "minimum": true, "maximum": true, "oneOf": true, "title": true, "description": true, "default": true}
)

// newArgsCheck returns the quick check of schema, or nil when the schema
// uses anything it does not check.
func newArgsCheck(schema []byte) *argsCheck {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return nil
	}
	for k := range top {
		if !checkTopKeys[k] {
			return nil
		}
	}
	var typ string
	if json.Unmarshal(top["type"], &typ) != nil || typ != "object" {
		return nil
	}
	c := &argsCheck{props: map[string]*propCheck{}}
	if raw, ok := top["additionalProperties"]; ok {
		var closed bool
		if json.Unmarshal(raw, &closed) != nil || closed {
			return nil // a schema, or true: leave it to jsonschema-go
		}
		c.closed = true
	}
	if raw, ok := top["required"]; ok && json.Unmarshal(raw, &c.required) != nil {
		return nil
	}
	var props map[string]map[string]json.RawMessage
	if raw, ok := top["properties"]; ok && json.Unmarshal(raw, &props) != nil {
		return nil
	}
	for name, prop := range props {
		p := &propCheck{}
		for k, raw := range prop {
			if !checkPropKeys[k] {
				return nil
			}
			var err error
			switch k {
			case "type":
				var one string
				if json.Unmarshal(raw, &one) == nil {
					p.types = []string{one}
				} else {
					err = json.Unmarshal(raw, &p.types)
				}
				for _, t := range p.types {
					switch t {
					case "string", "boolean", "number", "integer", "null":
					default:
						return nil
					}
				}
			case "enum":
				err = json.Unmarshal(raw, &p.enum)
				if err == nil && p.enum == nil {
					return nil
				}
			case "const":
				var v any
				err = json.Unmarshal(raw, &v)
				p.consts = append(p.consts, v)
			case "minimum":
				p.min = new(float64)
				err = json.Unmarshal(raw, p.min)
			case "maximum":
				p.max = new(float64)
				err = json.Unmarshal(raw, p.max)
			case "oneOf":
				var subs []map[string]json.RawMessage
				if err = json.Unmarshal(raw, &subs); err != nil {
					return nil
				}
				for _, sub := range subs {
					cst, ok := sub["const"]
					if !ok {
						return nil
					}
					for sk := range sub {
						if sk != "const" && sk != "title" && sk != "description" {
							return nil
						}
					}
					var v any
					if err = json.Unmarshal(cst, &v); err != nil {
						return nil
					}
					p.consts = append(p.consts, v)
				}
			}
			if err != nil {
				return nil
			}
		}
		if _, hasConst := prop["const"]; hasConst {
			if _, hasOneOf := prop["oneOf"]; hasOneOf {
				return nil // two kinds of const: leave it to jsonschema-go
			}
		}
		for i, a := range p.consts {
			if !scalar(a) {
				return nil
			}
			for _, b := range p.consts[:i] {
				if sameScalar(a, b) {
					return nil // oneOf would match twice
				}
			}
		}
		for _, e := range p.enum {
			if !scalar(e) {
				return nil
			}
		}
		if raw, ok := prop["default"]; ok && !slices.Contains(c.required, name) {
			var v any
			if json.Unmarshal(raw, &v) != nil || !scalar(v) {
				return nil
			}
			if c.defaults == nil {
				c.defaults = map[string]any{}
			}
			c.defaults[name] = v
		}
		c.props[name] = p
	}
	return c
}

// applyDefaults sets each absent property that has a default to it, as
// jsonschema-go's ApplyDefaults does for a flat schema.
func (c *argsCheck) applyDefaults(m map[string]any) {
	for k, v := range c.defaults {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
}

// valid reports whether m certainly satisfies the schema; false means "ask
// jsonschema-go", not "invalid".
func (c *argsCheck) valid(m map[string]any) bool {
	for _, r := range c.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	for k, v := range m {
		p, ok := c.props[k]
		if !ok {
			if c.closed {
				return false
			}
			continue
		}
		if !p.valid(v) {
			return false
		}
	}
	return true
}

func (p *propCheck) valid(v any) bool {
	if !scalar(v) {
		return false
	}
	if len(p.types) > 0 {
		ok := false
		for _, t := range p.types {
			if hasType(v, t) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if p.enum != nil && !containsScalar(p.enum, v) {
		return false
	}
	if p.consts != nil && !containsScalar(p.consts, v) {
		return false
	}
	if p.min != nil || p.max != nil {
		if f, ok := v.(float64); ok && (p.min != nil && f < *p.min || p.max != nil && f > *p.max) {
			return false
		}
	}
	return true
}

func hasType(v any, t string) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "null":
		return v == nil
	}
	return false
}

// scalar: a JSON string, number, boolean or null as encoding/json decodes
// them into an any.
func scalar(v any) bool {
	switch v.(type) {
	case nil, string, float64, bool:
		return true
	}
	return false
}

func sameScalar(a, b any) bool { return a == b }

func containsScalar(list []any, v any) bool {
	for _, e := range list {
		if sameScalar(e, v) {
			return true
		}
	}
	return false
}
