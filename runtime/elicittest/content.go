package elicittest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// schemaOf is what a generated form type has: its requested schema.
type schemaOf interface{ ElicitSchema() json.RawMessage }

// contentOf returns the form content the person sends for v: a
// map[string]any as is (nil for none); a struct (or a pointer to one) by
// the property names elicitgen gives its fields, leaving out what a person
// leaves empty: a nil pointer or slice, and the zero value of a property
// neither required nor with a default.
func contentOf(v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("content of type %T: want a form struct or a map[string]any", v)
	}
	content := map[string]any{}
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		p, ok := propertyOf(f)
		if !ok || !f.IsExported() || rv.Field(i).IsZero() && !p.keepZero {
			continue
		}
		value, ok, err := jsonValue(rv.Field(i), p.date)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if ok {
			content[p.name] = value
		}
	}
	return content, nil
}

// fieldProperty is what the kit needs of a form field's property.
type fieldProperty struct {
	name     string
	date     bool // format=date: a time.Time sent as a date
	keepZero bool // required, or with a default: its zero value is sent
}

// propertyOf returns the property of field f as elicitgen names it (the
// elicit tag's name, else the json tag's, else the Go name), and false
// for a skipped field.
func propertyOf(f reflect.StructField) (fieldProperty, bool) {
	tag := f.Tag.Get("elicit")
	if tag == "-" {
		return fieldProperty{}, false
	}
	parts := strings.Split(tag, ",")
	p := fieldProperty{name: parts[0]}
	for _, opt := range parts[1:] {
		p.date = p.date || opt == "format=date"
		p.keepZero = p.keepZero || opt == "required" || strings.HasPrefix(opt, "default=")
	}
	if p.name != "" {
		return p, true
	}
	jname, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if jname == "-" {
		return fieldProperty{}, false
	}
	p.name = cmp.Or(jname, f.Name)
	return p, true
}

// jsonValue returns v as the client would send it in JSON; false for a
// nil pointer or slice (an optional property left out).
func jsonValue(v reflect.Value, date bool) (any, bool, error) {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Slice) && v.IsNil() {
		return nil, false, nil
	}
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if t, ok := v.Interface().(time.Time); ok && date {
		return t.Format(time.DateOnly), true, nil
	}
	raw, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, false, err
	}
	var out any
	err = json.Unmarshal(raw, &out)
	return out, true, err
}

// schemaNames returns the property names of v's generated schema, and
// false when v is no generated form type.
func schemaNames(v any) ([]string, bool) {
	s, ok := v.(schemaOf)
	if !ok {
		return nil, false
	}
	var names []string
	for _, p := range properties(s.ElicitSchema()) {
		names = append(names, p.Name)
	}
	return names, true
}
