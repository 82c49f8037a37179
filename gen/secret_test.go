package gen

import (
	"reflect"
	"testing"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"_-  ", nil},
		{"name", []string{"name"}},
		{"Name", []string{"name"}},
		{"userName", []string{"user", "name"}},
		{"UserName", []string{"user", "name"}},
		{"userAPIKey", []string{"user", "api", "key"}},
		{"APIKey", []string{"api", "key"}},
		{"HTTPServer", []string{"http", "server"}},
		{"ABC", []string{"abc"}},
		{"PINCode", []string{"pin", "code"}},
		{"userPIN", []string{"user", "pin"}},
		{"card_number", []string{"card", "number"}},
		{"private-key", []string{"private", "key"}},
		{"My Password", []string{"my", "password"}},
		{"x-Y_z w", []string{"x", "y", "z", "w"}},
		{"CVV2", []string{"cvv", "2"}},
		{"ssnLast4", []string{"ssn", "last", "4"}},
		{"getHTTP2Conn", []string{"get", "http", "2", "conn"}},
		{"a1b", []string{"a", "1", "b"}},
		{"ÄpfelÖl", []string{"äpfel", "öl"}},
		{"Pinned", []string{"pinned"}},
		{"Tokenizer", []string{"tokenizer"}},
		// A plural acronym keeps its "s": "PINs" is the word "pins".
		{"IDs", []string{"ids"}},
		{"PINs", []string{"pins"}},
		{"SSNsToCheck", []string{"ssns", "to", "check"}},
	}
	for _, tt := range tests {
		if got := splitWords(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSecretWord: a word of secretWords, or a run of secretPhrases, found as
// whole words after splitWords. Words that merely contain a secret word
// (Pinned, Tokenizer, Secretary, passwordless) are not secret.
func TestSecretWord(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		// secret
		{[]string{"password"}, "password"},
		{[]string{"Password"}, "password"},
		{[]string{"NewPasswords"}, "password"},
		{[]string{"Passwd"}, "passwd"},
		{[]string{"passphrase"}, "passphrase"},
		{[]string{"DoorPasscode"}, "passcode"},
		{[]string{"clientSecret"}, "secret"},
		{[]string{"secrets"}, "secret"},
		{[]string{"AccessToken"}, "token"},
		{[]string{"refresh_tokens"}, "token"},
		{[]string{"api_key"}, "api key"},
		{[]string{"APIKey"}, "api key"},
		{[]string{"userAPIKeys"}, "api keys"},
		{[]string{"apikey"}, "apikey"},
		{[]string{"APIKEYS"}, "apikey"},
		{[]string{"credential"}, "credential"},
		{[]string{"credentials"}, "credential"},
		{[]string{"private-key"}, "private key"},
		{[]string{"PrivateKey"}, "private key"},
		{[]string{"privatekey"}, "privatekey"},
		{[]string{"CVV"}, "cvv"},
		{[]string{"CVV2"}, "cvv"},
		{[]string{"cvc"}, "cvc"},
		{[]string{"CardNumber"}, "card number"},
		{[]string{"cardnumber"}, "cardnumber"},
		{[]string{"CreditCardExpiry"}, "credit card"},
		{[]string{"ssn"}, "ssn"},
		{[]string{"SSNLast4"}, "ssn"},
		{[]string{"userPIN"}, "pin"},
		{[]string{"PINCode"}, "pin"},
		{[]string{"Pin"}, "pin"},
		{[]string{"OTP"}, "otp"},
		{[]string{"totp"}, "totp"},
		{[]string{"AWSAccessKey"}, "access key"},
		{[]string{"card_security_code"}, "security code"},
		{[]string{"SocialSecurityNumber"}, "social security"},
		{[]string{"Your password, please"}, "password"},
		// the first name with a secret word decides
		{[]string{"Name", "name", "Your password"}, "password"},
		{[]string{"Value", "value", "", "Token"}, "token"},
		{[]string{"Secret", "token"}, "secret"},

		// not secret
		{nil, ""},
		{[]string{"", ""}, ""},
		{[]string{"Name", "email", "Full name"}, ""},
		{[]string{"Pinned"}, ""},
		{[]string{"Spinner"}, ""},
		{[]string{"Tokenizer"}, ""},
		{[]string{"Secretary"}, ""},
		{[]string{"passwordless"}, ""},
		{[]string{"Passport"}, ""},
		{[]string{"PublicKey"}, ""},
		{[]string{"KeyID"}, ""},
		{[]string{"API"}, ""},
		{[]string{"APIVersion"}, ""},
		{[]string{"CardHolder"}, ""},
		{[]string{"Credit"}, ""},
		{[]string{"SecurityLevel"}, ""},
		{[]string{"SocialLinks"}, ""},
		{[]string{"Accessible"}, ""},
		{[]string{"Keyboard"}, ""},
		// "api" and "key" in different names are not a phrase
		{[]string{"api", "key"}, ""},
		// Plurals of secret words, acronyms included, are secret.
		{[]string{"PINs"}, "pin"},
		{[]string{"userSSNs"}, "ssn"},
	}
	for _, tt := range tests {
		if got := secretWord(tt.names...); got != tt.want {
			t.Errorf("secretWord(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

// TestSecretWordDoesNotAllocate: the scan runs for every field of every
// form; on ASCII names, found or not, it allocates nothing but the phrase
// it returns.
func TestSecretWordDoesNotAllocate(t *testing.T) {
	for _, names := range [][]string{
		{"DeliveryNotes", "delivery_notes", "Delivery notes", "Notes"},
		{"userAPIKeys"},
		{"ClientSecret", "client_secret"},
		{"averyveryverylongwordthatisnotasecret", "CVV2"},
	} {
		if n := testing.AllocsPerRun(100, func() { secretWord(names...) }); n != 0 {
			t.Errorf("secretWord(%q): %v allocations, want 0", names, n)
		}
	}
}

// TestSecretPhrasesSpellTheirWords: each phrase a diagnostic names is its
// two words.
func TestSecretPhrasesSpellTheirWords(t *testing.T) {
	for _, p := range secretPhrases {
		if p.phrase != p.first+" "+p.second {
			t.Errorf("phrase %q for %q, %q", p.phrase, p.first, p.second)
		}
	}
}
