package seal

import (
	"encoding/base64"
	"encoding/binary"
	"testing"
	"time"
)

// sealV1 seals payload in the first format ("s1.", no tags), as the
// release before this one did, for the tests of a rolling deploy.
func sealV1(k *Keyring, b Binding, round uint32, payload []byte, exp time.Time) string {
	key := &k.keys[0]
	raw := make([]byte, headerSizeV1+expirySize+roundSize+len(payload)+tagSize)
	binary.BigEndian.PutUint32(raw, key.id)
	nonce := raw[keyIDSize:headerSizeV1]
	copy(nonce, "twelve bytes")
	pt := raw[headerSizeV1 : len(raw)-tagSize]
	binary.BigEndian.PutUint64(pt, uint64(exp.UnixNano()))
	binary.BigEndian.PutUint32(pt[expirySize:], round)
	copy(pt[expirySize+roundSize:], payload)
	key.aead.Seal(pt[:0], nonce, pt, b.appendAD(nil, adVersionV1, key.id, nil))
	return statePrefixV1 + base64.RawURLEncoding.EncodeToString(raw)
}

// TestFirstFormatStillOpens: a state sealed by the release before (the
// first format) opens under its binding until it expires; under another
// binding it is refused as tampered, its tags being none.
func TestFirstFormatStillOpens(t *testing.T) {
	k := mustKeyring(t, testKey(1))
	s := sealV1(k, testBinding, 7, []byte("answers"), testNow.Add(time.Minute))
	round, payload, err := k.Open(testBinding, s, testNow)
	if err != nil || round != 7 || string(payload) != "answers" {
		t.Fatalf("Open of a first-format state: %d %q %v", round, payload, err)
	}
	other := testBinding
	other.Audience = "https://other.example"
	assertRejected(t, k, other, s, testNow, openAuthFailed)
	assertRejected(t, k, testBinding, s, testNow.Add(time.Hour), openExpired)
	assertRejected(t, mustKeyring(t, testKey(2)), testBinding, s, testNow, openUnknownKey)
}

// TestOpenReason: the operator's reason for each refusal a deployment
// meets, and none for a state that opens; ErrInvalid for the client in
// every case.
func TestOpenReason(t *testing.T) {
	k := mustKeyring(t, testKey(1))
	s := mustSeal(k, testBinding, 1, []byte("p"), testNow, time.Minute)
	aud := testBinding
	aud.Audience = "https://b.example"
	user := testBinding
	user.Principal = "user-43"
	tool := testBinding
	tool.Tool = "book_hotel"
	raw := decodeState(t, s)
	raw[len(raw)-1] ^= 1
	for _, c := range []struct {
		name  string
		ring  *Keyring
		b     Binding
		state string
		at    time.Time
		want  Refusal
	}{
		{"opens", k, testBinding, s, testNow, NotRefused},
		{"another audience", k, aud, s, testNow, RefusedOtherAudience},
		{"another user", k, user, s, testNow, RefusedOtherUser},
		{"another tool", k, tool, s, testNow, RefusedOtherCall},
		{"expired", k, testBinding, s, testNow.Add(time.Hour), RefusedExpired},
		{"unknown key", mustKeyring(t, testKey(2)), testBinding, s, testNow, RefusedUnknownKey},
		{"no keys", nil, testBinding, s, testNow, RefusedUnknownKey},
		{"tampered", k, testBinding, encodeState(raw), testNow, RefusedTampered},
		{"not a state", k, testBinding, "hello", testNow, RefusedTampered},
	} {
		_, _, _, why := c.ring.OpenReason(c.b, c.state, c.at)
		if why != c.want {
			t.Errorf("%s: %s, want %s", c.name, why, c.want)
		}
		if _, _, err := c.ring.Open(c.b, c.state, c.at); (err != nil) != (c.want != NotRefused) || err != nil && err != ErrInvalid {
			t.Errorf("%s: Open said %v", c.name, err)
		}
	}
	seen := map[string]bool{}
	for _, r := range Refusals() {
		if name := r.String(); name == "" || seen[name] {
			t.Errorf("refusal %d is named %q, empty or twice", r, name)
		} else {
			seen[name] = true
		}
	}
}
