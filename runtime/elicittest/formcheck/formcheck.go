// Package formcheck is the independent validator of the decoder fuzz
// tests: it reads a decoded form struct back into schema values with
// reflection and the struct tags (not with the generated code), and checks
// them against the form's published requestedSchema with jsonschema-go plus
// its own format checks (jsonschema-go ignores formats): regular
// expressions transcribed from the RFCs' ABNF, in formats.go.
//
// A user fuzzes the decoder of each form with Fuzz, in a FuzzX function
// of their package's tests: a decoded value the validator refuses, or an
// accepted one that does not read back as what was sent, fails the fuzz.
package formcheck

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Checker validates values of one form.
type Checker struct {
	resolved *jsonschema.Resolved
	formats  map[string]string // property → format
	defaults map[string]bool   // properties with a default
}

// New compiles the form's schema.
func New(schema json.RawMessage) (*Checker, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	c := &Checker{resolved: r, formats: map[string]string{}, defaults: map[string]bool{}}
	for name, p := range s.Properties {
		if p.Format != "" {
			c.formats[name] = p.Format
		}
		if p.Default != nil {
			c.defaults[name] = true
		}
	}
	return c, nil
}

// Properties renders the exported fields of the form struct form (a struct
// value) as schema values, keyed by property name, for the properties that
// content had or that have a default. Pointers that are nil are absent.
func (c *Checker) Properties(form any, content map[string]any) map[string]any {
	v := reflect.ValueOf(form)
	t := v.Type()
	out := map[string]any{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := propertyName(f)
		if name == "" {
			continue
		}
		if _, sent := content[name]; !sent && !c.defaults[name] {
			continue
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		out[name] = value(fv, c.formats[name])
	}
	return out
}

func propertyName(f reflect.StructField) string {
	tag, ok := f.Tag.Lookup("elicit")
	if !ok || tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name != "" {
		return name
	}
	if j, ok := f.Tag.Lookup("json"); ok {
		if n, _, _ := strings.Cut(j, ","); n != "" && n != "-" {
			return n
		}
	}
	return f.Name
}

func value(v reflect.Value, format string) any {
	if t, ok := v.Interface().(time.Time); ok {
		if format == "date" {
			return t.Format("2006-01-02")
		}
		return t.Format(time.RFC3339Nano)
	}
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Slice:
		l := make([]any, v.Len())
		for i := range l {
			l[i] = v.Index(i).String()
		}
		return l
	}
	panic(fmt.Sprintf("formcheck: unsupported kind %s", v.Kind()))
}

// Check validates props against the schema and its formats.
func (c *Checker) Check(props map[string]any) error {
	if err := c.resolved.Validate(props); err != nil {
		return err
	}
	for name, format := range c.formats {
		if v, ok := props[name]; ok && !validFormat(format, v) {
			return fmt.Errorf("%s: %v is not a valid %s", name, v, format)
		}
	}
	return nil
}

func validFormat(format string, v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	switch format {
	case "email":
		return Email(s)
	case "uri":
		return URI(s)
	case "date":
		_, ok := Date(s)
		return ok
	case "date-time":
		_, ok := DateTime(s)
		return ok
	}
	return false
}

// Same reports whether a decoded value equals what was sent: numbers within
// float32 precision when the field is float32, times as instants.
func Same(sent, got any, format string) bool {
	switch format {
	case "date", "date-time":
		parse := DateTime
		if format == "date" {
			parse = Date
		}
		s, _ := sent.(string)
		g, _ := got.(string)
		a, ok1 := parse(s)
		b, ok2 := parse(g)
		return ok1 && ok2 && a.Equal(b)
	}
	if a, ok := sent.(float64); ok {
		b, ok := got.(float64)
		if !ok {
			return false
		}
		if a == b {
			return true
		}
		d := a - b
		if d < 0 {
			d = -d
		}
		m := a
		if m < 0 {
			m = -m
		}
		return d <= m*1e-6 // float32 fields round
	}
	return reflect.DeepEqual(sent, got)
}

// Format is the property's format, "" for none.
func (c *Checker) Format(name string) string { return c.formats[name] }

// Decoder is a pointer to a generated form type.
type Decoder[T any] interface {
	*T
	DecodeElicit(map[string]any) error
}

// Fuzz is the body of a decoder fuzz test for form type T with the given
// schema: JSON objects are decoded with the generated decoder; whatever it
// accepts must pass the independent check and carry exactly the values
// sent; whatever it refuses must leave the struct untouched.
func Fuzz[T any, P Decoder[T]](f *testing.F, schema json.RawMessage, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	c, err := New(schema)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var content map[string]any
		if json.Unmarshal(data, &content) != nil {
			return
		}
		var form T
		if err := P(&form).DecodeElicit(content); err != nil {
			var zero T
			if !reflect.DeepEqual(form, zero) {
				t.Fatalf("a failed decode changed the struct: %+v", form)
			}
			return
		}
		props := c.Properties(form, content)
		if err := c.Check(props); err != nil {
			t.Fatalf("accepted %s, which the schema rejects: %v", data, err)
		}
		for name, sent := range content {
			if got, known := props[name]; known && !Same(sent, got, c.Format(name)) {
				t.Fatalf("%s: sent %#v, decoded %#v", name, sent, got)
			}
		}
	})
}
