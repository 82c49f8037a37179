package runtime

import (
	"log/slog"

	"github.com/elicitgen/elicitgen/internal/seal"
)

// A Keyring seals and opens the state a flow carries between rounds (the
// requestState, flow tokens, sealed store values): AES-256-GCM keys, newest
// first; the first seals, all open, so keys rotate without dropping flows
// in progress. Share one keyring among every instance of a server.
//
// It is opaque: make one with LoadKeyring (or NewKeyring, RandomKeyring)
// and pass it in ToolOptions.Keys and to the sign-in pages and the Redis
// stores.
type Keyring seal.Keyring

// KeysEnv is the environment variable [LoadKeyring] reads: a
// comma-separated list of base64-encoded 32-byte keys, newest first.
const KeysEnv = "ELICITGEN_STATE_KEYS"

// LoadKeyring returns the process-wide keyring of ELICITGEN_STATE_KEYS
// ([KeysEnv]), or a random key for this process, with a logged warning,
// when it is unset. Call it in main, report an error and exit, and pass
// the keyring in ToolOptions.Keys (and the sign-in pages' options). The
// error is one line that names the entry at fault, never its contents.
func LoadKeyring() (*Keyring, error) { return ring(seal.LoadKeyring()) }

// NewKeyring returns a keyring of the given 32-byte keys, newest first.
func NewKeyring(keys ...[]byte) (*Keyring, error) { return ring(seal.NewKeyring(keys...)) }

// RandomKeyring returns a keyring of one random key: states it seals open
// only in this process, until it exits (tests, single-instance servers).
func RandomKeyring() *Keyring { return (*Keyring)(seal.RandomKeyring()) }

// KeyringFromEnv is [LoadKeyring] for another variable name, with its
// warning logged to logger (nil: slog's default).
func KeyringFromEnv(name string, logger *slog.Logger) (*Keyring, error) {
	return ring(seal.KeyringFromEnv(name, logger))
}

// ring converts what the seal package returns.
func ring(k *seal.Keyring, err error) (*Keyring, error) { return (*Keyring)(k), err }

// KeySize is the size of a key in bytes: 32, for AES-256-GCM.
const KeySize = 32

// GenerateKey returns a new random key, base64-encoded, for
// ELICITGEN_STATE_KEYS.
func GenerateKey() string { return seal.GenerateKey() }
