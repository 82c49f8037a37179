package formcheck

import "testing"

// TestCheckAndSameUseTheFormats checks that Check and Same judge formats
// by the RFC grammars of formats.go: a leap second or a lower-case "t" is
// a date-time, and the same instant as its normalised rendering.
func TestCheckAndSameUseTheFormats(t *testing.T) {
	c, err := New([]byte(`{"type":"object","properties":{
		"when":{"type":"string","format":"date-time"},
		"day":{"type":"string","format":"date"},
		"mail":{"type":"string","format":"email"},
		"link":{"type":"string","format":"uri"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]any{
		"when": "2016-12-31t23:59:60z",
		"day":  "2024-02-29",
		"mail": `"ada lovelace"@[IPv6:2001:db8::1]`,
		"link": "https://example.com/#top",
	}
	if err := c.Check(good); err != nil {
		t.Errorf("Check(%v): %v", good, err)
	}
	for name, bad := range map[string]string{
		"when": "2016-12-31 23:59:59Z",
		"day":  "2026-02-29",
		"mail": "ü@example.com",
		"link": "http://a/#frag#x",
	} {
		props := map[string]any{name: bad}
		if err := c.Check(props); err == nil {
			t.Errorf("Check(%v) passed", props)
		}
	}
	for _, c := range []struct {
		sent, got, format string
		same              bool
	}{
		{"2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z", "date-time", true},
		{"2026-07-28t09:30:00.5z", "2026-07-28T11:30:00.5+02:00", "date-time", true},
		{"2026-07-28T09:30:00Z", "2026-07-28T09:30:01Z", "date-time", false},
		{"2026-07-28", "2026-07-28", "date", true},
		{"2026-02-29", "2026-03-01", "date", false},
	} {
		if got := Same(c.sent, c.got, c.format); got != c.same {
			t.Errorf("Same(%q, %q, %q) = %v", c.sent, c.got, c.format, got)
		}
	}
}
