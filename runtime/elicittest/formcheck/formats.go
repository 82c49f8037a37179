package formcheck

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The formats, written independently of the runtime's hand-written
// scanners: each is a regular expression transcribed from the RFC's ABNF,
// rule by rule (the names below are the RFC's), plus what a grammar cannot
// say, checked with the time package: the days of a month, and where a
// leap second may stand. docs/reference/formats.md says which production each format
// is and every choice made where the RFCs leave one.

// Rules shared by the grammars (RFC 5234 core rules, ASCII only).
const (
	alpha  = `[A-Za-z]`
	digit  = `[0-9]`
	hexdig = `[0-9A-Fa-f]`
)

// RFC 5321 §4.1.2 and §4.1.3: Mailbox.
var mailbox = func() *regexp.Regexp {
	atext := "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
	atom := atext + `+`
	dotString := atom + `(?:\.` + atom + `)*`
	qtextSMTP := `[ !#-\[\]-~]` // %d32-33 / %d35-91 / %d93-126
	quotedPairSMTP := `\\[ -~]` // %d92 %d32-126
	quotedString := `"(?:` + qtextSMTP + `|` + quotedPairSMTP + `)*"`
	localPart := `(?:` + dotString + `|` + quotedString + `)`
	letDig := `[A-Za-z0-9]`
	// sub-domain = Let-dig [Ldh-str], at most 63 octets (a DNS label).
	subDomain := letDig + `(?:[A-Za-z0-9-]{0,61}` + letDig + `)?`
	domain := subDomain + `(?:\.` + subDomain + `)*`
	snum := `(?:25[0-5]|2[0-4][0-9]|[01]?[0-9]?[0-9])` // 1*3DIGIT, 0 to 255
	ipv4 := snum + `(?:\.` + snum + `){3}`
	ipv6hex := hexdig + `{1,4}`
	// groups(n) is n IPv6-hex separated by colons.
	groups := func(n int) string {
		if n == 0 {
			return ""
		}
		return ipv6hex + strings.Repeat(`:`+ipv6hex, n-1)
	}
	var ipv6 []string
	ipv6 = append(ipv6, groups(8))          // IPv6-full
	ipv6 = append(ipv6, groups(6)+`:`+ipv4) // IPv6v4-full
	// IPv6-comp: no more than 6 groups in addition to the "::".
	for before := 0; before <= 6; before++ {
		for after := 0; before+after <= 6; after++ {
			ipv6 = append(ipv6, groups(before)+`::`+groups(after))
		}
	}
	// IPv6v4-comp: no more than 4 groups in addition to the "::" and the
	// IPv4 address.
	for before := 0; before <= 4; before++ {
		for after := 0; before+after <= 4; after++ {
			tail := ipv4
			if after > 0 {
				tail = groups(after) + `:` + ipv4
			}
			ipv6 = append(ipv6, groups(before)+`::`+tail)
		}
	}
	// General-address-literal is left out: see docs/reference/formats.md.
	addressLiteral := `\[(?:` + ipv4 + `|(?i:IPv6:)(?:` + strings.Join(ipv6, `|`) + `))\]`
	return regexp.MustCompile(`^(` + localPart + `)@(?:` + domain + `|` + addressLiteral + `)$`)
}()

// Email reports whether s is an RFC 5321 Mailbox of at most 254 octets
// whose local part has at most 64.
func Email(s string) bool {
	m := mailbox.FindStringSubmatch(s)
	return m != nil && len(s) <= 254 && len(m[1]) <= 64
}

// RFC 3986 §3 and Appendix A: URI.
var uri = func() *regexp.Regexp {
	unreserved := `[A-Za-z0-9._~-]`
	subDelims := `[!$&'()*+,;=]`
	pctEncoded := `%` + hexdig + hexdig
	pchar := `(?:` + unreserved + `|` + pctEncoded + `|` + subDelims + `|[:@])`
	scheme := alpha + `[A-Za-z0-9+.-]*`
	userinfo := `(?:` + unreserved + `|` + pctEncoded + `|` + subDelims + `|:)*`
	decOctet := `(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])`
	ipv4address := decOctet + `\.` + decOctet + `\.` + decOctet + `\.` + decOctet
	h16 := hexdig + `{1,4}`
	ls32 := `(?:` + h16 + `:` + h16 + `|` + ipv4address + `)`
	rep := func(s string, n int) string { return strings.Repeat(s, n) }
	upTo := func(n int) string { return fmt.Sprintf(`(?:(?:%s:){0,%d}%s)?`, h16, n, h16) }
	ipv6address := `(?:` + strings.Join([]string{
		rep(h16+`:`, 6) + ls32,
		`::` + rep(h16+`:`, 5) + ls32,
		`(?:` + h16 + `)?::` + rep(h16+`:`, 4) + ls32,
		upTo(1) + `::` + rep(h16+`:`, 3) + ls32,
		upTo(2) + `::` + rep(h16+`:`, 2) + ls32,
		upTo(3) + `::` + h16 + `:` + ls32,
		upTo(4) + `::` + ls32,
		upTo(5) + `::` + h16,
		upTo(6) + `::`,
	}, `|`) + `)`
	ipvFuture := `[vV]` + hexdig + `+\.(?:` + unreserved + `|` + subDelims + `|:)+`
	ipLiteral := `\[(?:` + ipv6address + `|` + ipvFuture + `)\]`
	regName := `(?:` + unreserved + `|` + pctEncoded + `|` + subDelims + `)*`
	host := `(?:` + ipLiteral + `|` + ipv4address + `|` + regName + `)`
	port := digit + `*`
	authority := `(?:` + userinfo + `@)?` + host + `(?::` + port + `)?`
	segment := pchar + `*`
	segmentNZ := pchar + `+`
	pathAbempty := `(?:/` + segment + `)*`
	pathAbsolute := `/(?:` + segmentNZ + `(?:/` + segment + `)*)?`
	pathRootless := segmentNZ + `(?:/` + segment + `)*`
	pathEmpty := ``
	hierPart := `(?://` + authority + pathAbempty + `|` + pathAbsolute + `|` + pathRootless + `|` + pathEmpty + `)`
	query := `(?:` + pchar + `|[/?])*`
	fragment := query
	return regexp.MustCompile(`^` + scheme + `:` + hierPart + `(?:\?` + query + `)?(?:#` + fragment + `)?$`)
}()

// URI reports whether s is an RFC 3986 URI.
func URI(s string) bool { return uri.MatchString(s) }

// RFC 3339 §5.6: full-date and date-time.
var (
	fullDate = `([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])`
	date     = regexp.MustCompile(`^` + fullDate + `$`)
	dateTime = regexp.MustCompile(`^` + fullDate +
		`[Tt]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(?:\.([0-9]+))?` + // partial-time
		`(?:([Zz])|([+-])([01][0-9]|2[0-3]):([0-5][0-9]))$`) // time-offset
)

// Date parses an RFC 3339 full-date as midnight UTC.
func Date(s string) (time.Time, bool) {
	m := date.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	return calendarDate(atoi(m[1]), atoi(m[2]), atoi(m[3]))
}

// calendarDate is y-m-d at midnight UTC if that day exists.
func calendarDate(y, m, d int) (time.Time, bool) {
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // time.Date moves February 30th into March
		return time.Time{}, false
	}
	return t, true
}

// DateTime parses an RFC 3339 date-time. A second 60 must fall at the end
// of a month in UTC (RFC 3339 §5.7); it is read, as time.Date reads it, as
// the first second of the next minute. Offset zero gives a time in UTC.
func DateTime(s string) (time.Time, bool) {
	m := dateTime.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	if _, ok := calendarDate(atoi(m[1]), atoi(m[2]), atoi(m[3])); !ok {
		return time.Time{}, false
	}
	nsec := 0
	if frac := m[7]; frac != "" {
		frac = (frac + "00000000")[:9]
		nsec = atoi(frac)
	}
	offset := 0
	if m[8] == "" {
		offset = (atoi(m[10])*60 + atoi(m[11])) * 60
		if m[9] == "-" {
			offset = -offset
		}
	}
	loc := time.UTC
	if offset != 0 {
		loc = time.FixedZone("", offset)
	}
	sec := atoi(m[6])
	t := time.Date(atoi(m[1]), time.Month(atoi(m[2])), atoi(m[3]), atoi(m[4]), atoi(m[5]), sec, nsec, loc)
	if sec == 60 {
		// The second before, in UTC, must be the month's last.
		before := t.Add(-time.Second).UTC()
		after := before.Add(time.Second)
		if before.Hour() != 23 || before.Minute() != 59 || before.Second() != 59 || after.Day() != 1 {
			return time.Time{}, false
		}
	}
	return t, true
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err) // the grammar let through something not a number
	}
	return n
}
