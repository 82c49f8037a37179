package format_test

import (
	"math/rand/v2"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/elicitgen/elicitgen/internal/format"
	"github.com/elicitgen/elicitgen/runtime/elicittest/formcheck"
)

// The format checks are held to an independent implementation: the
// regular expressions of runtime/elicittest/formcheck, transcribed from the RFCs'
// ABNF (the oracle of the decoder fuzz targets too). The corpora below say
// what each format must accept and refuse, with the reason where it is not
// plain; the tests check both implementations against them, then against
// each other on mutations of them and under the fuzzer, and against the
// standard library where it implements the same grammar.

type formatCase struct {
	s    string
	want bool
}

func long(n int, c string) string { return strings.Repeat(c, n) }

var emailCorpus = []formatCase{
	{"ada@example.com", true},
	{"a@b", true}, // a Domain may be one label
	{"a.b.c@d.e", true},
	{"x+tag@sub.example.org", true},
	{"o'hara@example.com", true},
	{"{a}@b", true},
	{"!#$%&'*+-/=?^_`{|}~@example.com", true}, // every atext symbol
	{"A@EXAMPLE.COM", true},
	{"a@1.2.3.4", true}, // digit labels are labels
	{"a@b-c.d", true},
	{"a@b--c.d", true},
	{"a@0", true},
	{`"a"@b`, true}, // Quoted-string local parts
	{`"a b"@c`, true},
	{`""@example.com`, true},
	{`"a@b"@c`, true},
	{`"a\"b"@c`, true},
	{`"a\\b"@c`, true},
	{`"a..b"@c`, true},
	{`"\ "@c`, true},
	{`"a\~"@c`, true},
	{`" !#[]~"@c`, true},
	{"a@[127.0.0.1]", true}, // address literals
	{"a@[255.255.255.255]", true},
	{"a@[001.002.003.004]", true}, // Snum allows leading zeros
	{"a@[0.0.0.0]", true},
	{"a@[IPv6:::1]", true},
	{"a@[ipv6:::1]", true}, // ABNF strings are case-insensitive
	{"a@[IPv6:2001:db8::1]", true},
	{"a@[IPv6:1:2:3:4:5:6:7:8]", true},
	{"a@[IPv6:abcd:EF01:2:3:4:5:6:7]", true},
	{"a@[IPv6:1:2:3:4:5:6:1.2.3.4]", true},
	{"a@[IPv6:::1.2.3.4]", true},
	{"a@[IPv6:1:2:3:4::1.2.3.4]", true},
	{"a@[IPv6:1::2:3:4:5:6]", true},
	{"a@[IPv6:1:2:3:4:5:6::]", true},
	{"a@[IPv6:::]", true},
	{"a@[IPv6:::1.2.3.04]", true},
	{long(64, "a") + "@b", true},
	{"a@" + long(63, "b") + ".c", true},
	{long(64, "a") + "@" + long(63, "b") + "." + long(63, "c") + "." + long(61, "d"), true}, // 254 octets
	{"ü@example.com", false}, // non-ASCII is idn-email
	{"a@bä.c", false},
	{`"ä"@c`, false},
	{"a@-b.c", false}, // a label begins with a letter or digit
	{"a@b-.c", false}, // and ends with one
	{"a@b.c-", false},
	{"a@b_c.d", false}, // "_" is no Let-dig
	{"a..b@c", false},
	{".a@b", false},
	{"a.@b", false},
	{"a@b.", false},
	{"a@.b", false},
	{"a@b..c", false},
	{"@b", false},
	{"a@", false},
	{"a@b@c", false},
	{"a", false},
	{"", false},
	{"@", false},
	{`"a"b@c`, false},
	{`a"b"@c`, false},
	{`"a@c`, false},
	{`"a\"@c`, false},
	{`"a\`, false},
	{"\"a\x00\"@c", false},
	{"\"a\\\x7f\"@c", false},
	{"\"a\t\"@c", false},
	{`"a"."b"@c`, false},
	{"a b@c", false},
	{"a@b c", false},
	{"Ada <ada@example.com>", false},
	{"<ada@example.com>", false},
	{"ada@example.com (Ada)", false},
	{"a(b)@c", false},
	{"a\x00@b", false},
	{"a@b\x7f", false},
	{"a,b@c", false},
	{"a;b@c", false},
	{`a\b@c`, false},
	{"a@b:c", false},
	{"a@[127.0.0.256]", false},
	{"a@[127.0.0]", false},
	{"a@[127.0.0.1.5]", false},
	{"a@[1234.0.0.1]", false},
	{"a@[127.0.0.1", false},
	{"a@127.0.0.1]", false},
	{"a@[]", false},
	{"a@[ 1.2.3.4]", false},
	{"a@[::1]", false},                        // an IPv6 literal has its tag
	{"a@[x:y]", false},                        // General-address-literal: no tag registered
	{"a@[IPv6:zz]", false},                    // nor is "IPv6" one with free content
	{"a@[IPv6:1:2:3:4:5:6:7]", false},         // 7 groups, no "::"
	{"a@[IPv6:1:2:3:4:5:6:7:8:9]", false},     // 9 groups
	{"a@[IPv6:1:2:3:4:5:6:7::]", false},       // "::" is at least two groups here
	{"a@[IPv6:1::2:3:4:5:6:7]", false},        // (RFC 3986 allows these two)
	{"a@[IPv6:1:2:3:4:5::1.2.3.4]", false},    // 5 groups and IPv4 with "::"
	{"a@[IPv6:1:2:3:4:5:1.2.3.4]", false},     // 5 groups and IPv4 without
	{"a@[IPv6:1:2:3:4:5:6:7:1.2.3.4]", false}, // 7 groups and IPv4
	{"a@[IPv6:1::2::3]", false},
	{"a@[IPv6:12345::]", false},
	{"a@[IPv6:::g]", false},
	{"a@[IPv6::1]", false},
	{"a@[IPv6:1:]", false},
	{"a@[IPv6:1.2.3.4::]", false},
	{"a@[IPv6:::1.2.3]", false},
	{"a@[IPv6:]", false},
	{"a@[IPv6:::1", false},
	{long(65, "a") + "@b", false},        // the local part is at most 64 octets
	{`"` + long(63, "a") + `"@b`, false}, // its quotes included
	{"a@" + long(64, "b") + ".c", false}, // a label at most 63
	{long(64, "a") + "@" + long(63, "b") + "." + long(63, "c") + "." + long(62, "d"), false}, // 255 octets
}

var uriCorpus = []formatCase{
	{"https://example.com", true},
	{"https://example.com/", true},
	{"https://example.com/a/b?c=d&e", true},
	{"http://localhost:8080/x", true},
	{"http://h:/", true}, // port = *DIGIT
	{"s://h:123456789", true},
	{"mailto:ada@example.com", true},
	{"urn:isbn:0451450523", true},
	{"urn:oasis:names:specification:docbook:dtd:xml:4.1.2", true},
	{"tel:+1-816-555-1212", true},
	{"news:comp.infosystems.www.servers.unix", true},
	{"file:///etc/passwd", true}, // an empty host
	{"x:/p", true},
	{"x:", true}, // path-empty
	{"about:", true},
	{"x:?q", true},
	{"x://", true},
	{"x:///", true},
	{"https://", true},
	{"x:a:b", true},
	{"x:%41", true},
	{"HTTP://EXAMPLE.COM", true},
	{"a+b.c-d:e", true},
	{"https://example.com?", true},
	{"https://example.com??", true},
	{"s://h/p?q?r", true},
	{"s:o?", true},
	{"https://example.com/#frag", true},
	{"https://example.com/#a?b/c:@", true},
	{"https://example.com#", true},
	{"https://example.com/?#", true},
	{"http://a/b//c", true},
	{"http://a/b%2F", true},
	{"http://a/%7e", true},
	{"https://ex%41mple.com/", true},  // pct-encoded in a reg-name
	{"https://exa_mple.com/", true},   // "_" is unreserved
	{"http://999.999.999.999/", true}, // not an IPv4address, but a reg-name
	{"http://223.255.255.254", true},
	{"https://a@b/", true},
	{"https://a:b@c/", true},
	{"s://@h", true},
	{"http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com", true},
	{"https://[::1]", true},
	{"https://[::1]:80/", true},
	{"http://[2001:db8::7]/c=GB?objectClass?one", true},
	{"http://[::ffff:1.2.3.4]/", true},
	{"http://[1:2:3:4:5:6:7:8]/", true},
	{"http://[1:2:3:4:5:6:1.2.3.4]/", true},
	{"http://[1:2:3:4:5:6:7::]/", true}, // "::" for one group
	{"http://[1::2:3:4:5:6:7]/", true},
	{"http://[::]/", true},
	{"http://[v1.x]/", true}, // IPvFuture
	{"http://[V1a.b:c~]/", true},
	{"http://[::1]:/", true},
	{"http://a/ü", false}, // non-ASCII is iri
	{"https://ä.example/", false},
	{"http://a/#frag#x", false}, // one fragment
	{"http://a/##", false},
	{"http://a b/", false},
	{"http://a/b c", false},
	{"http:// shouldfail.com", false},
	{":// should fail", false},
	{":x", false},
	{"x", false},
	{"", false},
	{"1x:y", false},
	{"+x:y", false},
	{"ht~tp://a", false},
	{"bar,baz:foo", false},
	{"/abc", false}, // relative references
	{"abc", false},
	{"//example.com/", false},
	{`\\WINDOWS\fileshare`, false},
	{"https://example.com/%zz", false},
	{"https://example.com/#%zz", false},
	{"x:%", false},
	{"x:%4", false},
	{"x:%4g", false},
	{"http://a%2/", false},
	{"https://h:p/", false},
	{"https://h:1:2/", false},
	{"http://a:1:2", false},
	{"postgres://a:1,b:2/db", false},
	{"http://a@b@c/", false},
	{"http://a[b]/", false},
	{"https://[::1", false},
	{"https://[::1]x/", false},
	{"https://[::1]:x", false},
	{"s://[h]/", false},
	{"s:[x]", false},
	{"s://h/[x]", false},
	{"http://[1:2:3:4:5:6:7:8:9]/", false},
	{"http://[1:2:3:4:5:6:7]/", false},
	{"http://[1:2:3:4:5:6:7:1.2.3.4]/", false},
	{"http://[1::2::3]/", false},
	{"http://[::1.2.3.04]/", false}, // dec-octet has no leading zeros
	{"http://[::1.2.3.256]/", false},
	{"http://[fe80::1%25eth0]/", false}, // RFC 6874 zones are not RFC 3986
	{"http://[v.x]/", false},
	{"http://[v1.]/", false},
	{"http://[v1x]/", false},
	{"http://[]/", false},
	{"s://h\x7f", false},
	{"s://h/\x01", false},
	{`http://a/"`, false},
	{"http://a/<>", false},
	{"http://a/{}", false},
	{"http://a/|", false},
	{"http://a/^", false},
	{"http://a/`", false},
	{`http://a/\`, false},
	{"http://a/\x00", false},
}

var dateCorpus = []formatCase{
	{"2026-07-28", true},
	{"0000-01-01", true},
	{"9999-12-31", true},
	{"2024-02-29", true},
	{"2000-02-29", true},
	{"2026-04-30", true},
	{"2026-02-29", false},
	{"1900-02-29", false},
	{"2026-04-31", false},
	{"2026-13-01", false},
	{"2026-00-01", false},
	{"2026-01-00", false},
	{"2026-01-32", false},
	{"+026-01-01", false},
	{"-026-01-01", false},
	{"2026/01/01", false},
	{"2026-1-01", false},
	{"2026-01-1", false},
	{"2026-01-1 ", false},
	{" 2026-01-01", false},
	{"20260-01-01", false},
	{"2026-01-01Z", false},
	{"2026-01-01T00:00:00Z", false},
	{"", false},
	{"２０２６-01-01", false},
	{"2026-০1-01", false}, // a Bengali digit
	{"2026-7-028", false},
}

var dateTimeCorpus = []formatCase{
	{"2026-07-28T09:30:00Z", true},
	{"2026-07-28T09:30:00.5Z", true},
	{"2026-07-28T09:30:00.123456789Z", true},
	{"2026-07-28T09:30:00.1234567891Z", true}, // any number of digits
	{"2026-07-28T09:30:00.000000000000000000001Z", true},
	{"2026-07-28T23:59:59Z", true},
	{"2024-02-29T00:00:00Z", true},
	{"2026-07-28T09:30:00+02:00", true},
	{"2026-07-28T09:30:00-00:00", true},
	{"2026-07-28T09:30:00+00:00", true},
	{"2026-07-28T09:30:00+23:59", true},
	{"1937-01-01T12:00:27.87+00:20", true},
	{"1990-12-31T15:59:50.123-08:00", true},
	{"2026-07-28t09:30:00Z", true}, // ABNF literals are case-insensitive
	{"2026-07-28T09:30:00z", true},
	{"1963-06-19t08:30:06.283185z", true},
	{"0000-01-01T00:00:00Z", true},
	{"0000-01-01T00:00:00+23:59", true},
	{"9999-12-31T23:59:59.999999999-23:59", true},
	{"2016-12-31T23:59:60Z", true}, // leap seconds
	{"1998-12-31T23:59:60Z", true},
	{"2015-06-30T23:59:60.5Z", true},
	{"1998-12-31T15:59:60.123-08:00", true},
	{"2017-01-01T00:59:60+01:00", true},
	{"2017-01-01T05:29:60+05:30", true},
	{"2026-03-31T23:59:60Z", true}, // the end of any month
	{"2024-02-29T23:59:60Z", true},
	{"0000-01-31T23:59:60Z", true},
	{"9999-12-31T23:59:60z", true},
	{"1998-12-31T23:59:61Z", false},
	{"1998-12-31T23:58:60Z", false},
	{"1998-12-31T22:59:60Z", false},
	{"2016-12-30T23:59:60Z", false},      // not the end of a month
	{"2016-12-31T23:59:60+01:00", false}, // 22:59:60 in UTC
	{"2016-12-31T23:59:60-01:00", false},
	{"2024-02-28T23:59:60Z", false},
	{"2026-02-28T23:59:60Z", true},
	{"2026-07-28T24:00:00Z", false},
	{"2026-07-28T09:60:00Z", false},
	{"2026-07-28T09:30:99Z", false},
	{"2026-02-29T00:00:00Z", false},
	{"1990-02-31T15:59:59.123-08:00", false},
	{"2026-07-28T09:30:00.Z", false},
	{"2026-07-28T09:30:00,5Z", false},
	{"2026-07-28T09:30:00.5.5Z", false},
	{"2026-07-28 09:30:00Z", false}, // the space of RFC 3339's note: not the ABNF
	{"2026-07-28_09:30:00Z", false},
	{"2026-07-28T09:30:00", false}, // no offset
	{"2026-07-28T09:30Z", false},
	{"2026-07-28T9:30:00Z", false},
	{"2026-07-28T09:30:00+24:00", false},
	{"2026-07-28T09:30:00-24:00", false},
	{"2026-07-28T09:30:00+02:60", false},
	{"2026-07-28T09:30:00+0200", false},
	{"2026-07-28T09:30:00+02", false},
	{"2026-07-28T09:30:00+2:00", false},
	{"2026-07-28T09:30:00+02:00Z", false},
	{"1963-06-19T08:30:06.28123+01:00Z", false},
	{"2026-07-28T09:30:00ZZ", false},
	{"2026-07-28T09:30:00Zx", false},
	{"2026-07-28T09:30:00 Z", false},
	{"2026-07-28T09:30:00UTC", false},
	{"06/19/1963 08:30:06 PST", false},
	{"2013-350T01:01:01", false},
	{"1963-6-19T08:30:06.283185Z", false},
	{"2026-07-28T09:30:0৪Z", false}, // a Bengali digit
	{"2026-07-28", false},
	{"", false},
}

func TestEmailCorpus(t *testing.T) { checkCorpus(t, emailCorpus, format.IsEmail, formcheck.Email) }
func TestURICorpus(t *testing.T) {
	checkCorpus(t, uriCorpus, format.IsAbsoluteURI, formcheck.URI)
}
func TestDateCorpus(t *testing.T) { checkCorpus(t, dateCorpus, format.IsDate, isFormcheckDate) }
func TestDateTimeCorpus(t *testing.T) {
	checkCorpus(t, dateTimeCorpus, isDateTime, isFormcheckDateTime)
	for _, c := range dateTimeCorpus {
		checkDateTime(t, c.s)
	}
}

func isDateTime(s string) bool          { _, ok := format.ParseDateTime(s); return ok }
func isFormcheckDateTime(s string) bool { _, ok := formcheck.DateTime(s); return ok }
func isFormcheckDate(s string) bool     { _, ok := formcheck.Date(s); return ok }

// checkCorpus checks the runtime's check and the oracle against the
// expected answers.
func checkCorpus(t *testing.T, corpus []formatCase, check, oracle func(string) bool) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range corpus {
		if seen[c.s] {
			t.Errorf("%q is in the corpus twice", c.s)
		}
		seen[c.s] = true
		if got := check(c.s); got != c.want {
			t.Errorf("runtime: %q: %v, want %v", c.s, got, c.want)
		}
		if got := oracle(c.s); got != c.want {
			t.Errorf("formcheck: %q: %v, want %v", c.s, got, c.want)
		}
	}
}

// TestDateTimeValues pins the value of a few date-times: the offset kept,
// the fraction cut to nanoseconds, a leap second read as the next second.
func TestDateTimeValues(t *testing.T) {
	for s, want := range map[string]time.Time{
		"2026-07-28t09:30:00.5z":               time.Date(2026, 7, 28, 9, 30, 0, 5e8, time.UTC),
		"2026-07-28T09:30:00-00:00":            time.Date(2026, 7, 28, 9, 30, 0, 0, time.UTC),
		"2026-07-28T09:30:00.1234567891+05:30": time.Date(2026, 7, 28, 9, 30, 0, 123456789, time.FixedZone("", 19800)),
		"2016-12-31T23:59:60.25Z":              time.Date(2017, 1, 1, 0, 0, 0, 25e7, time.UTC),
		"1998-12-31T15:59:60-08:00":            time.Date(1998, 12, 31, 16, 0, 0, 0, time.FixedZone("", -8*3600)),
	} {
		got, ok := format.ParseDateTime(s)
		if !ok || !sameTime(got, want) {
			t.Errorf("ParseDateTime(%q) = %v, %v, want %v", s, got, ok, want)
		}
	}
}

// checkDateTime checks ParseDateTime against the oracle on s, value and
// zone, and ParseDate likewise on s.
func checkDateTime(t *testing.T, s string) {
	t.Helper()
	got, ok := format.ParseDateTime(s)
	want, wantOK := formcheck.DateTime(s)
	if ok != wantOK || !sameTime(got, want) {
		t.Fatalf("ParseDateTime(%q) = %v, %v; formcheck: %v, %v", s, got, ok, want, wantOK)
	}
	if _, offset := got.Zone(); ok && (offset == 0) != (got.Location() == time.UTC) {
		t.Fatalf("ParseDateTime(%q) = %v, in %v", s, got, got.Location())
	}
	d, ok := format.ParseDate(s)
	wantD, wantOK := formcheck.Date(s)
	if ok != wantOK || d != wantD || format.IsDate(s) != ok {
		t.Fatalf("ParseDate(%q) = %v, %v; formcheck: %v, %v", s, d, ok, wantD, wantOK)
	}
}

// sameTime reports whether a and b are the same instant with the same
// offset, and both or neither in time.UTC.
func sameTime(a, b time.Time) bool {
	_, ao := a.Zone()
	_, bo := b.Zone()
	return a.Equal(b) && ao == bo && (a.Location() == time.UTC) == (b.Location() == time.UTC)
}

// mutate changes s at random: a byte replaced, inserted or deleted, a
// piece duplicated, or a cut.
func mutate(r *rand.Rand, s string, alphabet string) string {
	b := []byte(s)
	for range 1 + r.IntN(3) {
		i := 0
		if len(b) > 0 {
			i = r.IntN(len(b) + 1)
		}
		c := alphabet[r.IntN(len(alphabet))]
		switch r.IntN(5) {
		case 0:
			if i < len(b) {
				b[i] = c
			}
		case 1:
			b = append(b[:i], append([]byte{c}, b[i:]...)...)
		case 2:
			if i < len(b) {
				b = append(b[:i], b[i+1:]...)
			}
		case 3:
			j := i + r.IntN(len(b)-i+1)
			b = append(b[:j], append(append([]byte{}, b[i:j]...), b[j:]...)...)
		case 4:
			b = b[:i]
		}
	}
	return string(b)
}

// The alphabets of the mutations: the bytes that matter to each grammar,
// and a few that do not belong.
const (
	emailAlphabet    = "ab0Z.@.@-_+\"\\()<>[]:;, \t~!#$%&'*/=?^`|{}\x00\x7f\xc3\xa4IPv6:1.2.3.4"
	uriAlphabet      = "hs:/:/?#%[]@.-+_~aF9v =&!$'()*,;\"<>\\^`{|}\x7f\xc3\xa4::1.2.3.4"
	dateTimeAlphabet = "01234567890123456789.Zz+-:tT, 6\xe0"
)

// TestFormatsAgree checks the runtime against the oracle on mutations of
// the corpora.
func TestFormatsAgree(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 5000
	}
	r := rand.New(rand.NewPCG(13, 3339))
	pick := func(corpus []formatCase) string { return corpus[r.IntN(len(corpus))].s }
	for range n {
		checkEmail(t, mutate(r, pick(emailCorpus), emailAlphabet))
		checkURI(t, mutate(r, pick(uriCorpus), uriAlphabet))
		checkDateTime(t, mutate(r, pick(dateTimeCorpus), dateTimeAlphabet))
		checkDateTime(t, mutate(r, pick(dateCorpus), dateTimeAlphabet))
	}
}

var ldhLabel = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// checkEmail checks IsEmail against the oracle, and against net/mail
// where the two grammars meet. net/mail parses RFC 5322 addresses (with
// RFC 6532's UTF-8): it also takes display names, comments and folding
// white space, a domain of any atext ("a@b_c.d", "a@-b.c") and non-ASCII
// text, and gives a quoted local part back unquoted where it can; RFC 5321
// also limits the lengths. So: a Mailbox with a Dot-string local part and
// a Domain is an address net/mail reads back unchanged, and an ASCII
// address net/mail reads back unchanged, without quotes or brackets, whose
// domain labels are letters, digits and inner hyphens and whose lengths
// fit, is a Mailbox.
func checkEmail(t *testing.T, s string) {
	t.Helper()
	got := format.IsEmail(s)
	if want := formcheck.Email(s); got != want {
		t.Fatalf("IsEmail(%q) = %v; formcheck: %v", s, got, want)
	}
	if strings.ContainsAny(s, "\"[") {
		return
	}
	a, err := mail.ParseAddress(s)
	netOK := err == nil && a.Name == "" && a.Address == s
	if got && !netOK {
		t.Fatalf("IsEmail(%q), but net/mail: %v, %v", s, a, err)
	}
	if netOK && !got && isASCII(s) {
		local, domain, _ := strings.Cut(s, "@")
		fits := len(s) <= 254 && len(local) <= 64
		for _, l := range strings.Split(domain, ".") {
			fits = fits && ldhLabel.MatchString(l)
		}
		if fits {
			t.Fatalf("net/mail reads %q back, but IsEmail refuses it", s)
		}
	}
}

// checkURI checks IsAbsoluteURI against the oracle, and against net/url
// where the two meet. net/url is lenient (it takes "http://a/ü",
// "http://a/#b#c", "x:{}" and relative references) and, in one place,
// strict where RFC 3986 is not: it refuses a percent-encoded ASCII byte in
// the host ("http://ex%41mple.com") and an IPvFuture ("http://[v1.x]/").
// So: a URI without "%" or an IPvFuture in its host is
// something net/url parses, with the same scheme, the fragment after the
// first "#" and, when there is an authority, the same host.
func checkURI(t *testing.T, s string) {
	t.Helper()
	got := format.IsAbsoluteURI(s)
	if want := formcheck.URI(s); got != want {
		t.Fatalf("IsAbsoluteURI(%q) = %v; formcheck: %v", s, got, want)
	}
	if !got {
		return
	}
	scheme, rest, _ := strings.Cut(s, ":")
	var host string
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		host = after[:strings.IndexAny(after+"/", "/?#")]
		if at := strings.IndexByte(host, '@'); at >= 0 {
			host = host[at+1:]
		}
		if strings.Contains(host, "%") || strings.HasPrefix(strings.ToLower(host), "[v") {
			return
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("IsAbsoluteURI(%q), but net/url: %v", s, err)
	}
	_, fragment, _ := strings.Cut(s, "#")
	if u.Scheme != strings.ToLower(scheme) || u.EscapedFragment() != fragment && u.Fragment != fragment {
		t.Fatalf("net/url reads %q as scheme %q, fragment %q", s, u.Scheme, u.Fragment)
	}
	if host != "" && u.Host != host {
		t.Fatalf("net/url reads %q with host %q, want %q", s, u.Host, host)
	}
}

// checkTimeParse checks ParseDateTime and ParseDate against time.Parse
// where their grammars meet. For a date-time, time.Parse takes only "T"
// and "Z", has no leap seconds, also takes a "," before the fraction, and
// needs the fraction's digits to be at most what a Time keeps (it takes
// more and cuts them, as ParseDateTime does), and offsets of 24 hours or
// more or of 60 minutes or more ("+24:00", "-02:60"), and an hour of one
// digit ("2026-07-28T9:30:00Z"). For a date of ten bytes, it
// is exactly RFC 3339 full-date.
func checkTimeParse(t *testing.T, s string) {
	t.Helper()
	got, ok := format.ParseDateTime(s)
	if len(s) >= 20 {
		upper := s[:10] + strings.ToUpper(s[10:11]) + s[11:len(s)-1] + strings.ToUpper(s[len(s)-1:])
		leap := s[17:19] == "60"
		std, err := time.Parse(time.RFC3339Nano, upper)
		if ok && !leap && (err != nil || !got.Equal(std)) {
			t.Fatalf("ParseDateTime(%q) = %v, but time.Parse(%q): %v, %v", s, got, upper, std, err)
		}
		tail := s[max(len(s)-6, 0):]
		bigOffset := (tail[0] == '+' || tail[0] == '-') && (tail[1:3] >= "24" || tail[4:] >= "60")
		known := leap || bigOffset || strings.Contains(s, ",") || !fixedWidth.MatchString(s)
		if err == nil && !ok && !known {
			t.Fatalf("time.Parse(%q) = %v, but ParseDateTime(%q) refuses it", upper, std, s)
		}
	}
	if len(s) == 10 {
		d, ok := format.ParseDate(s)
		std, err := time.Parse(time.DateOnly, s)
		if ok != (err == nil) || d != std {
			t.Fatalf("ParseDate(%q) = %v, %v, time.Parse: %v, %v", s, d, ok, std, err)
		}
	}
}

var fixedWidth = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}.[0-9]{2}:[0-9]{2}:[0-9]{2}`)

func TestTimeParseAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3339, 13))
	for _, c := range append(append([]formatCase{}, dateTimeCorpus...), dateCorpus...) {
		checkTimeParse(t, c.s)
	}
	for range 20000 {
		checkTimeParse(t, mutate(r, dateTimeCorpus[r.IntN(len(dateTimeCorpus))].s, dateTimeAlphabet))
		checkTimeParse(t, mutate(r, dateCorpus[r.IntN(len(dateCorpus))].s, dateTimeAlphabet))
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func addCorpus(f *testing.F, corpus []formatCase) {
	for _, c := range corpus {
		f.Add(c.s)
	}
}

func FuzzIsEmail(f *testing.F) {
	addCorpus(f, emailCorpus)
	f.Fuzz(func(t *testing.T, s string) { checkEmail(t, s) })
}

func FuzzIsAbsoluteURI(f *testing.F) {
	addCorpus(f, uriCorpus)
	f.Fuzz(func(t *testing.T, s string) { checkURI(t, s) })
}

func FuzzParseDateTime(f *testing.F) {
	addCorpus(f, dateTimeCorpus)
	f.Fuzz(func(t *testing.T, s string) {
		checkDateTime(t, s)
		checkTimeParse(t, s)
	})
}

func FuzzParseDate(f *testing.F) {
	addCorpus(f, dateCorpus)
	f.Fuzz(func(t *testing.T, s string) {
		checkDateTime(t, s)
		checkTimeParse(t, s)
	})
}
