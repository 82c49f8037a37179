package seal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"time"
)

// Links in results (a URL step's fallback=link): a call that cannot show a
// URL step returns the step's link as text, and a later call, fresh, with
// no requestState, on any instance sharing the ring, must find the flow
// that link started, and hand out the same link meanwhile. So the flow of
// a link is derived, not drawn: its id is a PRF of the tool, the step, the
// principal and the audience in a window of time, and its token is sealed
// deterministically (a synthetic nonce: the PRF of what it seals), so the
// same inputs in the same window give the same link, and the token stays
// AES-256-GCM sealed, bound and expiring like every flow token.

const (
	prfDomain       = "elicitgen prf v1\x00"
	linkFlowDomain  = "elicitgen link flow v1\x00"
	linkNonceDomain = "elicitgen link nonce v1\x00"
)

// derivePRF derives the PRF key of key.
func derivePRF(key []byte) [sha256.Size]byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(prfDomain))
	var out [sha256.Size]byte
	m.Sum(out[:0])
	return out
}

// prf is HMAC-SHA256 under the sealing key's PRF key of domain and each
// part, length-prefixed.
func (k *Keyring) prf(domain string, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, k.keys[0].prf[:])
	m.Write([]byte(domain))
	for _, p := range parts {
		m.Write(binary.AppendUvarint(nil, uint64(len(p))))
		m.Write(p)
	}
	return m.Sum(nil)
}

// LinkFlowID is the id of attempt n of the flow a link of window starts
// for the URL step of tool, for principal under audience: the same on
// every instance sharing the ring's first key, and unguessable without it.
func (k *Keyring) LinkFlowID(tool, step, principal, audience string, window int64, n int) string {
	w := binary.BigEndian.AppendUint64(nil, uint64(window))
	w = binary.BigEndian.AppendUint32(w, uint32(n))
	sum := k.prf(linkFlowDomain, []byte(tool), []byte(step), []byte(principal), []byte(audience), w)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// SealLinkFlow is SealFlow made deterministic: the token of f for audience,
// expiring at expires, is the same string each time it is sealed with the
// same ring (its nonce is the PRF of what it seals and binds), so that a
// link handed out again is the link handed out before.
func (k *Keyring) SealLinkFlow(f ConnectFlow, audience string, expires time.Time) (string, error) {
	if k == nil || len(k.keys) == 0 {
		return "", ErrNoKeys
	}
	payload, err := json.Marshal(f.Wire())
	if err != nil {
		return "", err
	}
	b := FlowBinding(audience)
	ad := b.appendAD(nil, adVersion, k.keys[0].id, nil)
	exp := binary.BigEndian.AppendUint64(nil, uint64(expires.UnixNano()))
	nonce := k.prf(linkNonceDomain, ad, exp, payload)[:nonceSize]
	raw := make([]byte, stateOverhead+len(payload))
	k.sealRawNonce(raw, nil, &b, 0, payload, expires.UnixNano(), nonce)
	out := make([]byte, len(statePrefix)+b64EncodedLen(len(raw)))
	copy(out, statePrefix)
	b64Encode(out[len(statePrefix):], raw)
	if len(out) > MaxFlowTokenLen {
		return "", ErrFlowTokenTooLong
	}
	return string(out), nil
}
