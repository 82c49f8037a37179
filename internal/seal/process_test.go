package seal

import (
	"encoding/base64"
	"strings"
	"testing"
)

// The error LoadKeyring returns for a malformed ELICITGEN_STATE_KEYS is one
// line that names the variable, the entry at fault and the fix, and never
// shows the value.
func TestLoadKeyringErrorIsOneLineWithTheFix(t *testing.T) {
	const name = "ELICITGEN_TEST_LOAD_KEYRING"
	good := base64.StdEncoding.EncodeToString([]byte("load-keyring-test-key-0123456789"))
	cases := []struct{ value, want string }{
		{good + ",secret%%%", "entry 2 is not valid base64"},
		{base64.StdEncoding.EncodeToString([]byte("secret-but-short")), "entry 1 decodes to 16 bytes, want 32"},
		{good + ", ,", "entry 2 is empty"},
		{good + "," + good, "key 2 has the same key id as key 1 (duplicate key?)"},
	}
	for _, c := range cases {
		t.Setenv(name, c.value)
		k, err := keyringWithFix(name)
		if err == nil || k != nil {
			t.Fatalf("%q: got a keyring, want an error", c.value)
		}
		msg := err.Error()
		if want := name + ": " + c.want + "; " + KeysFix; msg != want {
			t.Errorf("%q: error %q, want %q", c.value, msg, want)
		}
		if strings.ContainsAny(msg, "\n\r") || strings.Contains(msg, "secret") || strings.Contains(msg, good) {
			t.Errorf("%q: error %q is not one line free of the value", c.value, msg)
		}
	}
	t.Setenv(name, good)
	if k, err := keyringWithFix(name); err != nil || k == nil {
		t.Fatalf("well-formed value: %v", err)
	}
}

// LoadKeyring and DefaultKeyring read the variable once and agree.
func TestLoadKeyringIsTheDefault(t *testing.T) {
	k, err := LoadKeyring()
	if err != nil {
		t.Skipf("ELICITGEN_STATE_KEYS is malformed in this environment: %v", err)
	}
	if k2, _ := LoadKeyring(); k2 != k {
		t.Error("LoadKeyring returned two keyrings")
	}
	if DefaultKeyring() != k {
		t.Error("DefaultKeyring differs from LoadKeyring")
	}
}
