package seal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
)

// Refusal says why a state, a token or a link was refused: for the
// operator's log and metrics, never for the client, which is told that it
// is invalid or expired whatever the reason. Its String is one of a closed
// set, the reason label of the refusals' series.
type Refusal uint8

const (
	// NotRefused: the state opened.
	NotRefused Refusal = iota
	// RefusedTampered: not a state of this server's format, or altered.
	RefusedTampered
	// RefusedUnknownKey: sealed by a key the ring lacks (another
	// deployment's, or one rotated out; or no key at all).
	RefusedUnknownKey
	// RefusedExpired: sealed longer ago than its lifetime.
	RefusedExpired
	// RefusedOtherCall: sealed for another tool, or other arguments.
	RefusedOtherCall
	// RefusedOtherUser: sealed for another principal.
	RefusedOtherUser
	// RefusedOtherAudience: sealed under another ToolOptions.Audience, by
	// an instance that shares the key ring.
	RefusedOtherAudience
	// RefusedUsed: a single-use token or flow already used (the replay
	// guard's claim refused); Open never says it, its callers do.
	RefusedUsed
)

var refusalNames = [...]string{
	NotRefused:           "",
	RefusedTampered:      "tampered",
	RefusedUnknownKey:    "unknown_key",
	RefusedExpired:       "expired",
	RefusedOtherCall:     "other_call",
	RefusedOtherUser:     "other_user",
	RefusedOtherAudience: "other_audience",
	RefusedUsed:          "already_used",
}

// String is the refusal's label: "tampered", "unknown_key", "expired",
// "other_call", "other_user", "other_audience" or "already_used".
func (r Refusal) String() string {
	if int(r) < len(refusalNames) {
		return refusalNames[r]
	}
	return "tampered"
}

// Refusals lists every Refusal but NotRefused, in order.
func Refusals() []Refusal {
	return []Refusal{RefusedTampered, RefusedUnknownKey, RefusedExpired, RefusedOtherCall, RefusedOtherUser, RefusedOtherAudience, RefusedUsed}
}

// refusal is the Refusal of an open that failed with r.
func (r openResult) refusal() Refusal {
	switch r {
	case openOK:
		return NotRefused
	case openNoKeys, openUnknownKey:
		return RefusedUnknownKey
	case openExpired:
		return RefusedExpired
	case openOtherCall:
		return RefusedOtherCall
	case openOtherUser:
		return RefusedOtherUser
	case openOtherAudience:
		return RefusedOtherAudience
	}
	return RefusedTampered
}

// bindingTagSize is the size of each of a state's three binding tags.
const bindingTagSize = 4

// bindingTagDomain separates the tags from the ring's other PRF values.
const bindingTagDomain = "elicitgen state binding tag v1\x00"

// The parts of a binding that a tag covers, in the state's order.
const (
	tagCall = iota
	tagUser
	tagAudience
)

// bindingTags writes into dst (tagsSize bytes) the tags of b's parts under
// nonce, and returns it: each the first bytes of SHA-256 over the key's PRF
// key, a domain, the nonce, the part's number and the part (a secret
// prefix, and a truncated digest that no one can extend). It allocates
// nothing: the input is built in a pooled scratch buffer.
func (e *keyEntry) bindingTags(dst, nonce []byte, b *Binding) []byte {
	parts := [3]string{tagCall: b.Tool, tagUser: b.Principal, tagAudience: b.Audience}
	longest := max(len(b.Tool), len(b.Principal), len(b.Audience))
	bufp := getScratch(len(e.prf) + len(bindingTagDomain) + len(nonce) + 1 + len(b.ArgsDigest) + binary.MaxVarintLen64 + longest)
	for i, part := range parts {
		buf := append((*bufp)[:0], e.prf[:]...)
		buf = append(buf, bindingTagDomain...)
		buf = append(buf, nonce...)
		buf = append(buf, byte(i))
		if i == tagCall {
			buf = append(buf, b.ArgsDigest[:]...)
		}
		buf = binary.AppendUvarint(buf, uint64(len(part)))
		buf = append(buf, part...)
		sum := sha256.Sum256(buf)
		copy(dst[i*bindingTagSize:], sum[:bindingTagSize])
	}
	putScratch(bufp)
	return dst[:tagsSize]
}

// mismatch says why a state with tags, sealed under nonce, did not open
// under b: the part whose tag differs (the audience first, then the user,
// then the call), or, when every tag or none differs, tampered (or sealed
// by another key of the same id). The tags are a diagnosis, not a proof:
// whoever alters a state can alter them too.
func (e *keyEntry) mismatch(nonce, tags []byte, b *Binding) openResult {
	var want [tagsSize]byte
	e.bindingTags(want[:], nonce, b)
	differs := func(part int) bool {
		at := part * bindingTagSize
		return !hmac.Equal(want[at:at+bindingTagSize], tags[at:at+bindingTagSize])
	}
	call, user, audience := differs(tagCall), differs(tagUser), differs(tagAudience)
	switch {
	case call && user && audience:
		return openAuthFailed
	case audience:
		return openOtherAudience
	case user:
		return openOtherUser
	case call:
		return openOtherCall
	}
	return openAuthFailed
}

// entry returns the key of id, or nil.
func (k *Keyring) entry(id uint32) *keyEntry {
	for i := range k.keys {
		if k.keys[i].id == id {
			return &k.keys[i]
		}
	}
	return nil
}
