package runtime

import (
	"encoding/json"
	"math"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
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

// IsEmail reports whether s is a single addr-spec such as "ada@example.com"
// (no display name, no angle brackets).
func IsEmail(s string) bool {
	if len(s) > 254 {
		return false
	}
	if plainEmail(s) {
		return true
	}
	return isEmailSlow(s)
}

// isEmailSlow is the definition of IsEmail for strings of at most 254
// bytes: what net/mail parses as exactly s, with no display name, with no
// spaces or angle brackets.
func isEmailSlow(s string) bool {
	if strings.ContainsAny(s, " <>\t\r\n") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && at < len(s)-1
}

// plainEmail reports whether s is dot-atom "@" dot-atom in ASCII, the
// common shape of an address, in one pass and without allocating. Every
// such s is an address isEmailSlow accepts; false means "not decided
// here".
func plainEmail(s string) bool {
	at := -1
	prev := byte('.') // as if a dot came first: no leading dot, no empty local part
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case asciiAtext[c]:
		case c == '.':
			if prev == '.' || prev == '@' { // no ".." and no dot after "@"
				return false
			}
		case c == '@':
			if at >= 0 || prev == '.' { // one "@", no dot before it
				return false
			}
			at = i
		default:
			return false
		}
		prev = c
	}
	return at > 0 && prev != '.' && prev != '@' // a domain, without a trailing dot
}

// asciiAtext is RFC 5322 atext within ASCII: the visible characters except
// the specials ()<>[]:;@\,". and the dot.
var asciiAtext = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = !strings.ContainsRune(`()<>[]:;@\,".`, c)
	}
	return t
}()

// IsAbsoluteURI reports whether s is an absolute URI: a scheme and a
// non-empty remainder, with no spaces.
func IsAbsoluteURI(s string) bool {
	if plainAbsoluteURI(s) {
		return true
	}
	return isAbsoluteURISlow(s)
}

// isAbsoluteURISlow is the definition of IsAbsoluteURI: s has no spaces and
// net/url parses it with a scheme and a non-empty opaque part, host or path.
func isAbsoluteURISlow(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || !u.IsAbs() {
		return false
	}
	return u.Opaque != "" || u.Host != "" || u.Path != ""
}

// plainAbsoluteURI reports, in one pass and without allocating, whether s
// has the common shape scheme ":" opaque or scheme "://" host [":" port]
// [path], with an optional query, no fragment, no percent-escapes and no
// user info, in plain ASCII. Every such s is a URI isAbsoluteURISlow
// accepts; false means "not decided here".
func plainAbsoluteURI(s string) bool {
	if s == "" || uriClass[s[0]]&uriAlpha == 0 {
		return false
	}
	i := 1
	for i < len(s) && uriClass[s[i]]&uriScheme != 0 {
		i++
	}
	if i == len(s) || s[i] != ':' {
		return false
	}
	rest := s[i+1:]
	if len(rest) >= 2 && rest[0] == '/' && rest[1] == '/' {
		j := 2
		for j < len(rest) && uriClass[rest[j]]&uriHost != 0 {
			j++
		}
		if j == 2 { // no host
			return false
		}
		if j < len(rest) && rest[j] == ':' {
			j++
			for j < len(rest) && isDigit(rest[j]) {
				j++
			}
		}
		if j < len(rest) && rest[j] != '/' && rest[j] != '?' {
			return false
		}
		rest = rest[j:]
	} else if rest == "" || rest[0] == '/' || rest[0] == '?' {
		return false // an empty opaque part, or a path without a host
	}
	for j := 0; j < len(rest); j++ {
		if uriClass[rest[j]]&uriPlain == 0 {
			return false
		}
	}
	return true
}

// The classes of plainAbsoluteURI's characters, as bits of uriClass.
const (
	uriAlpha  uint8 = 1 << iota // the first character of a scheme: ALPHA
	uriScheme                   // the rest of a scheme: ALPHA, DIGIT, "+", "-", "."
	uriHost                     // a host name: ALPHA, DIGIT, "-", "."
	uriPlain                    // after the authority or the scheme: RFC 3986 unreserved and sub-delims, ":", "@", "/" and "?" (no "%", "#")
)

var uriClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		alnum := isAlpha(b) || isDigit(b)
		if isAlpha(b) {
			t[c] |= uriAlpha
		}
		if alnum || strings.IndexByte("+-.", b) >= 0 {
			t[c] |= uriScheme
		}
		if alnum || b == '-' || b == '.' {
			t[c] |= uriHost
		}
		if alnum || strings.IndexByte("-._~!$&'()*+,;=:@/?", b) >= 0 {
			t[c] |= uriPlain
		}
	}
	return t
}()

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// ParseDate parses a full-date (RFC 3339, "2006-01-02"); days are checked
// against the calendar (2026-02-30 is rejected). It accepts exactly what
// time.Parse(time.DateOnly, s) accepts, with the same result.
func ParseDate(s string) (time.Time, bool) {
	y, m, d, ok := splitDate(s)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(unixDays(y, m, d)*secondsPerDay, 0).UTC(), true
}

const secondsPerDay = 24 * 60 * 60

// unixDays returns the number of days from 1970-01-01 to the proleptic
// Gregorian date y-m-d (negative before 1970), for a checked date of
// years 0 to 9999. It counts in eras of 400 years (146,097 days) that
// begin on March 1st, so that the leap day ends a year, and from the year
// -400 on, so that every quotient is of unsigned numbers: what time.Date
// computes, without its normalisation and zone lookup.
func unixDays(y, m, d int) int64 {
	year := uint(y + 400)
	var month uint // from March
	if m > 2 {
		month = uint(m - 3)
	} else {
		month = uint(m + 9)
		year-- // January and February end the year begun in March
	}
	era := year / 400
	yearOfEra := year - era*400
	dayOfYear := (153*month+2)/5 + uint(d) - 1
	dayOfEra := yearOfEra*365 + yearOfEra/4 - yearOfEra/100 + dayOfYear
	const eraToUnixEpoch = 146097 + 719468 // days from -0400-03-01 to 1970-01-01
	return int64(era*146097+dayOfEra) - eraToUnixEpoch
}

// IsDate reports whether s is a full-date that ParseDate accepts, without
// making the time.Time.
func IsDate(s string) bool {
	_, _, _, ok := splitDate(s)
	return ok
}

// splitDate reads and checks the year, month and day of a full-date.
func splitDate(s string) (y, m, d int, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	century, ok1 := twoDigits(s, 0)
	year, ok2 := twoDigits(s, 2)
	m, ok3 := twoDigits(s, 5)
	d, ok4 := twoDigits(s, 8)
	y = century*100 + year
	if !ok1 || !ok2 || !ok3 || !ok4 || m < 1 || m > 12 || d < 1 || d > daysIn(time.Month(m), y) {
		return 0, 0, 0, false
	}
	return y, m, d, true
}

// twoDigits reads s[i] and s[i+1] as a two-digit decimal number; ok is
// false unless both are ASCII digits (a byte below '0' wraps above 9).
func twoDigits(s string, i int) (n int, ok bool) {
	hi, lo := s[i]-'0', s[i+1]-'0'
	return int(hi)*10 + int(lo), hi <= 9 && lo <= 9
}

// digits reads s, ASCII digits only, as a decimal number.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// daysIn returns the number of days of month m of year y (proleptic
// Gregorian).
func daysIn(m time.Month, y int) int {
	switch m {
	case time.February:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// ParseDateTime parses an RFC 3339 date-time, which must carry a zone ("Z"
// or an offset).
func ParseDateTime(s string) (time.Time, bool) {
	if t, ok := parseUTCDateTime(s); ok { // what it accepts has a valid tail
		return t, true
	}
	if len(s) < 20 || !rfc3339Tail(s[19:]) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// parseUTCDateTime parses, without time.Parse, the common shape
// "2006-01-02T15:04:05Z" with up to 9 fractional digits, as time.Parse
// would; false means "not decided here".
func parseUTCDateTime(s string) (time.Time, bool) {
	if len(s) < 20 || s[len(s)-1] != 'Z' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	y, m, d, ok := splitDate(s[:10])
	h, ok1 := twoDigits(s, 11)
	mi, ok2 := twoDigits(s, 14)
	sec, ok3 := twoDigits(s, 17)
	if !ok || !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	ns := 0
	if frac := s[19 : len(s)-1]; frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		n, ok := digits(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			n *= 10
		}
		ns = n
	}
	unix := unixDays(y, m, d)*secondsPerDay + int64(h*3600+mi*60+sec)
	return time.Unix(unix, int64(ns)).UTC(), true
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
