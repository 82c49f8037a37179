package gen

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// secretWords are the words that make a field look secret when they occur,
// as whole words, in its Go name, property name, title or type name. Names
// are split into words at camelCase, snake_case, kebab-case, spaces and
// digits. docs/reference/grammar.md lists them.
var secretWords = []string{
	"password", "passwd", "passphrase", "passcode",
	"secret", "token", "apikey", "credential",
	"privatekey", "cvv", "cvc", "cardnumber", "ssn", "pin", "otp", "totp",
}

// secretPhrases are pairs of words that look secret together, with the
// phrase a diagnostic names.
var secretPhrases = []struct{ first, second, phrase string }{
	{"api", "key", "api key"}, {"api", "keys", "api keys"},
	{"private", "key", "private key"}, {"card", "number", "card number"},
	{"credit", "card", "credit card"}, {"access", "key", "access key"},
	{"security", "code", "security code"}, {"social", "security", "social security"},
}

// secretWord returns the secret word or phrase found in any of names, or "".
// It runs for every field of every form, so it does not allocate (but to
// lower-case a non-ASCII word).
func secretWord(names ...string) string {
	for _, name := range names {
		if w := secretWordIn(name); w != "" {
			return w
		}
	}
	return ""
}

// maxSecretWordLen bounds the words worth comparing: no secret word, plural
// or phrase word is longer.
const maxSecretWordLen = 16

func secretWordIn(name string) string {
	var bufs [2][maxSecretWordLen]byte // the current and the previous word
	var prev []byte                    // the previous word, lower-cased; nil when too long
	found := ""
	n := 0
	eachWord(name, func(word string) bool {
		cur := lowerWord(bufs[n%2][:0], word)
		n++
		if cur == nil {
			prev = nil
			return true
		}
		for _, s := range secretWords {
			if string(cur) == s || len(cur) == len(s)+1 && cur[len(s)] == 's' && string(cur[:len(s)]) == s {
				found = s
				return false
			}
		}
		if prev != nil {
			for _, p := range secretPhrases {
				if string(prev) == p.first && string(cur) == p.second {
					found = p.phrase
					return false
				}
			}
		}
		prev = cur
		return true
	})
	return found
}

// lowerWord appends word, lower-cased, to dst (of capacity
// maxSecretWordLen), or returns nil when it does not fit. Non-ASCII words
// are lowered by strings.ToLower, which can map them to ASCII (the Kelvin
// sign to k).
func lowerWord(dst []byte, word string) []byte {
	for i := 0; i < len(word); i++ {
		if word[i] >= utf8.RuneSelf {
			word = strings.ToLower(word)
			break
		}
	}
	if len(word) > cap(dst) {
		return nil
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// splitWords splits an identifier or phrase into lower-case words:
// "userAPIKey" → user, api, key; "card_number" → card, number;
// "CVV2" → cvv, 2.
func splitWords(s string) []string {
	var words []string
	eachWord(s, func(w string) bool {
		words = append(words, strings.ToLower(w))
		return true
	})
	return words
}

// eachWord calls yield with each word of s, as a substring of s, until
// yield returns false. Words are runs of letters and digits, split where
// letters meet digits, before an upper-case letter that follows a
// lower-case one, and before the last upper-case letter of an acronym that
// a lower-case word follows ("APIKey" → API, Key), unless that lower-case
// part is a lone plural "s" ("PINs" stays one word).
func eachWord(s string, yield func(string) bool) {
	start := -1
	var prev rune
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 && !yield(s[start:i]) {
				return
			}
			start = -1
		} else if start < 0 {
			start = i
		} else if startsWord(s, i, n, r, prev) {
			if !yield(s[start:i]) {
				return
			}
			start = i
		}
		prev = r
		i += n
	}
	if start >= 0 {
		yield(s[start:])
	}
}

// startsWord reports whether r, at s[i:i+n] inside a word and after prev,
// starts a new word.
func startsWord(s string, i, n int, r, prev rune) bool {
	switch {
	case unicode.IsDigit(r) != unicode.IsDigit(prev):
		return true
	case unicode.IsUpper(r) && unicode.IsLower(prev):
		return true
	case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+n < len(s):
		next, m := utf8.DecodeRuneInString(s[i+n:])
		if !unicode.IsLower(next) {
			return false
		}
		// A lone plural "s" ends the acronym's word ("PINs", "SSNs").
		if next == 's' {
			j := i + n + m
			if j == len(s) {
				return false
			}
			if after, _ := utf8.DecodeRuneInString(s[j:]); !unicode.IsLower(after) {
				return false
			}
		}
		return true
	}
	return false
}
