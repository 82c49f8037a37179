package runtime

import (
	"errors"
	"strings"
	"time"

	"github.com/elicitgen/elicitgen/internal/seal"
)

// A RecordBinding names a record that a store keeps sealed by the key
// ring (a grant, a sign-in's user, a task's record): a value sealed under
// one binding opens only under the same one, so a value copied to
// another record's key does not open.
type RecordBinding struct {
	// Kind says what the record is, for example "elicitgen grant". It
	// holds a space, so that no tool is called so: a sealed record never
	// opens as a requestState, nor a requestState as a record.
	Kind string
	// Digest says which record it is: a digest (SHA-256) of what the
	// store keys it by, never the key itself.
	Digest [32]byte
}

// MaxRecordLen is the longest value [Keyring.SealRecord] seals in one
// part (49,093 bytes); a store seals a longer one in parts.
const MaxRecordLen = seal.MaxPayloadLen

// errRecordKind is the error of a RecordBinding whose Kind could be a
// tool's name.
var errRecordKind = errors.New("elicitrt: a RecordBinding's Kind must hold a space (no tool is called so)")

// SealRecord seals value, part number part of the record b, for a store:
// AES-256-GCM under the ring's first key, opened by [Keyring.OpenRecord]
// with the same binding until now+ttl, that instant included (ttl <= 0: [DefaultStateTTL]). The
// result is URL-safe text. It is an error when the ring is nil or empty,
// when b.Kind holds no space, and when value is longer than
// [MaxRecordLen].
func (k *Keyring) SealRecord(b RecordBinding, part uint32, value []byte, now time.Time, ttl time.Duration) (string, error) {
	if !strings.Contains(b.Kind, " ") {
		return "", errRecordKind
	}
	return (*seal.Keyring)(k).Seal(b.seal(), part, value, now, ttl)
}

// OpenRecord opens what [Keyring.SealRecord] sealed under b, and returns
// its part number and value. Every failure (another binding, a key no
// longer in the ring, an altered or expired value) is one error, which
// tells nothing of the cause.
func (k *Keyring) OpenRecord(b RecordBinding, sealed string, now time.Time) (part uint32, value []byte, err error) {
	if !strings.Contains(b.Kind, " ") {
		return 0, nil, errRecordKind
	}
	return (*seal.Keyring)(k).Open(b.seal(), sealed, now)
}

// seal is the binding the seal package seals b under.
func (b RecordBinding) seal() seal.Binding {
	return seal.Binding{Tool: b.Kind, ArgsDigest: b.Digest}
}
