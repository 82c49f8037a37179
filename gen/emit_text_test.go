package gen

import (
	"strconv"
	"testing"
)

func TestAddQuoted(t *testing.T) {
	for _, s := range []string{"", "a", `{"type":"object"}`, `back\slash`, "tab\t", "é", "\x7f", "\u2028", "\xff", "`", `"\"`} {
		var w goText
		w.addQuoted(s)
		if got, want := string(w.b), strconv.Quote(s); got != want {
			t.Errorf("addQuoted(%q) = %s, want %s", s, got, want)
		}
	}
}
