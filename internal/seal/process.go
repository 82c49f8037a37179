package seal

import (
	"fmt"
	"strings"
	"sync"
)

// processKeyring reads ELICITGEN_STATE_KEYS once per process, so that
// [LoadKeyring] and [DefaultKeyring] agree (one random key when it is unset,
// and one warning).
var processKeyring = sync.OnceValues(func() (*Keyring, error) { return keyringWithFix(KeysEnv) })

// keyringWithFix is [KeyringFromEnv] with the error worded for a person:
// no package prefix, and [KeysFix] after it.
func keyringWithFix(name string) (*Keyring, error) {
	k, err := KeyringFromEnv(name, nil)
	if err != nil {
		return nil, fmt.Errorf("%s; %s", strings.TrimPrefix(err.Error(), "elicitrt: "), KeysFix)
	}
	return k, nil
}

// KeysFix is the remedy that [LoadKeyring] appends to its errors, for a
// person reading a server's start-up failure.
const KeysFix = "set it to a comma-separated list of base64-encoded 32-byte keys, newest first " +
	"(generate one with: head -c 32 /dev/urandom | base64), or unset it for a random per-process key"

// LoadKeyring returns the process-wide keyring of the ELICITGEN_STATE_KEYS
// environment variable ([KeysEnv]; see [KeyringFromEnv] for its format), or
// a random key for this process, with a logged warning, when it is unset.
// This is the documented way to obtain the keys at start-up: call it in
// main, report an error and exit, and pass the keyring in
// ToolOptions.Keys (and ConnectOptions.Keys). The error is one line that
// names the variable, the entry at fault (never its contents) and the fix
// ([KeysFix]), e.g.
//
//	ELICITGEN_STATE_KEYS: entry 2 is not valid base64; set it to a comma-separated list ...
//
// The variable is read once per process: later calls, and [DefaultKeyring],
// return the same result.
func LoadKeyring() (*Keyring, error) { return processKeyring() }

// DefaultKeyring is the keyring that machines and connect pages use when
// their options name none: [LoadKeyring]'s. It panics if ELICITGEN_STATE_KEYS
// is malformed (at first use, so at start-up in practice) rather than serve
// with a key nobody meant; to report that as an error instead, call
// [LoadKeyring] at start and pass its keyring explicitly, as the examples do.
func DefaultKeyring() *Keyring {
	k, err := processKeyring()
	if err != nil {
		// Called by NewMachine and NewConnectHandlers, when a server is
		// built, never by a call; the examples and the documented set-up
		// use LoadKeyring and exit with one line instead.
		panic("elicitgen: " + err.Error())
	}
	return k
}
