package elicittest

import (
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
// the property names elicitgen gives its fields.
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
		name, date, ok := propertyName(f)
		if !ok || !f.IsExported() {
			continue
		}
		value, ok, err := jsonValue(rv.Field(i), date)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if ok {
			content[name] = value
		}
	}
	return content, nil
}

// propertyName returns the property of field f as elicitgen names it (the
// elicit tag's name, else the json tag's, else the Go name), whether it
// is a date (format=date), and false for a skipped field.
func propertyName(f reflect.StructField) (name string, date bool, ok bool) {
	tag, tagged := f.Tag.Lookup("elicit")
	if tag == "-" {
		return "", false, false
	}
	parts := strings.Split(tag, ",")
	name = parts[0]
	for _, p := range parts[1:] {
		date = date || p == "format=date"
	}
	if name != "" {
		return name, date, true
	}
	jname, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch {
	case jname == "-":
		return "", false, false
	case jname != "":
		return jname, date, true
	}
	return f.Name, date, tagged || f.IsExported()
}

// jsonValue returns v as the client would send it in JSON; false for a
// nil pointer (an optional property left out).
func jsonValue(v reflect.Value, date bool) (any, bool, error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, false, nil
		}
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
