package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// testKey returns a deterministic 32-byte key derived from seed.
func testKey(seed byte) []byte {
	k := make([]byte, KeySize)
	for i := range k {
		k[i] = seed*31 + byte(i)*7 + 1
	}
	return k
}

func mustKeyring(tb testing.TB, keys ...[]byte) *Keyring {
	tb.Helper()
	k, err := NewKeyring(keys...)
	if err != nil {
		tb.Fatalf("NewKeyring: %v", err)
	}
	return k
}

var (
	testNow     = time.Unix(1_800_000_000, 123456789)
	testBinding = Binding{
		Tool:       "book_flight",
		ArgsDigest: DigestArguments(json.RawMessage(`{"from":"BER","to":"OSL"}`)),
		Principal:  "user-42",
	}
)

// decodeState returns the raw bytes of a well-formed state.
func decodeState(tb testing.TB, s string) []byte {
	tb.Helper()
	if !strings.HasPrefix(s, statePrefix) {
		tb.Fatalf("state %q lacks prefix %q", s, statePrefix)
	}
	raw, err := base64.RawURLEncoding.DecodeString(s[len(statePrefix):])
	if err != nil {
		tb.Fatalf("state is not base64url: %v", err)
	}
	return raw
}

func encodeState(raw []byte) string {
	return statePrefix + base64.RawURLEncoding.EncodeToString(raw)
}

// checkInvalidStateErr verifies err is exactly the opaque rejection error.
func checkInvalidStateErr(tb testing.TB, err error) {
	tb.Helper()
	if err != ErrInvalid {
		tb.Fatalf("error = %v, want the shared ErrInvalid value", err)
	}
}

// assertRejected checks that state does not open under b at now, through both
// the public API and the internal one (whose reason must be want, unless want
// is openOK, meaning "any reason").
// rejected counts the states assertRejected saw refused, for the logs of
// the hostile-state tests.
var rejected int

func assertRejected(tb testing.TB, k *Keyring, b Binding, state string, now time.Time, want openResult) {
	tb.Helper()
	rejected++
	round, payload, err := k.Open(b, state, now)
	if err == nil {
		tb.Fatalf("Open(%.80q) succeeded (round %d, %d-byte payload), want rejection", state, round, len(payload))
	}
	checkInvalidStateErr(tb, err)
	if round != 0 || payload != nil {
		tb.Fatalf("rejected Open returned round %d, payload %q", round, payload)
	}
	_, _, r := k.open(&b, state, now)
	if r == openOK || (want != openOK && r != want) {
		tb.Fatalf("open(%.80q) reason = %v, want %v", state, r, want)
	}
}

func TestSealOpenRoundTrip(t *testing.T) {
	k := mustKeyring(t, testKey(1))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 100, 1024, 8192, MaxPayloadLen} {
		for _, round := range []uint32{0, 1, 7, math.MaxUint32} {
			payload := bytes.Repeat([]byte{byte(n), 0xA5, byte(round)}, n)[:n]
			s := mustSeal(k, testBinding, round, payload, testNow, time.Minute)
			if !strings.HasPrefix(s, "s2.") {
				t.Fatalf("state %.20q lacks the s1. prefix", s)
			}
			if len(s) > MaxStateLen {
				t.Fatalf("payload %d: state is %d bytes > MaxStateLen", n, len(s))
			}
			if want := len(statePrefix) + base64.RawURLEncoding.EncodedLen(n+56); len(s) != want {
				t.Fatalf("payload %d: state is %d bytes, want %d", n, len(s), want)
			}
			gotRound, got, err := k.Open(testBinding, s, testNow)
			if err != nil {
				t.Fatalf("payload %d round %d: Open: %v", n, round, err)
			}
			if gotRound != round || !bytes.Equal(got, payload) || got == nil {
				t.Fatalf("payload %d round %d: got round %d payload %d bytes (nil=%v)", n, round, gotRound, len(got), got == nil)
			}
		}
	}
}

func TestSealHidesPayloadAndRandomizes(t *testing.T) {
	k := mustKeyring(t, testKey(1))
	payload := []byte("SECRET-PAYLOAD-SECRET-PAYLOAD")
	s1 := mustSeal(k, testBinding, 1, payload, testNow, 0)
	s2 := mustSeal(k, testBinding, 1, payload, testNow, 0)
	if s1 == s2 {
		t.Fatal("two seals of the same input are identical: nonce not random")
	}
	r1, r2 := decodeState(t, s1), decodeState(t, s2)
	if bytes.Equal(r1[4:16], r2[4:16]) {
		t.Fatal("nonces repeat")
	}
	if bytes.Contains(r1, payload[:8]) || strings.Contains(s1, "SECRET") {
		t.Fatal("payload visible in sealed state")
	}
}

func TestSealDoesNotRetainPayloadAndOpenReturnsFreshSlice(t *testing.T) {
	k := mustKeyring(t, testKey(1))
	payload := []byte("hello, world")
	s := mustSeal(k, testBinding, 2, payload, testNow, 0)
	copy(payload, "XXXXX")
	_, got, err := k.Open(testBinding, s, testNow)
	if err != nil || string(got) != "hello, world" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	got[0] = 'J'
	_ = append(got, "appended"...)
	_, again, err := k.Open(testBinding, s, testNow)
	if err != nil || string(again) != "hello, world" {
		t.Fatalf("second Open = %q, %v", again, err)
	}
}

func TestSealRefusesOversizedPayload(t *testing.T) {
	k := mustKeyring(t, testKey(1))
	if MaxPayloadLen != 49093 { // as documented
		t.Fatalf("MaxPayloadLen = %d, documented as 49093", MaxPayloadLen)
	}
	if n := len(statePrefix) + base64.RawURLEncoding.EncodedLen(stateOverhead+MaxPayloadLen+1); n <= MaxStateLen {
		t.Fatalf("MaxPayloadLen is not maximal: one more byte gives a %d-byte state", n)
	}
	if s, err := k.Seal(testBinding, 0, make([]byte, MaxPayloadLen+1), testNow, 0); err != ErrStateTooLarge || s != "" {
		t.Fatalf("Seal of MaxPayloadLen+1 bytes = %q, %v; want ErrStateTooLarge", s, err)
	}
	if _, err := k.Seal(testBinding, 0, make([]byte, MaxPayloadLen), testNow, 0); err != nil {
		t.Fatalf("Seal of MaxPayloadLen bytes: %v", err)
	}
	var none *Keyring
	if _, err := none.Seal(testBinding, 0, nil, testNow, 0); err != ErrNoKeys {
		t.Fatalf("Seal on a nil Keyring: %v, want ErrNoKeys", err)
	}
}

// mustSeal is Seal for payloads that fit.
func mustSeal(k *Keyring, b Binding, round uint32, payload []byte, now time.Time, ttl time.Duration) string {
	s, err := k.Seal(b, round, payload, now, ttl)
	if err != nil {
		panic(err)
	}
	return s
}

// mustSealFlow is SealFlow for flows that fit.
func mustSealFlow(k *Keyring, f ConnectFlow, audience string, now time.Time, ttl time.Duration) string {
	s, err := k.SealFlow(f, audience, now, ttl)
	if err != nil {
		panic(err)
	}
	return s
}

func TestOpenRejectsOtherBinding(t *testing.T) {
	before := rejected
	defer func() { t.Logf("%d hostile states rejected with -32602 and no detail", rejected-before) }()
	k := mustKeyring(t, testKey(1))
	s := mustSeal(k, testBinding, 3, []byte("p"), testNow, 0)
	otherDigest := testBinding.ArgsDigest
	otherDigest[31] ^= 1
	// Each is refused, and the reason names the part that differs (the
	// audience before the user before the call).
	cases := map[string]struct {
		b    Binding
		want openResult
	}{
		"tool":                  {Binding{Tool: "book_hotel", ArgsDigest: testBinding.ArgsDigest, Principal: testBinding.Principal}, openOtherCall},
		"tool prefix":           {Binding{Tool: "book_fligh", ArgsDigest: testBinding.ArgsDigest, Principal: testBinding.Principal}, openOtherCall},
		"args digest":           {Binding{Tool: testBinding.Tool, ArgsDigest: otherDigest, Principal: testBinding.Principal}, openOtherCall},
		"other args":            {Binding{Tool: testBinding.Tool, ArgsDigest: DigestArguments(json.RawMessage(`{"from":"BER","to":"ARN"}`)), Principal: testBinding.Principal}, openOtherCall},
		"principal":             {Binding{Tool: testBinding.Tool, ArgsDigest: testBinding.ArgsDigest, Principal: "user-43"}, openOtherUser},
		"no principal":          {Binding{Tool: testBinding.Tool, ArgsDigest: testBinding.ArgsDigest}, openOtherUser},
		"principal in tool":     {Binding{Tool: testBinding.Tool + "user-42", ArgsDigest: testBinding.ArgsDigest}, openOtherUser},
		"zero binding":          {Binding{}, openOtherUser},
		"audience":              {Binding{Tool: testBinding.Tool, ArgsDigest: testBinding.ArgsDigest, Principal: testBinding.Principal, Audience: "https://other.example"}, openOtherAudience},
		"principal as audience": {Binding{Tool: testBinding.Tool, ArgsDigest: testBinding.ArgsDigest, Audience: testBinding.Principal}, openOtherAudience},
		"all three":             {Binding{Tool: "t", Principal: "u", Audience: "a"}, openAuthFailed},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			assertRejected(t, k, c.b, s, testNow, c.want)
		})
	}
	// Fields cannot be shifted into each other.
	ab := Binding{Tool: "ab", Principal: "c"}
	s2 := mustSeal(k, ab, 0, nil, testNow, 0)
	assertRejected(t, k, Binding{Tool: "a", Principal: "bc"}, s2, testNow, openOtherUser)
	assertRejected(t, k, Binding{Tool: "abc"}, s2, testNow, openOtherUser)
	// Length prefixes matter: without the one on Tool these two bindings
	// would produce the same additional data.
	d1 := testBinding.ArgsDigest
	var d2 [32]byte
	copy(d2[:], d1[1:])
	d2[31] = 2 // len("\x01x")
	shiftA := Binding{Tool: "t", ArgsDigest: d1, Principal: "\x01x"}
	shiftB := Binding{Tool: "t" + string(d1[:1]), ArgsDigest: d2, Principal: "x"}
	assertRejected(t, k, shiftB, mustSeal(k, shiftA, 0, nil, testNow, 0), testNow, openOtherUser)
	assertRejected(t, k, shiftA, mustSeal(k, shiftB, 0, nil, testNow, 0), testNow, openOtherUser)
	// An unauthenticated state does not open for an authenticated user.
	anon := Binding{Tool: "t", ArgsDigest: DigestArguments(nil)}
	s3 := mustSeal(k, anon, 0, nil, testNow, 0)
	assertRejected(t, k, Binding{Tool: "t", ArgsDigest: DigestArguments(nil), Principal: "u"}, s3, testNow, openOtherUser)
	if _, _, err := k.Open(anon, s3, testNow); err != nil {
		t.Fatalf("anonymous state: %v", err)
	}
	// A state sealed for an audience opens only for it, and a state sealed
	// without one not for any.
	aud := testBinding
	aud.Audience = "https://deploy.example"
	s4 := mustSeal(k, aud, 0, nil, testNow, 0)
	assertRejected(t, k, testBinding, s4, testNow, openOtherAudience)
	assertRejected(t, k, aud, s, testNow, openOtherAudience)
	if _, _, err := k.Open(aud, s4, testNow); err != nil {
		t.Fatalf("state with an audience: %v", err)
	}
}

func TestOpenExpiry(t *testing.T) {
	before := rejected
	defer func() { t.Logf("%d hostile states rejected with -32602 and no detail", rejected-before) }()
	k := mustKeyring(t, testKey(1))
	s := mustSeal(k, testBinding, 1, []byte("x"), testNow, time.Minute)
	for _, ok := range []time.Time{testNow.Add(-time.Hour), testNow, testNow.Add(59 * time.Second), testNow.Add(time.Minute)} {
		if _, _, err := k.Open(testBinding, s, ok); err != nil {
			t.Fatalf("Open at %v: %v", ok.Sub(testNow), err)
		}
	}
	for _, late := range []time.Time{testNow.Add(time.Minute + time.Nanosecond), testNow.Add(time.Hour), testNow.AddDate(100, 0, 0)} {
		assertRejected(t, k, testBinding, s, late, openExpired)
	}

	// Non-positive ttl means DefaultStateTTL.
	for _, ttl := range []time.Duration{0, -time.Second} {
		s := mustSeal(k, testBinding, 1, nil, testNow, ttl)
		if _, _, err := k.Open(testBinding, s, testNow.Add(DefaultStateTTL)); err != nil {
			t.Fatalf("ttl %v: Open at DefaultStateTTL: %v", ttl, err)
		}
		assertRejected(t, k, testBinding, s, testNow.Add(DefaultStateTTL+time.Nanosecond), openExpired)
	}

	// A huge ttl saturates instead of wrapping into the past.
	s = mustSeal(k, testBinding, 1, nil, testNow, math.MaxInt64)
	if _, _, err := k.Open(testBinding, s, testNow.AddDate(200, 0, 0)); err != nil {
		t.Fatalf("huge ttl: %v", err)
	}
}

func TestOpenRejectsEveryBitFlip(t *testing.T) {
	before := rejected
	defer func() { t.Logf("%d hostile states rejected with -32602 and no detail", rejected-before) }()
	k := mustKeyring(t, testKey(1))
	s := mustSeal(k, testBinding, 9, []byte(`{"step":2,"answers":{"seat":"12A"}}`), testNow, 0)
	raw := decodeState(t, s)
	for i := range raw {
		for bit := range 8 {
			mut := bytes.Clone(raw)
			mut[i] ^= 1 << bit
			want := openAuthFailed
			switch {
			case i < keyIDSize:
				want = openUnknownKey
			case i >= keyIDSize+nonceSize && i < headerSize:
				// A tag altered reads as its part differing.
				want = [...]openResult{openOtherCall, openOtherUser, openOtherAudience}[(i-keyIDSize-nonceSize)/bindingTagSize]
			}
			assertRejected(t, k, testBinding, encodeState(mut), testNow, want)
		}
	}
	for i := range len(s) {
		for bit := range 8 {
			mut := []byte(s)
			mut[i] ^= 1 << bit
			assertRejected(t, k, testBinding, string(mut), testNow, openOK)
		}
	}
}

func TestOpenRejectsTruncationAndExtension(t *testing.T) {
	before := rejected
	defer func() { t.Logf("%d hostile states rejected with -32602 and no detail", rejected-before) }()
	k := mustKeyring(t, testKey(1))
	for _, n := range []int{0, 1, 2, 3, 40} { // all residues of the raw length mod 3
		s := mustSeal(k, testBinding, 1, make([]byte, n), testNow, 0)
		for i := range len(s) {
			assertRejected(t, k, testBinding, s[:i], testNow, openOK)
		}
		raw := decodeState(t, s)
		for i := range raw {
			assertRejected(t, k, testBinding, encodeState(raw[:i]), testNow, openOK)
		}
		for _, suffix := range []string{"A", "AA", "AAA", "AAAA", "=", "==", "\n", " "} {
			assertRejected(t, k, testBinding, s+suffix, testNow, openOK)
		}
		assertRejected(t, k, testBinding, encodeState(append(bytes.Clone(raw), 0)), testNow, openAuthFailed)
		for _, pos := range []int{len(statePrefix), len(statePrefix) + 5, len(s) / 2, len(s) - 1} {
			for _, ins := range []string{"\n", "\r", "\r\n", " ", "="} {
				// Rejected as malformed, before any decryption.
				assertRejected(t, k, testBinding, s[:pos]+ins+s[pos:], testNow, openBadEncoding)
			}
		}
	}
}

func TestOpenRejectsMalformed(t *testing.T) {
	before := rejected
	defer func() { t.Logf("%d hostile states rejected with -32602 and no detail", rejected-before) }()
	k := mustKeyring(t, testKey(1))
	s := mustSeal(k, testBinding, 1, []byte("payload"), testNow, 0)
	body := s[len(statePrefix):]
	huge := strings.Repeat("A", 1<<20)
	cases := []struct {
		name  string
		state string
		want  openResult
	}{
		{"empty", "", openBadPrefix},
		{"prefix only", "s1.", openTooShort},
		{"no dot", "s1" + body, openBadPrefix},
		{"no prefix", body, openBadPrefix},
		{"other version", "s3." + body, openBadPrefix},
		{"first format's prefix", "s1." + body, openAuthFailed},
		{"upper case prefix", "S1." + body, openBadPrefix},
		{"1 MiB", huge, openTooLong},
		{"1 MiB with prefix", "s1." + huge, openTooLong},
		{"MaxStateLen+1", "s1." + strings.Repeat("A", MaxStateLen-2), openTooLong},
		{"not base64", "s1." + strings.Repeat("!", len(body)), openBadEncoding},
		{"std alphabet", "s1." + strings.Repeat("+/", len(body)/2+1)[:len(body)], openBadEncoding},
		{"padded", s + strings.Repeat("=", (4-len(body)%4)%4+4), openOK},
		{"spaces", " " + s + " ", openBadPrefix},
		{"short garbage", "s1.AAAA", openTooShort},
		{"zero state", encodeState(make([]byte, 60)), openUnknownKey},
		{"json", `s1.{"round":1}`, openTooShort},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertRejected(t, k, testBinding, c.state, testNow, c.want)
		})
	}
	var nilRing *Keyring
	assertRejected(t, nilRing, testBinding, s, testNow, openNoKeys)
	assertRejected(t, &Keyring{}, testBinding, s, testNow, openNoKeys)
}

func TestOpenRejectsSwappedKeyID(t *testing.T) {
	before := rejected
	defer func() { t.Logf("%d hostile states rejected with -32602 and no detail", rejected-before) }()
	a, b := testKey(1), testKey(2)
	ring := mustKeyring(t, a, b)
	s := mustSeal(ring, testBinding, 1, []byte("p"), testNow, 0)
	raw := decodeState(t, s)
	if got := binary.BigEndian.Uint32(raw); got != keyID(a) {
		t.Fatalf("key id %08x, want first key's %08x", got, keyID(a))
	}
	binary.BigEndian.PutUint32(raw, keyID(b))
	assertRejected(t, ring, testBinding, encodeState(raw), testNow, openAuthFailed)
}

func TestKeyRotation(t *testing.T) {
	oldKey, newKey := testKey(1), testKey(2)
	oldRing := mustKeyring(t, oldKey)
	rotated := mustKeyring(t, newKey, oldKey)
	retired := mustKeyring(t, newKey)

	oldState := mustSeal(oldRing, testBinding, 4, []byte("old"), testNow, 0)
	if r, p, err := rotated.Open(testBinding, oldState, testNow); err != nil || r != 4 || string(p) != "old" {
		t.Fatalf("rotated ring cannot open old state: %d %q %v", r, p, err)
	}

	newState := mustSeal(rotated, testBinding, 5, []byte("new"), testNow, 0)
	raw := decodeState(t, newState)
	if got := binary.BigEndian.Uint32(raw[:keyIDSize]); got != keyID(newKey) || got == keyID(oldKey) {
		t.Fatalf("rotated ring sealed with key id %08x, want new key %08x", got, keyID(newKey))
	}
	wantPrefix := statePrefix + base64.RawURLEncoding.EncodeToString(binary.BigEndian.AppendUint32(nil, keyID(newKey)))[:5]
	if !strings.HasPrefix(newState, wantPrefix) {
		t.Fatalf("state %.12q does not start with the new key id prefix %q", newState, wantPrefix)
	}
	for _, ring := range []*Keyring{rotated, retired} {
		if r, p, err := ring.Open(testBinding, newState, testNow); err != nil || r != 5 || string(p) != "new" {
			t.Fatalf("cannot open new state: %d %q %v", r, p, err)
		}
	}
	// The old ring never had the new key; the retired ring dropped the old one.
	assertRejected(t, oldRing, testBinding, newState, testNow, openUnknownKey)
	assertRejected(t, retired, testBinding, oldState, testNow, openUnknownKey)
}

func TestKeyringConcurrentUse(t *testing.T) {
	k := mustKeyring(t, testKey(1), testKey(2))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := Binding{Tool: fmt.Sprint("tool", g), Principal: "p"}
			for i := range 200 {
				payload := []byte(fmt.Sprint(g, "/", i))
				s := mustSeal(k, b, uint32(i), payload, testNow, 0)
				r, p, err := k.Open(b, s, testNow)
				if err != nil || r != uint32(i) || !bytes.Equal(p, payload) {
					t.Errorf("goroutine %d iteration %d: %d %q %v", g, i, r, p, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestDigestArguments(t *testing.T) {
	empty := sha256.Sum256([]byte("elicitgen args v1\x00{}"))
	if got := DigestArguments(nil); got != empty {
		t.Fatalf("DigestArguments(nil) = %x, want sha256(domain+{}) %x", got, empty)
	}
	equal := [][]string{
		{"", "null", " null\n", "{}", " {\t}\r\n", "\n"},
		{
			`{"a":1,"b":[1,2,{"y":true,"x":null}],"c":"d"}`,
			"{ \"c\" : \"d\",\n \"b\" : [ 1 , 2 , { \"x\" : null , \"y\" : true } ] , \"a\" : 1 }",
			`{"b":[1,2,{"x":null,"y":true}],"c":"d","a":1}`,
		},
		{`{"s":"A\u00e9\n"}`, `{"s":"\u0041é\u000a"}`, `{"\u0073":"A\u00E9\n"}`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`{"big":123456789012345678901234567890}`, `{ "big" : 123456789012345678901234567890 }`},
		{`[{"b":1,"a":2}]`, `[{"a":2,"b":1}]`},
	}
	for _, group := range equal {
		want := DigestArguments(json.RawMessage(group[0]))
		for _, in := range group[1:] {
			if got := DigestArguments(json.RawMessage(in)); got != want {
				t.Errorf("DigestArguments(%q) != DigestArguments(%q)", in, group[0])
			}
		}
	}
	distinct := []string{
		`{}`, `[]`, `{"a":1}`, `{"a":2}`, `{"a":"1"}`, `{"a":1.0}`, `{"a":1e0}`, `{"b":1}`,
		`{"a":null}`, `{"a":true}`, `{"a":false}`, `{"a":[]}`, `{"a":{}}`, `[1,2]`, `[2,1]`,
		`{"a":"x"}`, `{"a":"x "}`, `{"A":1}`, `"{}"`, `0`, `-0`, `true`,
		`{"a":1,"b":2}`, `{"a":{"b":2}}`,
		// invalid JSON: digested raw, distinct from everything valid and from each other
		`{"a":`, `{"a":1}}`, `{} {}`, `{'a':1}`, "{\"a\":1,}", `nul`, "\x00", `{"a":1` + "\xff",
	}
	seen := map[[32]byte]string{}
	for _, in := range distinct {
		d := DigestArguments(json.RawMessage(in))
		if prev, dup := seen[d]; dup {
			t.Errorf("DigestArguments(%q) == DigestArguments(%q)", in, prev)
		}
		seen[d] = in
	}
	// The canonical form is itself valid, canonical JSON with the same value.
	for _, in := range []string{`{"a\\":"b\\","c":"\"\\\"","d":["\\",""]}`, `["\u0000\u001f\u007f\u2028<>&"]`, `{"z":{"y":[1,{"x":"\/"}]},"a":-1.5e+3}`} {
		canon, ok := canonicalJSON([]byte(in))
		if !ok {
			t.Fatalf("canonicalJSON(%q) failed", in)
		}
		checkCanonical(t, []byte(in), canon)
	}
	// Invalid JSON is hashed raw under its own domain.
	if got, want := DigestArguments(json.RawMessage(`{"a":`)), sha256.Sum256([]byte("elicitgen raw args v1\x00{\"a\":")); got != want {
		t.Errorf("invalid JSON digest = %x, want %x", got, want)
	}
	// Must not panic on hostile input.
	for _, in := range []string{strings.Repeat("[", 100000), strings.Repeat("[", 5000) + strings.Repeat("]", 5000), strings.Repeat(`{"a":`, 3000) + "1" + strings.Repeat("}", 3000), "\xff\xfe", `"\ud800"`} {
		DigestArguments(json.RawMessage(in))
	}
}

// checkCanonical verifies that canon, the canonical form of in, is valid JSON
// with the same value as in and is a fixed point of canonicalJSON.
func checkCanonical(tb testing.TB, in, canon []byte) {
	tb.Helper()
	if !json.Valid(canon) {
		tb.Fatalf("canonical form %q of %q is not valid JSON", canon, in)
	}
	again, ok := canonicalJSON(canon)
	if !ok || !bytes.Equal(again, canon) {
		tb.Fatalf("canonical form %q is not a fixed point (got %q)", canon, again)
	}
	var v1, v2 any
	if json.Unmarshal(in, &v1) == nil {
		if err := json.Unmarshal(canon, &v2); err != nil || !reflect.DeepEqual(v1, v2) {
			tb.Fatalf("canonical form %q of %q has another value", canon, in)
		}
	}
}

// Fuzzing: the keyring, binding, round and payload are fixed so that the
// committed seed corpus (states sealed with them at fuzzNow) stays valid.
var (
	fuzzNow     = time.Unix(1_800_000_000, 0)
	fuzzRound   = uint32(3)
	fuzzPayload = []byte(`{"elicited":{"seat":"12A"},"step":2}`)
	fuzzBinding = Binding{Tool: "book_flight", ArgsDigest: DigestArguments(json.RawMessage(`{"to":"OSL"}`)), Principal: "alice"}
)

func fuzzKeyring(tb testing.TB) *Keyring { return mustKeyring(tb, testKey(0xF0), testKey(0xF1)) }

func FuzzOpenState(f *testing.F) {
	k := fuzzKeyring(f)
	valid := mustSeal(k, fuzzBinding, fuzzRound, fuzzPayload, fuzzNow, DefaultStateTTL)
	raw := decodeState(f, valid)
	f.Add(valid)
	f.Add(valid[:len(valid)-1])
	f.Add(valid + "A")
	f.Add(valid[:len(statePrefix)+20])
	flipped := bytes.Clone(raw)
	flipped[len(flipped)-1] ^= 0x80
	f.Add(encodeState(flipped))
	f.Add("")
	f.Add(statePrefix)
	f.Add("s1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")

	other := fuzzBinding // nothing is ever sealed under this binding
	other.Principal = "eve"
	f.Fuzz(func(t *testing.T, s string) {
		round, payload, err := k.Open(fuzzBinding, s, fuzzNow)
		_, _, r := k.open(&fuzzBinding, s, fuzzNow)
		if (err == nil) != (r == openOK) {
			t.Fatalf("Open err %v but open reason %v", err, r)
		}
		if _, _, err := k.Open(other, s, fuzzNow); err == nil {
			t.Fatalf("state opened under another principal: %q", s)
		}
		if err != nil {
			checkInvalidStateErr(t, err)
			return
		}
		if round != fuzzRound || !bytes.Equal(payload, fuzzPayload) {
			t.Fatalf("opened state %q gives round %d payload %q; only (%d, %q) was ever sealed", s, round, payload, fuzzRound, fuzzPayload)
		}
		// Only the exact sealed spelling opens.
		if canon := encodeState(decodeState(t, s)); canon != s {
			t.Fatalf("non-canonical spelling %q of %q opened", s, canon)
		}
	})
}

func FuzzDigestArguments(f *testing.F) {
	for _, s := range []string{"", "null", "{}", `{"b":1,"a":[true,null,"x"]}`, `{"a":`, `[1e400]`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"service":"api"}`, `{"a":"x","b":true,"c":null}`, `{"b":"x","a":false}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkFlatCanonical(t, in)
		d := DigestArguments(in)
		if DigestArguments(bytes.Clone(in)) != d {
			t.Fatal("not deterministic")
		}
		if canon, ok := canonicalJSON(trimJSONSpace(in)); ok {
			checkCanonical(t, trimJSONSpace(in), canon)
			if DigestArguments(canon) != d {
				t.Fatalf("canonical form %q digests differently from %q", canon, in)
			}
			var compact bytes.Buffer
			if json.Compact(&compact, in) == nil && DigestArguments(compact.Bytes()) != d {
				t.Fatalf("compacted %q digests differently", compact.Bytes())
			}
		}
	})
}

var benchSizes = []struct {
	name string
	n    int
}{{"128B", 128}, {"1KiB", 1 << 10}, {"8KiB", 8 << 10}}

// BenchmarkSealOpen measures one Seal plus one Open of a payload.
func BenchmarkSealOpen(b *testing.B) {
	k := mustKeyring(b, testKey(1), testKey(2))
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			payload := make([]byte, sz.n)
			b.SetBytes(int64(sz.n))
			b.ReportAllocs()
			for b.Loop() {
				s := mustSeal(k, testBinding, 3, payload, testNow, DefaultStateTTL)
				if _, _, err := k.Open(testBinding, s, testNow); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSealOpenRaw is Seal plus Open without their text form and
// without allocating: the same key choice, nonce, expiry, round, additional
// data and AES-GCM into reused buffers. What it costs beyond
// BenchmarkBareAESGCM is the floor of any state with this binding; what
// BenchmarkSealOpen costs beyond it is base64url and the two allocations.
func BenchmarkSealOpenRaw(b *testing.B) { benchCipherPart(b, false) }

// BenchmarkSealOpenFloor is less than Seal plus Open in any text encoding
// can cost: their cipher part (as BenchmarkSealOpenRaw) and the two buffers
// their API hands over, each new memory: the state, as long as its
// base64url form but filled by a copy instead of an encoding, and the
// opened payload, which the caller owns. What BenchmarkSealOpen costs
// beyond it is the encoding alone.
func BenchmarkSealOpenFloor(b *testing.B) { benchCipherPart(b, true) }

// Sinks keep BenchmarkSealOpenFloor's buffers from being optimized away.
var (
	sinkState   []byte
	sinkPayload []byte
)

// benchCipherPart runs sealRaw and openRaw into reused buffers, and with
// newBuffers also copies the state and the payload into new memory as Seal
// and Open hand them over.
func benchCipherPart(b *testing.B, newBuffers bool) {
	k := mustKeyring(b, testKey(1), testKey(2))
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			payload := make([]byte, sz.n)
			raw := make([]byte, stateOverhead+sz.n)
			ad := make([]byte, 0, testBinding.adLen())
			exp := testNow.Add(DefaultStateTTL).UnixNano()
			b.SetBytes(int64(sz.n))
			b.ReportAllocs()
			for b.Loop() {
				k.sealRaw(raw, ad, &testBinding, 3, payload, exp)
				if newBuffers {
					state := make([]byte, len(statePrefix)+b64EncodedLen(len(raw)))
					copy(state[len(statePrefix):], raw)
					sinkState = state
				}
				_, pt, r := k.openRaw(raw, ad, &testBinding, testNow)
				if r != openOK {
					b.Fatal(r)
				}
				if newBuffers {
					sinkPayload = append([]byte(nil), pt...)
				}
			}
		})
	}
}

func newBareAEAD(b *testing.B) cipher.AEAD {
	block, err := aes.NewCipher(testKey(1))
	if err != nil {
		b.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		b.Fatal(err)
	}
	return aead
}

// BenchmarkBareAESGCM is the baseline: AES-256-GCM Seal plus Open of the same
// payload, in place, with a fixed nonce and no additional data.
func BenchmarkBareAESGCM(b *testing.B) {
	aead := newBareAEAD(b)
	var nonce [12]byte
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			payload := make([]byte, sz.n)
			buf := make([]byte, 0, sz.n+aead.Overhead())
			b.SetBytes(int64(sz.n))
			b.ReportAllocs()
			for b.Loop() {
				ct := aead.Seal(buf[:0], nonce[:], payload, nil)
				if _, err := aead.Open(ct[:0], nonce[:], ct, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBareAESGCMBase64 is the floor for any text-encoded sealed state:
// the bare AES-GCM round trip plus base64url encoding and decoding of the
// sealed bytes into preallocated buffers.
func BenchmarkBareAESGCMBase64(b *testing.B) {
	aead := newBareAEAD(b)
	var nonce [12]byte
	enc := base64.RawURLEncoding
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			payload := make([]byte, sz.n)
			buf := make([]byte, 0, sz.n+aead.Overhead())
			text := make([]byte, 0, enc.EncodedLen(cap(buf)))
			dec := make([]byte, cap(buf))
			b.SetBytes(int64(sz.n))
			b.ReportAllocs()
			for b.Loop() {
				ct := aead.Seal(buf[:0], nonce[:], payload, nil)
				text = enc.AppendEncode(text[:0], ct)
				n, err := enc.Decode(dec, text)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := aead.Open(dec[:0], nonce[:], dec[:n], nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFlatCanonical: the arguments DigestArguments takes as their own
// canonical form are exactly canonicalJSON's output, and the common shape
// (an object of plain strings and booleans, keys sorted) is one of them.
func TestFlatCanonical(t *testing.T) {
	for in, fast := range map[string]bool{
		`{}`: true, `{"service":"api"}`: true, `{"a":"x","b":true,"c":false,"d":null}`: true, `{"":"","a":"~ !#"}`: true,
		`{"b":"x","a":"y"}`: false, `{"a":"x","a":"y"}`: false, `{"a":"x","A":"y"}`: false, `{"a": "x"}`: false,
		`{"a":"x" }`: false, ` {"a":"x"}`: false, `{"a":1}`: false, `{"a":"\u0041"}`: false, `{"a":"\/"}`: false,
		`{"a":"é"}`: false, "{\"a\":\"\x7f\"}": false, "{\"a\":\"\t\"}": false, `{"a":[]}`: false, `{"a":{}}`: false,
		`{"a":truex}`: false, `{"a":tru}`: false, `{"a":nul}`: false, `{"a":"x"}}`: false, `{"a":"x",}`: false,
		`{"a":"x"`: false, `{"a"}`: false, `{"a":}`: false, `{`: false, `{}}`: false, `[]`: false, `"x"`: false,
		`{"a":"x"}{}`: false, `{"a":"x","b":"y"} `: false, `{"a":"x,"b":"y"}`: false, `{]`: false, `{"`: false,
	} {
		if got := flatCanonical([]byte(in)); got != fast {
			t.Errorf("flatCanonical(%q) = %v, want %v", in, got, fast)
		}
		checkFlatCanonical(t, []byte(in))
	}
}

// checkFlatCanonical fails when flatCanonical takes in for canonical and
// canonicalJSON disagrees.
func checkFlatCanonical(tb testing.TB, in []byte) {
	tb.Helper()
	if !flatCanonical(in) {
		return
	}
	if canon, ok := canonicalJSON(in); !ok || !bytes.Equal(canon, in) {
		tb.Fatalf("flatCanonical(%q): its canonical form is %q (ok %v)", in, canon, ok)
	}
}
