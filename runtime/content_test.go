package runtime

import (
	"math/rand/v2"
	"net/mail"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The reference definitions of the format checks, as they were before the
// allocation-free fast paths: the fast paths must agree with them.

func refIsEmail(s string) bool {
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

func refIsAbsoluteURI(s string) bool {
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || !u.IsAbs() {
		return false
	}
	return u.Opaque != "" || u.Host != "" || u.Path != ""
}

func refParseDateTime(s string) (time.Time, bool) {
	if len(s) < 20 || !rfc3339Tail(s[19:]) {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// sameTime reports whether a and b are the same instant in the same zone
// (time.Parse makes a new *Location for most offsets, so == is too strict;
// in UTC it is exact).
func sameTime(a, b time.Time) bool {
	an, ao := a.Zone()
	bn, bo := b.Zone()
	if a.Location() == time.UTC || b.Location() == time.UTC {
		return a == b
	}
	return a.Equal(b) && an == bn && ao == bo
}

func refParseDate(s string) (time.Time, bool) {
	if len(s) != 10 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

var (
	emailSeeds = []string{
		"ada@example.com", "a.b.c@d.e", "a@b", "x+tag@sub.example.org", "o'hara@example.com", "{a}@b",
		"a..b@c", ".a@b", "a.@b", "a@b.", "a@.b", "a@b..c", "@b", "a@", "a@b@c", "a", "",
		`"a"@b`, `"a b"@c`, "a@[127.0.0.1]", "a@[ipv6:::1]", "Ada <ada@example.com>", "ada@example.com (Ada)",
		"a(b)@c", "a@b(c)", "ä@b", "a@bä", "a\x00@b", "a@b\x7f", "a,b@c", "a;b@c", "a\\b@c", "a@b:c",
		"a@b c", strings.Repeat("a", 250) + "@b.c", "a@" + strings.Repeat("b", 252),
	}
	uriSeeds = []string{
		"https://example.com", "https://example.com/", "https://example.com/a/b?c=d&e", "http://localhost:8080/x",
		"http://h:/", "mailto:ada@example.com", "urn:isbn:0451450523", "file:///etc/passwd", "x:/p", "x:",
		"x:?q", "x://", "x:///", "https://", "https://[::1]:80/", "https://[::1", "https://a@b/", "https://a:b@c/",
		"https://h:p/", "https://h:1:2/", "http://a:1:2", "postgres://a:1,b:2/db", "1x:y", "+x:y", ":x", "x",
		"https://ex%41mple.com/", "https://example.com/%zz", "https://example.com/#frag", "https://example.com/#%zz",
		"https://exa_mple.com/", "https://exa mple.com/", "https://ä.example/", "HTTP://EXAMPLE.COM", "a+b.c-d:e",
		"https://example.com?", "https://example.com??", "s://h/p?q?r", "s:o?", "s://h\x7f", "s://h/\x01",
		"s://h/[x]", "s://[h]/", "s:[x]", "s://h/a b",
	}
	dateTimeSeeds = []string{
		"2026-07-28T09:30:00Z", "2026-07-28T09:30:00.5Z", "2026-07-28T09:30:00.123456789Z", "2026-07-28T09:30:00.1234567891Z",
		"2026-07-28T23:59:59Z", "2026-07-28T24:00:00Z", "2026-07-28T09:60:00Z", "2026-07-28T09:30:60Z", "2024-02-29T00:00:00Z",
		"2026-02-29T00:00:00Z", "2026-07-28T09:30:00+02:00", "2026-07-28T09:30:00-00:00", "2026-07-28t09:30:00Z",
		"2026-07-28T09:30:00.Z", "2026-07-28T09:30:00,5Z", "0000-01-01T00:00:00Z", "2026-07-28T09:30:00z", "2026-07-28 09:30:00Z",
	}
	dateSeeds = []string{
		"2026-07-28", "0000-01-01", "9999-12-31", "2024-02-29", "2026-02-29", "2000-02-29", "1900-02-29",
		"2026-04-31", "2026-04-30", "2026-13-01", "2026-00-01", "2026-01-00", "2026-01-32", "+026-01-01",
		"-026-01-01", "2026/01/01", "2026-1-01", "2026-01-1 ", "20260-1-01", "2026-01-01Z", "", "２０２６-01-01",
	}
)

// randomString draws from an alphabet rich in the characters that matter
// to the parsers.
func randomString(r *rand.Rand, alphabet string) string {
	n := r.IntN(24)
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func TestFormatFastPathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(s string) {
		if got, want := IsEmail(s), refIsEmail(s); got != want {
			t.Errorf("IsEmail(%q) = %v, want %v", s, got, want)
		}
		if got, want := IsAbsoluteURI(s), refIsAbsoluteURI(s); got != want {
			t.Errorf("IsAbsoluteURI(%q) = %v, want %v", s, got, want)
		}
		got, ok := ParseDate(s)
		want, wantOK := refParseDate(s)
		if ok != wantOK || got != want || IsDate(s) != wantOK {
			t.Errorf("ParseDate(%q) = %v, %v, want %v, %v", s, got, ok, want, wantOK)
		}
		got, ok = ParseDateTime(s)
		want, wantOK = refParseDateTime(s)
		if ok != wantOK || !sameTime(got, want) {
			t.Errorf("ParseDateTime(%q) = %v, %v, want %v, %v", s, got, ok, want, wantOK)
		}
	}
	for _, s := range append(append(append([]string{}, emailSeeds...), uriSeeds...), dateSeeds...) {
		check(s)
	}
	const emailAlphabet = "ab.@.@-+\"()<>[]:;,\\ x9_{}~!#$%&'*/=?^`|\x00\xc3\xa4"
	const uriAlphabet = "hs:/:/?#%[]@.-+_~a1F9 =&!$'()*,;\x7f\xc3\xa4"
	const dateAlphabet = "0123456789-0123456789--+ T:Z"
	const dateTimeAlphabet = "0123456789012345678901234567890123456789.Z+-:tT,"
	for range 200000 {
		check(randomString(r, emailAlphabet))
		check(randomString(r, uriAlphabet))
		s := randomString(r, dateAlphabet)
		if len(s) > 10 {
			s = s[:10]
		}
		check(s)
		// A valid date-time with one character changed or cut.
		dt := []byte(dateTimeSeeds[r.IntN(len(dateTimeSeeds))])
		if len(dt) > 0 {
			switch r.IntN(3) {
			case 0:
				dt[r.IntN(len(dt))] = dateTimeAlphabet[r.IntN(len(dateTimeAlphabet))]
			case 1:
				dt = dt[:r.IntN(len(dt))]
			}
		}
		check(string(dt))
	}
}

func TestFormatChecksDoNotAllocate(t *testing.T) {
	for name, f := range map[string]func(){
		"email":     func() { sinkBool = IsEmail("ada.lovelace+x@example.com") },
		"uri":       func() { sinkBool = IsAbsoluteURI("https://example.com:8443/a/b?c=d") },
		"opaque":    func() { sinkBool = IsAbsoluteURI("mailto:ada@example.com") },
		"date":      func() { _, sinkBool = ParseDate("2026-07-28") },
		"is-date":   func() { sinkBool = IsDate("2026-07-28") },
		"date-time": func() { _, sinkBool = ParseDateTime("2026-07-28T09:30:00.5+02:00") },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations", name, n)
		}
	}
}

func FuzzIsEmail(f *testing.F) {
	for _, s := range emailSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsEmail(s), refIsEmail(s); got != want {
			t.Fatalf("IsEmail(%q) = %v, want %v", s, got, want)
		}
	})
}

func FuzzIsAbsoluteURI(f *testing.F) {
	for _, s := range uriSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsAbsoluteURI(s), refIsAbsoluteURI(s); got != want {
			t.Fatalf("IsAbsoluteURI(%q) = %v, want %v", s, got, want)
		}
	})
}

func FuzzParseDateTime(f *testing.F) {
	for _, s := range dateTimeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseDateTime(s)
		want, wantOK := refParseDateTime(s)
		if ok != wantOK || !sameTime(got, want) {
			t.Fatalf("ParseDateTime(%q) = %v, %v, want %v, %v", s, got, ok, want, wantOK)
		}
	})
}

func FuzzParseDate(f *testing.F) {
	for _, s := range dateSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseDate(s)
		want, wantOK := refParseDate(s)
		if ok != wantOK || got != want || IsDate(s) != wantOK {
			t.Fatalf("ParseDate(%q) = %v, %v, want %v, %v", s, got, ok, want, wantOK)
		}
	})
}

var sinkBool bool

// BenchmarkFormats measures the format checks of generated decoders on
// typical values.
func BenchmarkFormats(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func() bool
	}{
		{"email", func() bool { return IsEmail("ada@example.com") }},
		{"uri", func() bool { return IsAbsoluteURI("https://example.com/ada") }},
		{"date", func() bool { return IsDate("2026-08-01") }},
		{"date-time", func() bool { _, ok := ParseDateTime("2026-07-28T09:30:00Z"); return ok }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBool = c.f()
			}
		})
	}
}

// TestUnixDaysEveryDate checks the calendar arithmetic of ParseDate and
// ParseDateTime against time.Date on every date they accept, 0000-01-01
// to 9999-12-31.
func TestUnixDaysEveryDate(t *testing.T) {
	day := time.Date(0, time.January, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	for ; day.Year() <= 9999; day = day.AddDate(0, 0, 1) {
		y, m, d := day.Date()
		if got := unixDays(y, int(m), d) * secondsPerDay; got != day.Unix() {
			t.Fatalf("unixDays(%d, %d, %d) = %d days, want %d", y, m, d, got/secondsPerDay, day.Unix()/secondsPerDay)
		}
		n++
	}
	if n != 3652425 { // 10,000 Gregorian years
		t.Fatalf("checked %d dates, want 3652425", n)
	}
}

// TestCharCountWithin checks the shortcut of CharCountWithin against a
// count, on strings of every length to 12 bytes mixing ASCII, two-, three-
// and four-byte characters and invalid bytes, for every pair of bounds.
func TestCharCountWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "€", "😀", "\xff", "\xe2\x82"}
	for range 20000 {
		var b strings.Builder
		for b.Len() < r.IntN(13) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		n := utf8.RuneCountInString(s)
		for lo := 0; lo <= 14; lo++ {
			for hi := lo; hi <= 14; hi++ {
				if got, want := CharCountWithin(s, lo, hi), lo <= n && n <= hi; got != want {
					t.Fatalf("CharCountWithin(%q, %d, %d) = %v, want %v (%d characters)", s, lo, hi, got, want, n)
				}
			}
		}
	}
}

// TestHotPathsInline keeps the helpers that generated decoders call on
// every property small enough for the compiler to inline them there.
func TestHotPathsInline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", "-o", os.DevNull, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, f := range []string{"Number", "List", "CharCountWithin", "IsDate", "twoDigits"} {
		if !regexp.MustCompile(`(?m): can inline ` + f + `( |$)`).Match(out) {
			t.Errorf("%s is no longer inlined", f)
		}
	}
}
