package seal

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// A sealed requestState has the form
//
//	"s2." base64url-unpadded( keyID[4] | nonce[12] | tags[12] | AES-256-GCM(plaintext, AD) )
//
// where plaintext = expiry[8] (big-endian Unix nanoseconds) | round[4]
// (big-endian) | payload, the GCM tag (16 bytes) is appended to the
// ciphertext, and the additional data AD = "elicitgen.s2" | keyID[4] |
// tags[12] | uvarint(len(tool)) | tool | argsDigest[32] |
// uvarint(len(principal)) | principal | uvarint(len(audience)) | audience.
// The key id selects the opening key; the AD binds the state to its tool
// call without storing the binding in the state. The tags are three 4-byte
// PRFs, under the key, of the nonce and each part of the binding (the call:
// tool and arguments; the principal; the audience): a state that does not
// open under a binding tells the operator which part differs (Refusal),
// and nobody without the key anything. States of the first format, "s1."
// (no tags, "elicitgen.s1" in the AD), still open, for a deploy that
// rolls over states sealed by the release before.
const (
	statePrefix   = "s2."
	adVersion     = "elicitgen.s2"
	statePrefixV1 = "s1."
	adVersionV1   = "elicitgen.s1"

	nonceSize     = 12
	tagSize       = 16
	tagsSize      = 3 * bindingTagSize
	expirySize    = 8
	roundSize     = 4
	headerSize    = keyIDSize + nonceSize + tagsSize              // cleartext part
	stateOverhead = headerSize + expirySize + roundSize + tagSize // raw bytes besides payload
	headerSizeV1  = keyIDSize + nonceSize

	// maxRawLen is the longest raw state whose encoding fits in MaxStateLen.
	maxRawLen = (MaxStateLen - len(statePrefix)) * 3 / 4
)

// MaxStateLen is the longest requestState, in bytes of its string form, that
// [Keyring.Open] accepts. Longer strings are rejected before any decoding.
const MaxStateLen = 64 << 10

// MaxPayloadLen is the largest payload [Keyring.Seal] accepts: the longest
// payload whose sealed state still fits in [MaxStateLen] (49093 bytes).
const MaxPayloadLen = maxRawLen - stateOverhead

// DefaultStateTTL is the recommended lifetime of a sealed requestState, and
// the one [Keyring.Seal] uses when given a non-positive ttl.
const DefaultStateTTL = 10 * time.Minute

// minEncLen is the shortest possible encoded state (without prefix);
// minEncLenV1 the shortest of the first format.
var minEncLen, minEncLenV1 = b64EncodedLen(stateOverhead), b64EncodedLen(stateOverhead - tagsSize)

// ErrInvalid is the error [Keyring.Open] returns for every state it
// rejects, whatever the reason (malformed, tampered, bound to another tool
// call or principal, sealed by an unknown key, or expired), so that no detail
// leaks. The machine answers a client with its own JSON-RPC error in its
// place (elicitimpl's ErrInvalidState).
var ErrInvalid = errors.New("invalid or expired requestState")

// Binding is what a sealed state is bound to. A state opens only under the
// same Binding it was sealed with.
type Binding struct {
	// Tool is the name of the tool being called.
	Tool string
	// ArgsDigest is the digest of the call's arguments; see DigestArguments.
	ArgsDigest [32]byte
	// Principal identifies the authenticated user, or is empty when the
	// request is unauthenticated.
	Principal string
	// Audience names the server (deployment) the state is for, or is
	// empty. Servers that share a key ring but not their flows set
	// different audiences, so that neither opens the other's states.
	Audience string
}

// adLen returns the length of the additional data for b.
func (b *Binding) adLen() int {
	return len(adVersion) + keyIDSize + tagsSize +
		uvarintLen(uint64(len(b.Tool))) + len(b.Tool) +
		len(b.ArgsDigest) +
		uvarintLen(uint64(len(b.Principal))) + len(b.Principal) +
		uvarintLen(uint64(len(b.Audience))) + len(b.Audience)
}

// appendAD appends the additional data binding a state sealed by key id,
// with tags (none in the first format, of version adVersionV1), to b.
func (b *Binding) appendAD(dst []byte, version string, id uint32, tags []byte) []byte {
	dst = append(dst, version...)
	dst = binary.BigEndian.AppendUint32(dst, id)
	dst = append(dst, tags...)
	return b.appendParts(dst)
}

// appendParts appends the parts of b, each length-prefixed but the digest.
func (b *Binding) appendParts(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b.Tool)))
	dst = append(dst, b.Tool...)
	dst = append(dst, b.ArgsDigest[:]...)
	dst = binary.AppendUvarint(dst, uint64(len(b.Principal)))
	dst = append(dst, b.Principal...)
	dst = binary.AppendUvarint(dst, uint64(len(b.Audience)))
	dst = append(dst, b.Audience...)
	return dst
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// scratchPool holds Seal's working buffers (*[]byte).
var scratchPool sync.Pool

// maxPooledScratch bounds the size of buffers kept in scratchPool.
const maxPooledScratch = 256 << 10

// Seal seals payload into a requestState bound to b, carrying round, that
// [Keyring.Open] accepts until now+ttl (ttl <= 0 means [DefaultStateTTL]).
// It uses the first key of the ring. payload is opaque to Seal and is
// encrypted, not merely signed; Seal does not retain it.
//
// Seal returns [ErrNoKeys] if k is nil or empty and [ErrStateTooLarge] if
// len(payload) > [MaxPayloadLen]; it never panics.
func (k *Keyring) Seal(b Binding, round uint32, payload []byte, now time.Time, ttl time.Duration) (string, error) {
	if k == nil || len(k.keys) == 0 {
		return "", ErrNoKeys
	}
	if len(payload) > MaxPayloadLen {
		return "", ErrStateTooLarge
	}
	if ttl <= 0 {
		ttl = DefaultStateTTL
	}
	nowNS := now.UnixNano()
	exp := nowNS + int64(ttl)
	if exp < nowNS { // overflow
		exp = math.MaxInt64
	}
	// One scratch buffer: additional data | raw state.
	aLen := b.adLen()
	rawLen := stateOverhead + len(payload)
	bufp := getScratch(aLen + rawLen)
	buf := *bufp
	raw := buf[aLen : aLen+rawLen]
	k.sealRaw(raw, buf[:0], &b, round, payload, exp)

	// The state is encoded straight into the memory of the string returned.
	out := make([]byte, len(statePrefix)+b64EncodedLen(rawLen))
	copy(out, statePrefix)
	b64Encode(out[len(statePrefix):], raw)
	putScratch(bufp)
	return unsafe.String(unsafe.SliceData(out), len(out)), nil // out is not used again
}

// ErrNoKeys is the error of [Keyring.Seal] on a nil or empty Keyring.
var ErrNoKeys = errors.New("elicitrt: Seal on a nil or empty Keyring")

// ErrStateTooLarge is the error of [Keyring.Seal] for a payload over
// [MaxPayloadLen]: what a flow keeps between rounds did not fit in a
// requestState.
var ErrStateTooLarge = errors.New("elicitrt: requestState payload exceeds MaxPayloadLen (" + strconv.Itoa(MaxPayloadLen) + " bytes)")

// sealRaw writes the raw (unencoded) state of payload into raw, of length
// stateOverhead+len(payload), sealed by the first key of the ring and
// expiring at exp (Unix nanoseconds). The additional data is built in
// adBuf's memory (capacity b.adLen() avoids allocating).
func (k *Keyring) sealRaw(raw, adBuf []byte, b *Binding, round uint32, payload []byte, exp int64) {
	k.sealRawNonce(raw, adBuf, b, round, payload, exp, nil)
}

// sealRawNonce is sealRaw with the nonce fixed (nonceSize bytes: a link's
// synthetic one, link.go), or a random one when fixed is not of that size.
func (k *Keyring) sealRawNonce(raw, adBuf []byte, b *Binding, round uint32, payload []byte, exp int64, fixed []byte) {
	key := &k.keys[0]
	binary.BigEndian.PutUint32(raw, key.id)
	nonce := raw[keyIDSize : keyIDSize+nonceSize]
	if len(fixed) == nonceSize {
		copy(nonce, fixed)
	} else {
		rand.Read(nonce) // never fails (Go 1.24+: crashes the program instead)
	}
	tags := key.bindingTags(raw[keyIDSize+nonceSize:headerSize], nonce, b)
	ad := b.appendAD(adBuf[:0], adVersion, key.id, tags)
	pt := raw[headerSize : len(raw)-tagSize]
	binary.BigEndian.PutUint64(pt, uint64(exp))
	binary.BigEndian.PutUint32(pt[expirySize:], round)
	copy(pt[expirySize+roundSize:], payload)
	key.aead.Seal(pt[:0], nonce, pt, ad) // in place; fills raw up to its end
}

func getScratch(n int) *[]byte {
	if p, ok := scratchPool.Get().(*[]byte); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n)
	return &b
}

func putScratch(p *[]byte) {
	if cap(*p) <= maxPooledScratch {
		scratchPool.Put(p)
	}
}

// Open verifies and decrypts state, which the client echoed back and must be
// treated as attacker-controlled. It succeeds only if state was sealed by a
// key of k under the same Binding b and has not expired at now; it then
// returns the round and payload given to Seal. The payload is a new slice
// owned by the caller.
//
// Every failure returns [ErrInvalid] and nothing else.
func (k *Keyring) Open(b Binding, state string, now time.Time) (round uint32, payload []byte, err error) {
	round, payload, _, why := k.OpenReason(b, state, now)
	if why != NotRefused {
		return 0, nil, ErrInvalid
	}
	return round, payload, nil
}

// OpenExpiry is Open that also returns when state expires: the instant it
// was sealed at, plus the ttl given to Seal.
func (k *Keyring) OpenExpiry(b Binding, state string, now time.Time) (round uint32, payload []byte, expires time.Time, err error) {
	round, payload, expires, why := k.OpenReason(b, state, now)
	if why != NotRefused {
		return 0, nil, time.Time{}, ErrInvalid
	}
	return round, payload, expires, nil
}

// OpenReason is OpenExpiry that says why it refused a state, for the
// operator's log and metrics; a client is told ErrInvalid whatever the
// reason. It is NotRefused when the state opened.
func (k *Keyring) OpenReason(b Binding, state string, now time.Time) (round uint32, payload []byte, expires time.Time, why Refusal) {
	var exp int64
	round, payload, r := k.open(&b, state, now, &exp)
	if r != openOK {
		return 0, nil, time.Time{}, r.refusal()
	}
	return round, payload, time.Unix(0, exp), NotRefused
}

// openResult says why open rejected a state. It is for tests and server-side
// diagnostics only and never reaches the client.
type openResult uint8

const (
	openOK openResult = iota
	openNoKeys
	openTooLong
	openBadPrefix
	openTooShort
	openBadEncoding
	openUnknownKey
	openAuthFailed
	openExpired
	openOtherCall
	openOtherUser
	openOtherAudience
)

var openResultNames = [...]string{
	openOK:            "ok",
	openNoKeys:        "no keys",
	openTooLong:       "too long",
	openBadPrefix:     "bad prefix",
	openTooShort:      "too short",
	openBadEncoding:   "bad encoding",
	openUnknownKey:    "unknown key id",
	openAuthFailed:    "authentication failed",
	openExpired:       "expired",
	openOtherCall:     "another call",
	openOtherUser:     "another user",
	openOtherAudience: "another audience",
}

func (r openResult) String() string {
	if int(r) < len(openResultNames) {
		return openResultNames[r]
	}
	return "openResult(" + strconv.Itoa(int(r)) + ")"
}

// open is Open's work; a state that opens stores its expiry (Unix
// nanoseconds) in expires[0], when given.
func (k *Keyring) open(b *Binding, state string, now time.Time, expires ...*int64) (uint32, []byte, openResult) {
	if k == nil || len(k.keys) == 0 {
		return 0, nil, openNoKeys
	}
	if len(state) > MaxStateLen {
		return 0, nil, openTooLong
	}
	v1 := strings.HasPrefix(state, statePrefixV1)
	if !v1 && !strings.HasPrefix(state, statePrefix) {
		return 0, nil, openBadPrefix
	}
	enc := state[len(statePrefix):] // both prefixes are as long
	shortest := minEncLen
	if v1 {
		shortest = minEncLenV1
	}
	if len(enc) < shortest {
		return 0, nil, openTooShort
	}
	if len(enc)%4 == 1 { // no unpadded base64 has this length
		return 0, nil, openBadEncoding
	}

	// One buffer: raw state (decrypted in place) | additional data.
	rawLen := b64DecodedLen(len(enc))
	buf := make([]byte, rawLen+b.adLen())
	raw := buf[:rawLen]
	if !b64Decode(raw, enc) {
		return 0, nil, openBadEncoding
	}
	if v1 {
		return k.openRawV1(raw, buf[rawLen:rawLen], b, now, expires...)
	}
	return k.openRaw(raw, buf[rawLen:rawLen], b, now, expires...)
}

// openRaw verifies and decrypts the raw (decoded) state raw in place, of at
// least stateOverhead bytes, building the additional data in adBuf's
// memory. The payload returned aliases raw. The state's expiry goes to
// expires[0], when given. A state that does not verify is told apart by
// its tags: sealed for another call, user or audience, or tampered with.
func (k *Keyring) openRaw(raw, adBuf []byte, b *Binding, now time.Time, expires ...*int64) (uint32, []byte, openResult) {
	key := k.entry(binary.BigEndian.Uint32(raw))
	if key == nil {
		return 0, nil, openUnknownKey
	}
	tags := raw[keyIDSize+nonceSize : headerSize]
	ad := b.appendAD(adBuf[:0], adVersion, key.id, tags)
	ct := raw[headerSize:]
	pt, err := key.aead.Open(ct[:0], raw[keyIDSize:keyIDSize+nonceSize], ct, ad)
	if err != nil {
		return 0, nil, key.mismatch(raw[keyIDSize:keyIDSize+nonceSize], tags, b)
	}
	return opened(pt, now, expires...)
}

// openRawV1 is openRaw for a state of the first format, which has no tags.
func (k *Keyring) openRawV1(raw, adBuf []byte, b *Binding, now time.Time, expires ...*int64) (uint32, []byte, openResult) {
	key := k.entry(binary.BigEndian.Uint32(raw))
	if key == nil {
		return 0, nil, openUnknownKey
	}
	ad := b.appendAD(adBuf[:0], adVersionV1, key.id, nil)
	ct := raw[headerSizeV1:]
	pt, err := key.aead.Open(ct[:0], raw[keyIDSize:headerSizeV1], ct, ad)
	if err != nil {
		return 0, nil, openAuthFailed
	}
	return opened(pt, now, expires...)
}

// opened reads the expiry and round of a decrypted plaintext pt, and its
// payload, unless it expired at now.
func opened(pt []byte, now time.Time, expires ...*int64) (uint32, []byte, openResult) {
	if exp := int64(binary.BigEndian.Uint64(pt)); now.UnixNano() > exp {
		return 0, nil, openExpired
	} else if len(expires) > 0 {
		*expires[0] = exp
	}
	round := binary.BigEndian.Uint32(pt[expirySize:])
	payload := pt[expirySize+roundSize : len(pt) : len(pt)]
	return round, payload, openOK
}

// Domain prefixes of DigestArguments.
const (
	argsDomain    = "elicitgen args v1\x00"
	rawArgsDomain = "elicitgen raw args v1\x00"
)

// DigestArguments returns the SHA-256 digest of the canonical form of the
// JSON tool arguments raw, for [Binding.ArgsDigest]. Canonicalisation sorts
// object keys (recursively), drops insignificant whitespace, normalises
// string escapes and keeps numbers as their literal text; null, empty and
// absent (nil) arguments all digest like {}. For duplicate object keys the
// last one wins, as in encoding/json.
//
// Invalid JSON does not make DigestArguments fail or panic: its raw bytes are
// digested under a different domain prefix, so it equals no valid input.
func DigestArguments(raw json.RawMessage) [32]byte {
	t := trimJSONSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		t = []byte("{}")
	}
	canon, ok := t, flatCanonical(t)
	if !ok {
		canon, ok = canonicalJSON(t)
	}
	if ok {
		return sha256.Sum256(append([]byte(argsDomain), canon...))
	}
	return sha256.Sum256(append([]byte(rawArgsDomain), raw...))
}

// flatCanonical reports whether b is its own canonical form because it is
// of the simplest shape, which most tool arguments are: an object without
// whitespace whose keys are in strictly increasing order (so none twice),
// whose values are strings, true, false or null, and whose strings are
// printable ASCII without a quote or a backslash (nothing to escape or
// unescape). Anything else goes through canonicalJSON.
func flatCanonical(b []byte) bool {
	if len(b) < 2 || b[0] != '{' {
		return false
	}
	if string(b) == "{}" {
		return true
	}
	var prev []byte
	for rest, first := b[1:], true; ; first = false {
		key, r, ok := plainString(rest)
		if !ok || !first && bytes.Compare(prev, key) >= 0 || len(r) == 0 || r[0] != ':' {
			return false
		}
		prev, r = key, r[1:]
		switch {
		case len(r) > 0 && r[0] == '"':
			if _, r, ok = plainString(r); !ok {
				return false
			}
		case bytes.HasPrefix(r, []byte("true")), bytes.HasPrefix(r, []byte("null")):
			r = r[4:]
		case bytes.HasPrefix(r, []byte("false")):
			r = r[5:]
		default:
			return false
		}
		switch {
		case string(r) == "}":
			return true
		case len(r) == 0 || r[0] != ',':
			return false
		}
		rest = r[1:]
	}
}

// plainString splits a JSON string of printable ASCII without escapes off
// the front of b: its contents and what follows. ok is false for anything
// else.
func plainString(b []byte) (s, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return b[1:i], b[i+1:], true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, nil, false
		}
	}
	return nil, nil, false
}

func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// canonicalJSON returns the canonical encoding of the JSON value b.
func canonicalJSON(b []byte) ([]byte, bool) {
	if !json.Valid(b) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	out, ok := appendCanonical(make([]byte, 0, len(b)), v)
	return out, ok
}

func appendCanonical(dst []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		return strconv.AppendBool(dst, v), true
	case json.Number:
		return append(dst, v...), true
	case string:
		return appendJSONString(dst, v), true
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendCanonical(dst, e); !ok {
				return nil, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		keys := make([]string, 0, len(v))
		for key := range v {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, key := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, key)
			dst = append(dst, ':')
			var ok bool
			if dst, ok = appendCanonical(dst, v[key]); !ok {
				return nil, false
			}
		}
		return append(dst, '}'), true
	default: // not produced by encoding/json with UseNumber
		return nil, false
	}
}

// appendJSONString appends s (valid UTF-8, as decoded by encoding/json) as a
// JSON string with the minimal escaping.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
