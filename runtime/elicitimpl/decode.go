package elicitimpl

import (
	"encoding/json"
	"math"
	"time"
	"unicode/utf8"

	"github.com/elicitgen/elicitgen/internal/format"
)

// MaxSafeInteger is the largest integer a JSON number carries exactly
// (2^53-1). Integer properties are limited to ±MaxSafeInteger.
const MaxSafeInteger = 1<<53 - 1

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

// IsEmail reports whether s is an RFC 5321 Mailbox, JSON Schema's "email"
// (docs/reference/formats.md).
func IsEmail(s string) bool { return format.IsEmail(s) }

// IsAbsoluteURI reports whether s is an RFC 3986 absolute URI, JSON
// Schema's "uri" (docs/reference/formats.md).
func IsAbsoluteURI(s string) bool { return format.IsAbsoluteURI(s) }

// ParseDate parses an RFC 3339 full-date, JSON Schema's "date", at UTC
// midnight (docs/reference/formats.md).
func ParseDate(s string) (time.Time, bool) { return format.ParseDate(s) }

// IsDate reports whether s is an RFC 3339 full-date.
func IsDate(s string) bool { return format.IsDate(s) }

// ParseDateTime parses an RFC 3339 date-time, JSON Schema's "date-time"
// (docs/reference/formats.md).
func ParseDateTime(s string) (time.Time, bool) { return format.ParseDateTime(s) }

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
