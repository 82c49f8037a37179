package format

import (
	"testing"
	"time"
)

// TestFormatChecksDoNotAllocate keeps the format checks free of
// allocations on every shape they accept, not only the common ones (an
// offset of whole hours within -12 to +14 is one time.FixedZone caches).
func TestFormatChecksDoNotAllocate(t *testing.T) {
	dateTime := func(s string) bool { _, ok := ParseDateTime(s); return ok }
	for name, f := range map[string]func() bool{
		"email":         func() bool { return IsEmail("ada.lovelace+x@example.com") },
		"email-quoted":  func() bool { return IsEmail(`"ada \\ lovelace"@example.com`) },
		"email-ipv6":    func() bool { return IsEmail("ada@[IPv6:2001:db8::192.0.2.1]") },
		"uri":           func() bool { return IsAbsoluteURI("https://example.com:8443/a/b?c=d") },
		"uri-full":      func() bool { return IsAbsoluteURI("https://u:p@[2001:db8::1]:80/%7Ea?q=%20#f/?") },
		"opaque":        func() bool { return IsAbsoluteURI("mailto:ada@example.com") },
		"date":          func() bool { _, ok := ParseDate("2026-07-28"); return ok },
		"is-date":       func() bool { return IsDate("2026-07-28") },
		"date-time":     func() bool { return dateTime("2026-07-28T09:30:00.5+02:00") },
		"date-time-low": func() bool { return dateTime("2026-07-28t09:30:00.123456789123z") },
		"leap-second":   func() bool { return dateTime("2016-12-31T23:59:60Z") },
	} {
		if !f() {
			t.Errorf("%s: rejected", name)
		}
		if n := testing.AllocsPerRun(100, func() { sinkBool = f() }); n != 0 {
			t.Errorf("%s: %v allocations", name, n)
		}
	}
}

var sinkBool bool

// BenchmarkFormats measures the format checks of generated decoders on
// typical values, and on the longer shapes each format allows.
func BenchmarkFormats(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func() bool
	}{
		{"email", func() bool { return IsEmail("ada@example.com") }},
		{"uri", func() bool { return IsAbsoluteURI("https://example.com/ada") }},
		{"date", func() bool { return IsDate("2026-08-01") }},
		{"date-time", func() bool { _, ok := ParseDateTime("2026-07-28T09:30:00Z"); return ok }},
		{"email-quoted", func() bool { return IsEmail(`"ada lovelace"@[IPv6:2001:db8::1]`) }},
		{"uri-long", func() bool { return IsAbsoluteURI("https://u@[2001:db8::1]:8443/a/%7Eb?c=d&e=f#g") }},
		{"date-time-offset", func() bool { _, ok := ParseDateTime("2026-07-28T09:30:00.123+02:00"); return ok }},
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
