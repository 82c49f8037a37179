package elicitimpl

import (
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

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
// every property small enough for the compiler to inline them there, and
// the helpers of the format checks in internal/format, to which they
// forward.
func TestHotPathsInline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", ".", "../../internal/format").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, f := range []string{"Number", "List", "CharCountWithin", "IsEmail", "IsAbsoluteURI", "ParseDate", "IsDate", "ParseDateTime", "twoDigits"} {
		if !regexp.MustCompile(`(?m): can inline ` + f + `( |$)`).Match(out) {
			t.Errorf("%s is no longer inlined", f)
		}
	}
}
