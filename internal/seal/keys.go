package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
)

// KeysEnv is the documented name of the environment variable that holds the
// requestState sealing keys: a comma-separated list of base64-encoded 32-byte
// keys, newest first. See [KeyringFromEnv].
const KeysEnv = "ELICITGEN_STATE_KEYS"

// KeySize is the size in bytes of a requestState key (AES-256).
const KeySize = 32

// keyIDSize is the size of the key id that prefixes every sealed state.
const keyIDSize = 4

// keyIDDomain separates key-id derivation from any other use of SHA-256 over
// the key.
const keyIDDomain = "elicitgen requestState key id v1\x00"

// keyEntry is one key of a Keyring: its id and its ready-to-use AEAD.
type keyEntry struct {
	id   uint32
	aead cipher.AEAD
	// prf is a key of its own derived from the key, for the values the
	// ring derives rather than draws (link.go).
	prf [sha256.Size]byte
}

// Keyring holds the keys used to seal and open requestState values.
//
// The first key seals; every key opens. To rotate, put the new key first and
// keep the old keys after it until the states they sealed have expired (see
// [DefaultStateTTL]), then drop them.
//
// A Keyring is immutable after construction and safe for concurrent use.
// It does not retain the raw key bytes.
type Keyring struct {
	keys []keyEntry // keys[0] seals
	// random is set on a RandomKeyring: only this process opens what it
	// seals.
	random bool
}

// Random reports whether k is a RandomKeyring (ELICITGEN_STATE_KEYS
// unset): no other process opens what it seals.
func (k *Keyring) Random() bool { return k != nil && k.random }

// NewKeyring returns a Keyring over keys. Each key must be exactly [KeySize]
// bytes and at least one key is required. The first key seals new states;
// all keys open them. Keys whose derived 4-byte ids collide (including
// duplicate keys) are rejected.
func NewKeyring(keys ...[]byte) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("elicitrt: keyring needs at least one key")
	}
	k := &Keyring{keys: make([]keyEntry, 0, len(keys))}
	for i, key := range keys {
		if len(key) != KeySize {
			return nil, fmt.Errorf("elicitrt: key %d is %d bytes, want %d", i+1, len(key), KeySize)
		}
		id := keyID(key)
		for j, e := range k.keys {
			if e.id == id {
				return nil, fmt.Errorf("elicitrt: key %d has the same key id as key %d (duplicate key?)", i+1, j+1)
			}
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, fmt.Errorf("elicitrt: key %d: %v", i+1, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("elicitrt: key %d: %v", i+1, err)
		}
		k.keys = append(k.keys, keyEntry{id: id, aead: aead, prf: derivePRF(key)})
	}
	return k, nil
}

// keyID derives the public 4-byte id of key.
func keyID(key []byte) uint32 {
	h := sha256.New()
	h.Write([]byte(keyIDDomain))
	h.Write(key)
	var sum [sha256.Size]byte
	return binary.BigEndian.Uint32(h.Sum(sum[:0]))
}

// RandomKeyring returns a Keyring with a single fresh random key. States it
// seals can be opened only by the same Keyring value, so it suits tests and
// single-process servers only.
func RandomKeyring() *Keyring {
	var key [KeySize]byte
	rand.Read(key[:]) // never fails (Go 1.24+: crashes the program instead)
	k, err := NewKeyring(key[:])
	clear(key[:])
	if err != nil {
		panic("elicitrt: " + err.Error()) // unreachable: the key is well-formed
	}
	k.random = true
	return k
}

// GenerateKey returns a fresh random key in padded standard base64, suitable
// as an entry of [KeysEnv].
func GenerateKey() string {
	var key [KeySize]byte
	rand.Read(key[:])
	s := base64.StdEncoding.EncodeToString(key[:])
	clear(key[:])
	return s
}

// keyEncodings are the accepted spellings of a key in the environment.
var keyEncodings = []*base64.Encoding{
	base64.StdEncoding.Strict(),
	base64.RawStdEncoding.Strict(),
	base64.URLEncoding.Strict(),
	base64.RawURLEncoding.Strict(),
}

// KeyringFromEnv builds a Keyring from the environment variable name
// (normally [KeysEnv]). Its value is a comma-separated list of base64 keys
// (standard or URL alphabet, padded or not), each decoding to [KeySize] bytes,
// newest (sealing) key first; whitespace around entries is ignored. A
// malformed entry is an error that names the entry's position but never its
// contents.
//
// If the variable is unset or blank, KeyringFromEnv returns a random
// per-process Keyring (see [RandomKeyring]) and logs a warning on logger
// (slog.Default() if nil): only this process can then open the states it
// issues, so a retry served by another instance, or after a restart, fails.
func KeyringFromEnv(name string, logger *slog.Logger) (*Keyring, error) {
	val := strings.TrimSpace(os.Getenv(name))
	if val == "" {
		if logger == nil {
			logger = slog.Default()
		}
		logger.Warn(name+" is not set: using a random per-process requestState key; "+
			"only this process can open the states it issues, so retries served by another "+
			"instance (or after a restart) will fail. Set "+name+" to a shared key list "+
			"(generate one with: head -c 32 /dev/urandom | base64).",
			"env", name)
		return RandomKeyring(), nil
	}
	entries := strings.Split(val, ",")
	keys := make([][]byte, 0, len(entries))
	defer func() {
		for _, key := range keys {
			clear(key)
		}
	}()
	for i, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			return nil, fmt.Errorf("elicitrt: %s: entry %d is empty", name, i+1)
		}
		key, ok := decodeKey(e)
		if !ok {
			return nil, fmt.Errorf("elicitrt: %s: entry %d is not valid base64", name, i+1)
		}
		keys = append(keys, key)
		if len(key) != KeySize {
			return nil, fmt.Errorf("elicitrt: %s: entry %d decodes to %d bytes, want %d", name, i+1, len(key), KeySize)
		}
	}
	k, err := NewKeyring(keys...)
	if err != nil {
		return nil, fmt.Errorf("elicitrt: %s: %v", name, strings.TrimPrefix(err.Error(), "elicitrt: "))
	}
	return k, nil
}

// decodeKey decodes one key entry in any accepted base64 spelling.
func decodeKey(s string) ([]byte, bool) {
	for _, enc := range keyEncodings {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}
