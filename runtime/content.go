package runtime

import (
	"cmp"
	"strings"
)

// FieldError is one property of accepted elicitation content that did not
// satisfy the form's schema.
type FieldError struct {
	// Property is the schema property name (not the Go field name).
	Property string
	// Reason says what is wrong, in words fit to show the user, such as
	// "must be one of dev, staging, prod": the values a client sends, as
	// the model needs them in an argument error.
	Reason string
	// Shown, when set, is Reason in the words the form showed the person:
	// an enum's titles ("must be one of Development, Staging, Production").
	// A re-ask says it (ContentError.Shown).
	Shown string
}

// ContentError is returned by a generated DecodeElicit when accepted content
// does not satisfy the form. It lists every bad property, in schema order.
type ContentError struct {
	Fields []FieldError
}

// Error returns "invalid content: p1: reason; p2: reason".
func (e *ContentError) Error() string {
	var b strings.Builder
	b.WriteString("invalid content: ")
	for i, f := range e.Fields {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Property)
		b.WriteString(": ")
		b.WriteString(f.Reason)
	}
	return b.String()
}

// Shown is Error in the words the form showed the person, without its
// "invalid content: " prefix: each property's Shown reason where it has
// one, else its Reason.
func (e *ContentError) Shown() string {
	var b strings.Builder
	for i, f := range e.Fields {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Property)
		b.WriteString(": ")
		b.WriteString(cmp.Or(f.Shown, f.Reason))
	}
	return b.String()
}

// Reason returns the reason recorded for property, or "" if it was valid.
func (e *ContentError) Reason(property string) string {
	for _, f := range e.Fields {
		if f.Property == property {
			return f.Reason
		}
	}
	return ""
}
