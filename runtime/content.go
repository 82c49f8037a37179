package runtime

import (
	"encoding/json"
	"math"
	"net/mail"
	"net/url"
	"strings"
	"time"
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
		return Integer(f)
	case int:
		return Integer(float64(n))
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
func Number(v any) (float64, string) {
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

// IsEmail reports whether s is a single addr-spec such as "ada@example.com"
// (no display name, no angle brackets).
func IsEmail(s string) bool {
	if len(s) > 254 || strings.ContainsAny(s, " <>\t\r\n") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && at < len(s)-1
}

// IsAbsoluteURI reports whether s is an absolute URI: a scheme and a
// non-empty remainder, with no spaces.
func IsAbsoluteURI(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || !u.IsAbs() {
		return false
	}
	return u.Opaque != "" || u.Host != "" || u.Path != ""
}

// ParseDate parses a full-date (RFC 3339, "2006-01-02"); days are checked
// against the calendar (2026-02-30 is rejected).
func ParseDate(s string) (time.Time, bool) {
	if len(s) != 10 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

// ParseDateTime parses an RFC 3339 date-time, which must carry a zone ("Z"
// or an offset).
func ParseDateTime(s string) (time.Time, bool) {
	if len(s) < 20 || !rfc3339Tail(s[19:]) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// rfc3339Tail checks what follows the seconds of a date-time: an optional
// "." and digits, then "Z" or an offset ±hh:mm within 23:59. time.Parse
// alone also takes a "," before the fraction and offsets such as +24:00.
func rfc3339Tail(s string) bool {
	digits := func(s string) bool {
		for _, c := range []byte(s) {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	if s[0] == '.' {
		i := 1
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 1 {
			return false
		}
		s = s[i:]
	}
	if s == "Z" {
		return true
	}
	return len(s) == 6 && (s[0] == '+' || s[0] == '-') && s[3] == ':' &&
		digits(s[1:3]) && digits(s[4:6]) && s[1:3] <= "23" && s[4:6] <= "59"
}
