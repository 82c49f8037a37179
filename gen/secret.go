package gen

import (
	"strings"
	"unicode"
)

// secretWords are the words that make a field look secret when they occur,
// as whole words, in its Go name, property name, title or type name. Names
// are split into words at camelCase, snake_case, kebab-case, spaces and
// digits. The README lists them.
var secretWords = []string{
	"password", "passwd", "passphrase", "passcode",
	"secret", "token", "apikey", "credential",
	"privatekey", "cvv", "cvc", "cardnumber", "ssn", "pin", "otp", "totp",
}

// secretPhrases are runs of words that look secret together.
var secretPhrases = [][]string{
	{"api", "key"}, {"api", "keys"},
	{"private", "key"}, {"card", "number"}, {"credit", "card"},
	{"access", "key"}, {"security", "code"}, {"social", "security"},
}

// secretWord returns the secret word or phrase found in any of names, or "".
func secretWord(names ...string) string {
	for _, name := range names {
		words := splitWords(name)
		for i, w := range words {
			for _, s := range secretWords {
				if w == s || len(w) == len(s)+1 && w[len(s)] == 's' && w[:len(s)] == s {
					return s
				}
			}
			for _, p := range secretPhrases {
				if i+len(p) <= len(words) && equalWords(words[i:i+len(p)], p) {
					return strings.Join(p, " ")
				}
			}
		}
	}
	return ""
}

func equalWords(a, b []string) bool {
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// splitWords splits an identifier or phrase into lower-case words:
// "userAPIKey" → user, api, key; "card_number" → card, number;
// "CVV2" → cvv, 2.
func splitWords(s string) []string {
	var words []string
	runes := []rune(s)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(runes[start:end])))
		}
		start = -1
	}
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := runes[i-1]
		switch {
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]) && !pluralS(runes, i+1):
			flush(i)
			start = i
		}
	}
	flush(len(runes))
	return words
}

// pluralS reports whether runes[i] is a lone plural "s" after an acronym
// ("PINs", "SSNs"): an "s" that ends the word.
func pluralS(runes []rune, i int) bool {
	return runes[i] == 's' && (i+1 == len(runes) || !unicode.IsLower(runes[i+1]))
}
