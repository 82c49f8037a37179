package gen

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// buildSchema renders the form's requestedSchema: the 2026-07-28 subset
// only (root type, properties, required; per property only the keywords its
// variant allows), properties in field order, compact.
func buildSchema(form *formModel) []byte {
	size := 64
	for _, f := range form.Fields {
		size += 64 + len(f.Property) + len(f.Title) + len(f.Description)
		if f.Enum != nil {
			for _, v := range f.Enum.Values {
				size += 24 + len(v.Value) + len(v.Title)
			}
		}
	}
	b := bytes.NewBuffer(make([]byte, 0, size))
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, f := range form.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, f.Property)
		b.WriteByte(':')
		writeProperty(b, f)
		if f.Required {
			required = append(required, f.Property)
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":[`)
		for i, r := range required {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, r)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
}

// object writes "key":value pairs separated by commas.
type object struct {
	b     *bytes.Buffer
	first bool
}

func (o *object) key(k string) {
	if !o.first {
		o.b.WriteByte(',')
	}
	o.first = false
	writeString(o.b, k)
	o.b.WriteByte(':')
}

func (o *object) str(k, v string) {
	o.key(k)
	writeString(o.b, v)
}

func (o *object) raw(k, v string) {
	o.key(k)
	o.b.WriteString(v)
}

// jsonTypes are the JSON Schema types of the kinds of property.
var jsonTypes = map[propKind]string{
	kindString: "string", kindEnum: "string", kindTime: "string",
	kindBool: "boolean", kindInteger: "integer", kindNumber: "number", kindMulti: "array",
}

// writeProperty writes the schema of one property: its type, title and
// description, the keywords of its kind, its default.
func writeProperty(b *bytes.Buffer, f *fieldModel) {
	b.WriteByte('{')
	o := &object{b: b, first: true}
	o.str("type", jsonTypes[f.Kind])
	if f.Title != "" {
		o.str("title", f.Title)
	}
	if f.Description != "" {
		o.str("description", f.Description)
	}
	writeKeywords(o, f)
	if f.Default != nil {
		o.key("default")
		writeDefault(b, f)
	}
	b.WriteByte('}')
}

// writeKeywords writes the keywords of the property's kind: bounds,
// format, values.
func writeKeywords(o *object, f *fieldModel) {
	switch f.Kind {
	case kindString:
		if f.HasMin {
			o.raw("minLength", strconv.FormatInt(f.MinInt, 10))
		}
		if f.HasMax {
			o.raw("maxLength", strconv.FormatInt(f.MaxInt, 10))
		}
		if f.Format != "" {
			o.str("format", f.Format)
		}
	case kindTime:
		o.str("format", f.Format)
	case kindInteger:
		o.raw("minimum", strconv.FormatInt(f.MinInt, 10))
		o.raw("maximum", strconv.FormatInt(f.MaxInt, 10))
	case kindNumber:
		if f.HasMin {
			o.raw("minimum", number(f.MinNum))
		}
		if f.HasMax {
			o.raw("maximum", number(f.MaxNum))
		}
	case kindEnum:
		if f.EnumNames {
			writeEnumNames(o, f.Enum)
			break
		}
		writeEnum(o, f.Enum, "oneOf")
	case kindMulti:
		writeMulti(o, f)
	}
}

// writeMulti writes the keywords of a multi-select: its item counts, and
// its items, values of its enum.
func writeMulti(o *object, f *fieldModel) {
	if f.HasMin {
		o.raw("minItems", strconv.FormatInt(f.MinInt, 10))
	}
	if f.HasMax {
		o.raw("maxItems", strconv.FormatInt(f.MaxInt, 10))
	}
	o.key("items")
	o.b.WriteByte('{')
	items := &object{b: o.b, first: true}
	if !f.Enum.Titled {
		items.str("type", "string")
	}
	writeEnum(items, f.Enum, "anyOf")
	o.b.WriteByte('}')
}

// writeDefault writes the property's default, as JSON of its kind.
func writeDefault(b *bytes.Buffer, f *fieldModel) {
	d := f.Default
	switch f.Kind {
	case kindString, kindEnum:
		writeString(b, d.String)
	case kindBool:
		b.WriteString(strconv.FormatBool(d.Bool))
	case kindInteger:
		b.WriteString(strconv.FormatInt(d.Int, 10))
	case kindNumber:
		b.WriteString(number(d.Num))
	case kindMulti:
		b.WriteByte('[')
		for i, v := range d.List {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, v)
		}
		b.WriteByte(']')
	case kindTime:
		writeString(b, d.Raw)
	}
}

// writeEnum writes an untitled "enum":[...] or a titled
// titledKey:[{"const":..,"title":..}].
func writeEnum(o *object, e *enumModel, titledKey string) {
	if !e.Titled {
		o.key("enum")
		o.b.WriteByte('[')
		for i, v := range e.Values {
			if i > 0 {
				o.b.WriteByte(',')
			}
			writeString(o.b, v.Value)
		}
		o.b.WriteByte(']')
		return
	}
	o.key(titledKey)
	o.b.WriteByte('[')
	for i, v := range e.Values {
		if i > 0 {
			o.b.WriteByte(',')
		}
		o.b.WriteString(`{"const":`)
		writeString(o.b, v.Value)
		o.b.WriteString(`,"title":`)
		writeString(o.b, v.Title)
		o.b.WriteByte('}')
	}
	o.b.WriteByte(']')
}

func writeString(b *bytes.Buffer, s string) {
	if plainJSON(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // cannot fail for a string
	b.Truncate(b.Len() - 1) // Encode's newline
}

// plainJSON reports whether s is printable ASCII with no quote or
// backslash: a JSON string of s is s between quotes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func number(f float64) string {
	out, _ := json.Marshal(f)
	return string(out)
}

// writeEnumNames writes a titled single-select in the deprecated form of
// the spec's LegacyTitledEnumSchema: "enum":[values],"enumNames":[titles].
func writeEnumNames(o *object, e *enumModel) {
	list := func(key string, value func(enumValue) string) {
		o.key(key)
		o.b.WriteByte('[')
		for i, v := range e.Values {
			if i > 0 {
				o.b.WriteByte(',')
			}
			writeString(o.b, value(v))
		}
		o.b.WriteByte(']')
	}
	list("enum", func(v enumValue) string { return v.Value })
	list("enumNames", func(v enumValue) string { return v.Title })
}
