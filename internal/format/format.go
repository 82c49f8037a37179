// Package format holds the string formats of elicitation schemas (email,
// uri, date, date-time), each exactly one production of the RFC that JSON
// Schema names for it. It is a leaf: the runtime's decoders and the
// generator's default= checks share it, and it imports only the standard
// library.
package format

import (
	"strings"
	"time"
)

// The format checks below are each exactly one production of the RFC that
// JSON Schema names for the format. docs/reference/formats.md lists them, with the
// choices the RFCs leave open and the examples that tell them apart from
// other validators; runtime/elicittest/formcheck holds an independent implementation
// of each, as regular expressions transcribed from the ABNF, and the tests
// hold the two to agree.

// Limits of an RFC 5321 Mailbox.
const (
	maxMailbox   = 254 // a path is 256 octets with its angle brackets (§4.5.3.1.3, erratum 1690)
	maxLocalPart = 64  // §4.5.3.1.1
	maxLabel     = 63  // a DNS label (RFC 1035 §2.3.4, to which RFC 5321 §2.3.5 defers)
)

// IsEmail reports whether s is an RFC 5321 Mailbox, what JSON Schema's
// "email" format names: Local-part "@" ( Domain / address-literal ), such
// as "ada@example.com", `"ada lovelace"@example.com`, "ada@[192.0.2.1]" or
// "ada@[IPv6:2001:db8::1]". The local part is a Dot-string of atext or a
// Quoted-string; the domain is dot-separated labels of letters, digits and
// inner hyphens, or an IPv4 or IPv6 address literal in brackets. Only ASCII
// is accepted (addresses with other characters are "idn-email"), and no
// display name, angle brackets, comments or white space outside quotes.
// The Mailbox is at most 254 octets, its local part at most 64 and each
// label at most 63. A General-address-literal ("[tag:content]") is
// refused: no tag but IPv6 is registered, and IPv6 has its own form.
func IsEmail(s string) bool {
	if len(s) > maxMailbox {
		return false
	}
	var at int // the end of the local part
	if s != "" && s[0] == '"' {
		at = quotedStringEnd(s)
	} else {
		at = dotStringEnd(s)
	}
	if at <= 0 || at > maxLocalPart || at == len(s) || s[at] != '@' {
		return false
	}
	domain := s[at+1:]
	if domain != "" && domain[0] == '[' {
		return isAddressLiteral(domain)
	}
	return isDomain(domain)
}

// dotStringEnd returns the length of the Dot-string (Atom *("." Atom))
// that begins s and is followed by a byte that is neither atext nor a dot,
// or -1 if there is none.
func dotStringEnd(s string) int {
	dot := -1 // the index of the last dot
	for i := 0; i < len(s); i++ {
		c := s[i]
		if mailClass[c]&mailAtext != 0 {
			continue
		}
		if i == dot+1 { // an empty atom: s begins with c, or a dot came just before
			return -1
		}
		if c != '.' {
			return i
		}
		dot = i
	}
	return -1
}

// quotedStringEnd returns the length of the Quoted-string (DQUOTE
// *QcontentSMTP DQUOTE) that begins s, or -1 if there is none.
func quotedStringEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c == '\\': // quoted-pairSMTP: a backslash and any printable ASCII
			i++
			if i == len(s) || s[i] < ' ' || s[i] > '~' {
				return -1
			}
		case c < ' ' || c > '~': // qtextSMTP is the rest of printable ASCII, space included
			return -1
		}
	}
	return -1
}

// isDomain reports whether d is an RFC 5321 Domain: sub-domain *("."
// sub-domain), each a letter or digit, then letters, digits and hyphens,
// not ending with a hyphen, at most 63 of them.
func isDomain(d string) bool {
	start := 0 // the start of the label
	for i := 0; i < len(d); i++ {
		if c := d[i]; mailClass[c]&mailLDH == 0 {
			if c != '.' || !isLabel(d[start:i]) {
				return false
			}
			start = i + 1
		}
	}
	return isLabel(d[start:])
}

// isLabel reports whether l, of letters, digits and hyphens, is a
// sub-domain.
func isLabel(l string) bool {
	return l != "" && len(l) <= maxLabel && l[0] != '-' && l[len(l)-1] != '-'
}

// isAddressLiteral reports whether d is an RFC 5321 address-literal of an
// IPv4 or IPv6 address: "[" IPv4-address-literal "]" or "[IPv6:" IPv6-addr
// "]", the tag in any case.
func isAddressLiteral(d string) bool {
	if len(d) < 2 || d[len(d)-1] != ']' {
		return false
	}
	lit := d[1 : len(d)-1]
	if len(lit) >= 5 && strings.EqualFold(lit[:5], "IPv6:") {
		return isIPv6(lit[5:], 6, true)
	}
	return isIPv4(lit, true)
}

// isIPv4 reports whether s is four dot-separated decimal numbers of one to
// three digits, each at most 255. With snum, leading zeros are allowed
// (RFC 5321 Snum); without, they are not (RFC 3986 dec-octet).
func isIPv4(s string, snum bool) bool {
	for part := range 4 {
		n, v := 0, 0
		for n < len(s) && n < 3 && isDigit(s[n]) {
			v = v*10 + int(s[n]-'0')
			n++
		}
		if n == 0 || v > 255 || !snum && n > 1 && s[0] == '0' {
			return false
		}
		s = s[n:]
		if part < 3 {
			if s == "" || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
	}
	return s == ""
}

// isIPv6 reports whether s is an IPv6 address in text: groups of one to
// four hex digits separated by colons, the last two of which may be an
// IPv4 address, with at most one "::" standing for groups of zeros. Without
// "::" there are 8 groups. With it there are at most maxWithGap: 7 in RFC
// 3986 IPv6address, where "::" stands for at least one group, 6 in RFC 5321
// IPv6-addr, where it stands for at least two. snum is as for isIPv4.
func isIPv6(s string, maxWithGap int, snum bool) bool {
	groups, gap, i := 0, false, 0
	if len(s) >= 2 && s[0] == ':' && s[1] == ':' {
		gap, i = true, 2
	}
	for i < len(s) {
		j := i
		for j < len(s) && j-i <= 4 && isHexDigit(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '.' { // the IPv4 address that ends s
			if !isIPv4(s[i:], snum) {
				return false
			}
			groups += 2
			break
		}
		if j == i || j-i > 4 {
			return false
		}
		groups++
		if j == len(s) {
			break
		}
		if s[j] != ':' || j+1 == len(s) { // a group ends with a colon, and one follows
			return false
		}
		i = j + 1
		if s[i] == ':' {
			if gap {
				return false
			}
			gap = true
			i++
		}
	}
	if gap {
		return groups <= maxWithGap
	}
	return groups == 8
}

// The classes of IsEmail's characters, as bits of mailClass.
const (
	mailAtext uint8 = 1 << iota // RFC 5321 atext: ALPHA, DIGIT and !#$%&'*+-/=?^_`{|}~
	mailLDH                     // what a label is made of: ALPHA, DIGIT, "-"
)

var mailClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		if isAlpha(b) || isDigit(b) || b == '-' {
			t[c] |= mailLDH
		}
		if isAlpha(b) || isDigit(b) || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", b) >= 0 {
			t[c] |= mailAtext
		}
	}
	return t
}()

// IsAbsoluteURI reports whether s is an RFC 3986 URI, what JSON Schema's
// "uri" format names: scheme ":" hier-part [ "?" query ] [ "#" fragment ],
// such as "https://example.com/a?b#c", "mailto:ada@example.com" or
// "urn:isbn:0451450523". Only ASCII is accepted (IRIs are "iri"): other
// characters must be percent-encoded, and every "%" must begin a "%"
// HEXDIG HEXDIG escape. A relative reference, which has no scheme, is
// refused. As in the RFC, what follows the scheme may be empty ("about:"),
// so may the host ("file:///etc/hosts"), and a port is any run of digits;
// a host in brackets is an IPv6 address or an IPvFuture, without the zone
// of RFC 6874.
func IsAbsoluteURI(s string) bool {
	i := schemeEnd(s)
	if i < 0 {
		return false
	}
	if len(s)-i >= 2 && s[i] == '/' && s[i+1] == '/' {
		if i = authorityEnd(s, i+2); i < 0 {
			return false
		}
	}
	return isURITail(s[i:])
}

// schemeEnd returns the index after the scheme ":" that begins s, or -1.
func schemeEnd(s string) int {
	if s == "" || uriClass[s[0]]&uriAlpha == 0 {
		return -1
	}
	i := 1
	for i < len(s) && uriClass[s[i]]&uriScheme != 0 {
		i++
	}
	if i == len(s) || s[i] != ':' {
		return -1
	}
	return i + 1
}

// authorityEnd returns the end of the authority that starts at s[i], or -1
// when it is not one. The common authority, a reg-name without "%", is
// read in one pass.
func authorityEnd(s string, i int) int {
	j := i
	for j < len(s) && uriClass[s[j]]&uriRegName != 0 {
		j++
	}
	if j == len(s) || s[j] == '/' || s[j] == '?' || s[j] == '#' {
		return j
	}
	for j < len(s) && s[j] != '/' && s[j] != '?' && s[j] != '#' {
		j++
	}
	if !isAuthority(s[i:j]) {
		return -1
	}
	return j
}

// isURITail reports whether s is a path, query and fragment (it cannot
// begin with "//" here: path-abempty after an authority, else
// path-absolute, path-rootless or path-empty): pchar, "/" and "?", and one
// "#" before the fragment.
func isURITail(s string) bool {
	fragment := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if uriClass[c]&uriTail != 0 {
			continue
		}
		switch {
		case c == '%' && isPercentEncoded(s, i):
			i += 2
		case c == '#' && !fragment:
			fragment = true
		default:
			return false
		}
	}
	return true
}

// isAuthority reports whether a is an RFC 3986 authority: [ userinfo "@" ]
// host [ ":" port ].
func isAuthority(a string) bool {
	if at := strings.IndexByte(a, '@'); at >= 0 { // userinfo has none
		if !isURIRun(a[:at], uriUserinfo) {
			return false
		}
		a = a[at+1:]
	}
	var port string
	if a != "" && a[0] == '[' {
		end := strings.IndexByte(a, ']')
		if end < 0 || !isIPLiteral(a[1:end]) {
			return false
		}
		if rest := a[end+1:]; rest != "" {
			if rest[0] != ':' {
				return false
			}
			port = rest[1:]
		}
	} else {
		host := a
		if colon := strings.IndexByte(a, ':'); colon >= 0 { // reg-name has none
			host, port = a[:colon], a[colon+1:]
		}
		if !isURIRun(host, uriRegName) { // an IPv4address is a reg-name too
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return false
		}
	}
	return true
}

// isIPLiteral reports whether lit, between the brackets of an IP-literal,
// is an IPv6address or an IPvFuture ("v" 1*HEXDIG "." 1*( unreserved /
// sub-delims / ":" )).
func isIPLiteral(lit string) bool {
	if lit == "" || lit[0]|0x20 != 'v' {
		return isIPv6(lit, 7, false)
	}
	i := 1
	for i < len(lit) && isHexDigit(lit[i]) {
		i++
	}
	if i == 1 || i+1 >= len(lit) || lit[i] != '.' {
		return false
	}
	for _, c := range []byte(lit[i+1:]) {
		if uriClass[c]&uriUserinfo == 0 {
			return false
		}
	}
	return true
}

// isURIRun reports whether every byte of s is of class or begins a valid
// percent-encoding.
func isURIRun(s string, class uint8) bool {
	for i := 0; i < len(s); i++ {
		if uriClass[s[i]]&class != 0 {
			continue
		}
		if s[i] != '%' || !isPercentEncoded(s, i) {
			return false
		}
		i += 2
	}
	return true
}

// isPercentEncoded reports whether s[i], a "%", begins pct-encoded.
func isPercentEncoded(s string, i int) bool {
	return i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2])
}

// The classes of IsAbsoluteURI's characters, as bits of uriClass.
const (
	uriAlpha    uint8 = 1 << iota // the first character of a scheme: ALPHA
	uriScheme                     // the rest of a scheme: ALPHA, DIGIT, "+", "-", "."
	uriRegName                    // reg-name, but for pct-encoded: unreserved and sub-delims
	uriUserinfo                   // userinfo, but for pct-encoded: unreserved, sub-delims and ":"
	uriTail                       // path, query and fragment, but for pct-encoded: pchar, "/" and "?"
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
		if alnum || strings.IndexByte("-._~!$&'()*+,;=", b) >= 0 {
			t[c] |= uriRegName | uriUserinfo | uriTail
		}
		if b == ':' {
			t[c] |= uriUserinfo | uriTail
		}
		if strings.IndexByte("@/?", b) >= 0 {
			t[c] |= uriTail
		}
	}
	return t
}()

func isAlpha(c byte) bool    { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

// ParseDate parses an RFC 3339 full-date, what JSON Schema's "date" format
// names: "2006-01-02", four-digit year, two-digit month and day, ASCII
// digits only; days are checked against the calendar (2026-02-30 is
// rejected, 2024-02-29 accepted). It accepts exactly what
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

// ParseDateTime parses an RFC 3339 date-time, what JSON Schema's
// "date-time" format names: full-date "T" partial-time time-offset, such as
// "2026-07-28T09:30:00Z" or "2026-07-28T09:30:00.25+02:00". As in the
// RFC's ABNF, whose literals are case-insensitive, "t" and "z" are
// accepted; the separator is a "T" or "t" only (not the space the RFC's
// note allows an application to choose). The fraction has any number of
// digits (time.Time keeps nine). The offset's hours run to 23 and its
// minutes to 59; "Z", "+00:00" and "-00:00" give a time in time.UTC, other
// offsets a time.FixedZone with no name. A second 60 is a leap second:
// accepted when it is 23:59:60 in UTC on the last day of a month (RFC 3339
// §5.7; the date is not checked against the table of leap seconds so far),
// and read as the second after 23:59:59, as time.Date normalises it
// (time.Time has no leap seconds).
func ParseDateTime(s string) (time.Time, bool) {
	if len(s) < 20 || s[10]|0x20 != 't' {
		return time.Time{}, false
	}
	y, m, d, ok := splitDate(s[:10])
	secs, ok1 := partialTime(s[11:19])
	ns, rest, ok2 := fraction(s[19:])
	offset, ok3 := timeOffset(rest)
	if !ok || !ok1 || !ok2 || !ok3 {
		return time.Time{}, false
	}
	unix := unixDays(y, m, d)*secondsPerDay + int64(secs-offset)
	if s[17:19] == "60" && !endsMonth(unix) { // a leap second
		return time.Time{}, false
	}
	t := time.Unix(unix, int64(ns))
	if offset == 0 {
		return t.UTC(), true
	}
	return t.In(time.FixedZone("", offset)), true
}

// partialTime reads time-hour ":" time-minute ":" time-second (8 bytes),
// as seconds since midnight; a second 60 counts as the next minute's 0.
func partialTime(s string) (secs int, ok bool) {
	if s[2] != ':' || s[5] != ':' {
		return 0, false
	}
	h, ok1 := twoDigits(s, 0)
	mi, ok2 := twoDigits(s, 3)
	sec, ok3 := twoDigits(s, 6)
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || sec > 60 {
		return 0, false
	}
	return h*3600 + mi*60 + sec, true
}

// fraction reads an optional time-secfrac ("." 1*DIGIT) at the start of s,
// as nanoseconds (digits past the ninth are read and dropped), and returns
// what follows it.
func fraction(s string) (ns int, rest string, ok bool) {
	if s == "" || s[0] != '.' {
		return 0, s, true
	}
	i := 1
	for i < len(s) && isDigit(s[i]) {
		if i <= 9 {
			ns = ns*10 + int(s[i]-'0')
		}
		i++
	}
	if i == 1 {
		return 0, s, false
	}
	for n := i - 1; n < 9; n++ {
		ns *= 10
	}
	return ns, s[i:], true
}

// timeOffset reads a time-offset, all of s: "Z" or ("+" / "-")
// time-hour ":" time-minute, as seconds east of UTC.
func timeOffset(s string) (int, bool) {
	if len(s) == 1 && s[0]|0x20 == 'z' {
		return 0, true
	}
	if len(s) != 6 || s[0] != '+' && s[0] != '-' || s[3] != ':' {
		return 0, false
	}
	oh, ok1 := twoDigits(s, 1)
	om, ok2 := twoDigits(s, 4)
	if !ok1 || !ok2 || oh > 23 || om > 59 {
		return 0, false
	}
	if s[0] == '-' {
		return -(oh*60 + om) * 60, true
	}
	return (oh*60 + om) * 60, true
}

// endsMonth reports whether the second before unix is the last of a UTC
// month: a leap second's place.
func endsMonth(unix int64) bool {
	return unix%secondsPerDay == 0 && time.Unix(unix, 0).UTC().Day() == 1
}
