package seal

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"log/slog"
	"strings"
	"testing"
)

func TestNewKeyringErrors(t *testing.T) {
	cases := map[string][][]byte{
		"no keys":        nil,
		"empty key":      {{}},
		"short key":      {make([]byte, 31)},
		"long key":       {make([]byte, 33)},
		"AES-128 key":    {make([]byte, 16)},
		"bad second key": {testKey(1), make([]byte, 24)},
		"duplicate key":  {testKey(1), testKey(2), testKey(1)},
	}
	for name, keys := range cases {
		t.Run(name, func(t *testing.T) {
			k, err := NewKeyring(keys...)
			if err == nil || k != nil {
				t.Fatalf("NewKeyring = %v, %v; want error", k, err)
			}
		})
	}
}

func TestKeyID(t *testing.T) {
	key := testKey(1)
	sum := sha256.Sum256(append([]byte("elicitgen requestState key id v1\x00"), key...))
	if got, want := keyID(key), binary.BigEndian.Uint32(sum[:4]); got != want {
		t.Fatalf("keyID = %08x, want %08x", got, want)
	}
	seen := map[uint32]bool{}
	for i := range 64 {
		id := keyID(testKey(byte(i)))
		if seen[id] {
			t.Fatalf("key id collision among test keys at %d", i)
		}
		seen[id] = true
	}
}

func TestKeyringFirstKeySealsAllOpen(t *testing.T) {
	a, b, c := testKey(1), testKey(2), testKey(3)
	ring := mustKeyring(t, a, b, c)
	s := mustSeal(ring, testBinding, 1, nil, testNow, 0)
	if id := binary.BigEndian.Uint32(decodeState(t, s)); id != keyID(a) {
		t.Fatalf("sealed with key id %08x, want first key %08x", id, keyID(a))
	}
	for _, key := range [][]byte{a, b, c} {
		s := mustSeal(mustKeyring(t, key), testBinding, 2, []byte("x"), testNow, 0)
		if r, p, err := ring.Open(testBinding, s, testNow); err != nil || r != 2 || string(p) != "x" {
			t.Fatalf("ring cannot open a state of one of its keys: %v", err)
		}
	}
}

func TestKeyringDoesNotAliasKeyBytes(t *testing.T) {
	key := testKey(1)
	ring := mustKeyring(t, key)
	s := mustSeal(ring, testBinding, 1, []byte("x"), testNow, 0)
	clear(key)
	if _, _, err := ring.Open(testBinding, s, testNow); err != nil {
		t.Fatalf("Open after the caller cleared its key slice: %v", err)
	}
	if _, _, err := mustKeyring(t, testKey(1)).Open(testBinding, mustSeal(ring, testBinding, 1, nil, testNow, 0), testNow); err != nil {
		t.Fatalf("ring changed its key after the caller cleared its key slice: %v", err)
	}
}

func TestRandomKeyring(t *testing.T) {
	a, b := RandomKeyring(), RandomKeyring()
	s := mustSeal(a, testBinding, 1, []byte("x"), testNow, 0)
	if _, _, err := a.Open(testBinding, s, testNow); err != nil {
		t.Fatalf("random keyring cannot open its own state: %v", err)
	}
	assertRejected(t, b, testBinding, s, testNow, openUnknownKey)
}

func TestGenerateKey(t *testing.T) {
	k1, k2 := GenerateKey(), GenerateKey()
	if k1 == k2 {
		t.Fatal("GenerateKey repeats")
	}
	raw, err := base64.StdEncoding.DecodeString(k1)
	if err != nil || len(raw) != KeySize {
		t.Fatalf("GenerateKey() = %q: %d bytes, %v", k1, len(raw), err)
	}
	t.Setenv(KeysEnv, k1+","+k2)
	ring, err := KeyringFromEnv(KeysEnv, nil)
	if err != nil {
		t.Fatalf("KeyringFromEnv(generated keys): %v", err)
	}
	if id := binary.BigEndian.Uint32(decodeState(t, mustSeal(ring, testBinding, 0, nil, testNow, 0))); id != keyID(raw) {
		t.Fatal("generated key is not the sealing key")
	}
}

// captureLogger returns a logger that writes text records to buf.
func captureLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestKeyringFromEnv(t *testing.T) {
	const name = "ELICITGEN_TEST_STATE_KEYS"
	k1, k2 := testKey(1), testKey(2)
	std := base64.StdEncoding.EncodeToString
	spellings := map[string]string{
		"std padded":   std(k1),
		"std raw":      base64.RawStdEncoding.EncodeToString(k1),
		"url padded":   base64.URLEncoding.EncodeToString(k1),
		"url raw":      base64.RawURLEncoding.EncodeToString(k1),
		"whitespace":   " \t" + std(k1) + "\n",
		"with newline": std(k1)[:20] + std(k1)[20:],
	}
	want := mustSeal(mustKeyring(t, k1), testBinding, 7, []byte("from k1"), testNow, 0)
	for sp, val := range spellings {
		t.Run(sp, func(t *testing.T) {
			t.Setenv(name, val)
			var logs bytes.Buffer
			ring, err := KeyringFromEnv(name, captureLogger(&logs))
			if err != nil {
				t.Fatalf("KeyringFromEnv: %v", err)
			}
			if r, p, err := ring.Open(testBinding, want, testNow); err != nil || r != 7 || string(p) != "from k1" {
				t.Fatalf("env keyring cannot open a k1 state: %v", err)
			}
			if logs.Len() != 0 {
				t.Fatalf("unexpected log output: %s", logs.String())
			}
		})
	}

	t.Run("rotation list", func(t *testing.T) {
		t.Setenv(name, " "+std(k2)+" , "+base64.RawURLEncoding.EncodeToString(k1)+" ")
		ring, err := KeyringFromEnv(name, nil)
		if err != nil {
			t.Fatalf("KeyringFromEnv: %v", err)
		}
		if _, _, err := ring.Open(testBinding, want, testNow); err != nil {
			t.Fatalf("cannot open a state of the old (second) key: %v", err)
		}
		s := mustSeal(ring, testBinding, 1, nil, testNow, 0)
		if id := binary.BigEndian.Uint32(decodeState(t, s)); id != keyID(k2) {
			t.Fatalf("sealed with key id %08x, want first listed key %08x", id, keyID(k2))
		}
	})

	bad := []struct {
		name, val, wantErr string
	}{
		{"not base64", "not*base64!", "entry 1 is not valid base64"},
		{"bad second entry", std(k1) + ",%%%%", "entry 2 is not valid base64"},
		{"bad padding", std(k1)[:43] + "==", "entry 1 is not valid base64"},
		{"16-byte key", std(make([]byte, 16)), "entry 1 decodes to 16 bytes, want 32"},
		{"64-byte key", std(append(bytes.Clone(k1), k2...)), "entry 1 decodes to 64 bytes, want 32"},
		{"wrong length third", std(k1) + "," + std(k2) + "," + std(make([]byte, 31)), "entry 3 decodes to 31 bytes"},
		{"empty entry", std(k1) + ",," + std(k2), "entry 2 is empty"},
		{"trailing comma", std(k1) + ",", "entry 2 is empty"},
		{"duplicate", std(k1) + "," + base64.RawURLEncoding.EncodeToString(k1), "key 2 has the same key id as key 1"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(name, c.val)
			ring, err := KeyringFromEnv(name, nil)
			if err == nil || ring != nil {
				t.Fatalf("KeyringFromEnv = %v, %v; want error", ring, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.wantErr) || !strings.Contains(msg, name) {
				t.Fatalf("error %q does not contain %q and the variable name", msg, c.wantErr)
			}
			for _, entry := range strings.Split(c.val, ",") {
				if len(entry) >= 4 && strings.Contains(msg, entry) {
					t.Fatalf("error %q leaks entry %q", msg, entry)
				}
			}
		})
	}
}

func TestKeyringFromEnvUnset(t *testing.T) {
	const name = "ELICITGEN_TEST_STATE_KEYS_UNSET"
	for _, val := range []string{"", "  \n"} {
		t.Setenv(name, val)
		var logs bytes.Buffer
		a, err := KeyringFromEnv(name, captureLogger(&logs))
		if err != nil || a == nil {
			t.Fatalf("KeyringFromEnv(%q) = %v, %v", val, a, err)
		}
		out := logs.String()
		for _, want := range []string{"level=WARN", name, "random per-process", "another instance", "will fail"} {
			if !strings.Contains(out, want) {
				t.Errorf("warning %q lacks %q", out, want)
			}
		}
		if strings.Count(out, "level=") != 1 {
			t.Errorf("want exactly one log record, got %q", out)
		}
		// Each process (here: each call) gets its own key.
		b, _ := KeyringFromEnv(name, captureLogger(&bytes.Buffer{}))
		s := mustSeal(a, testBinding, 1, nil, testNow, 0)
		if _, _, err := a.Open(testBinding, s, testNow); err != nil {
			t.Fatalf("random keyring cannot open its own state: %v", err)
		}
		assertRejected(t, b, testBinding, s, testNow, openUnknownKey)
	}

	// A nil logger means slog.Default().
	var logs bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(captureLogger(&logs))
	t.Cleanup(func() { slog.SetDefault(prev) })
	t.Setenv(name, "")
	if _, err := KeyringFromEnv(name, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), name) {
		t.Fatalf("nil logger: default logger got %q", logs.String())
	}
}
