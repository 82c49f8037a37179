package machine

import (
	"encoding/json"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/elicitgen/elicitgen/internal/format"
)

// FieldError is one property of accepted elicitation content that did not
// satisfy the form's schema.
type FieldError struct {
	// Property is the schema property name (not the Go field name).
	Property string
	// Reason says what is wrong, in words fit to show the user, such as
	// "must be one of dev, staging, prod".
	Reason string
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

// Reason returns the reason recorded for property, or "" if it was valid.
func (e *ContentError) Reason(property string) string {
	for _, f := range e.Fields {
		if f.Property == property {
			return f.Reason
		}
	}
	return ""
}

// MaxSafeInteger is the largest integer a JSON number carries exactly
// (2^53-1). Integer properties are limited to ±MaxSafeInteger.
const MaxSafeInteger = 1<<53 - 1

// Reasons used by generated decoders.
const (
	ReasonRequired    = "is required"
	ReasonString      = "must be a string"
	ReasonBoolean     = "must be a boolean"
	ReasonNumber      = "must be a number"
	ReasonInteger     = "must be an integer"
	ReasonWhole       = "must be a whole number"
	ReasonUnsafe      = "is too large to be carried exactly by a JSON number"
	ReasonArray       = "must be an array of strings"
	ReasonDuplicate   = "must not repeat an item"
	ReasonEmail       = "must be an email address"
	ReasonURI         = "must be an absolute URI"
	ReasonDate        = "must be a calendar date (YYYY-MM-DD)"
	ReasonDateTime    = "must be an RFC 3339 date-time with a time zone"
	ReasonFloat32     = "is out of range for a 32-bit float"
	ReasonFormatLabel = "has an unsupported format"
)

// Integer reads an integer property value. JSON numbers arrive as float64;
// the value must be integral and within ±MaxSafeInteger. json.Number and Go
// integer types are accepted too, for content built in Go.
func Integer(v any) (int64, string) {
	// The common case first. (Too large to be inlined: a call's inline cost
	// leaves too little of the budget for the check.)
	if f, ok := v.(float64); ok && f >= -MaxSafeInteger && f <= MaxSafeInteger && f == float64(int64(f)) {
		return int64(f), ""
	}
	return integer(v)
}

func integer(v any) (int64, string) {
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, ReasonInteger
		}
		if n != math.Trunc(n) {
			return 0, ReasonWhole
		}
		if n > MaxSafeInteger || n < -MaxSafeInteger {
			return 0, ReasonUnsafe
		}
		return int64(n), ""
	case json.Number:
		if i, err := n.Int64(); err == nil {
			if i > MaxSafeInteger || i < -MaxSafeInteger {
				return 0, ReasonUnsafe
			}
			return i, ""
		}
		f, err := n.Float64()
		if err != nil {
			return 0, ReasonInteger
		}
		return integer(f)
	case int:
		return integer(float64(n))
	case int64:
		if n > MaxSafeInteger || n < -MaxSafeInteger {
			return 0, ReasonUnsafe
		}
		return n, ""
	case int32:
		return int64(n), ""
	}
	return 0, ReasonInteger
}

// Number reads a number property value (float64, json.Number or a Go int).
func Number(v any) (f float64, reason string) {
	// The common case, written to be inlined into generated decoders
	// (TestHotPathsInline): f-f is 0 unless f is NaN or infinite.
	f, ok := v.(float64)
	if !ok || f-f != 0 {
		f, reason = number(v)
	}
	return
}

func number(v any) (float64, string) {
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return 0, ReasonNumber
		}
		return n, ""
	case json.Number:
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, ReasonNumber
		}
		return f, ""
	case int:
		return float64(n), ""
	case int64:
		return float64(n), ""
	}
	return 0, ReasonNumber
}

// List reads a multi-select value: []any from JSON, or []string from Go.
func List(v any) ([]any, bool) {
	switch l := v.(type) {
	case []any:
		return l, true
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

// CharCountWithin reports whether s has from lo to hi characters: Unicode
// code points, what minLength and maxLength count (an invalid UTF-8 byte
// counts as one, as in utf8.RuneCountInString). It counts them only when
// the length in bytes leaves a doubt: s has at most len(s) characters, and
// at least len(s)/4, rounded up.
func CharCountWithin(s string, lo, hi int) bool {
	if n := len(s); n <= hi && (n+3)/4 >= lo {
		return true
	}
	n := utf8.RuneCountInString(s)
	return lo <= n && n <= hi
}

// The format checks: the rules live in internal/format, which the
// generator shares (it checks default= values with them); these forward
// to them for generated decoders.

// IsEmail reports whether s is an RFC 5321 Mailbox, JSON Schema's "email"
// (docs/formats.md).
func IsEmail(s string) bool { return format.IsEmail(s) }

// IsAbsoluteURI reports whether s is an RFC 3986 absolute URI, JSON
// Schema's "uri" (docs/formats.md).
func IsAbsoluteURI(s string) bool { return format.IsAbsoluteURI(s) }

// ParseDate parses an RFC 3339 full-date, JSON Schema's "date", at UTC
// midnight (docs/formats.md).
func ParseDate(s string) (time.Time, bool) { return format.ParseDate(s) }

// IsDate reports whether s is an RFC 3339 full-date.
func IsDate(s string) bool { return format.IsDate(s) }

// ParseDateTime parses an RFC 3339 date-time, JSON Schema's "date-time"
// (docs/formats.md).
func ParseDateTime(s string) (time.Time, bool) { return format.ParseDateTime(s) }
