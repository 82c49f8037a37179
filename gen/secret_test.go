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
		// Known edge: a plural acronym splits before its last capital
		// ("IDs" → i, ds), so "PINs" is not the word "pin".
		{"IDs", []string{"i", "ds"}},
		{"PINs", []string{"pi", "ns"}},
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
		{[]string{"NewPasswords"}, "passwords"},
		{[]string{"Passwd"}, "passwd"},
		{[]string{"passphrase"}, "passphrase"},
		{[]string{"DoorPasscode"}, "passcode"},
		{[]string{"clientSecret"}, "secret"},
		{[]string{"secrets"}, "secrets"},
		{[]string{"AccessToken"}, "token"},
		{[]string{"refresh_tokens"}, "tokens"},
		{[]string{"api_key"}, "api key"},
		{[]string{"APIKey"}, "api key"},
		{[]string{"userAPIKeys"}, "api keys"},
		{[]string{"apikey"}, "apikey"},
		{[]string{"APIKEYS"}, "apikeys"},
		{[]string{"credential"}, "credential"},
		{[]string{"credentials"}, "credentials"},
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
		// Known edge: plural acronyms split oddly (see TestSplitWords).
		{[]string{"PINs"}, ""},
	}
	for _, tt := range tests {
		if got := secretWord(tt.names...); got != tt.want {
			t.Errorf("secretWord(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}
