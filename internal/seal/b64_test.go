package seal

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"testing"
)

var stdB64 = base64.RawURLEncoding.Strict()

// checkB64 compares the codec with encoding/base64 on src (encoding) and
// on text (decoding, as open calls it: a length that is not 1 mod 4).
func checkB64(t *testing.T, src []byte, text string) {
	t.Helper()
	if got, want := b64EncodedLen(len(src)), stdB64.EncodedLen(len(src)); got != want {
		t.Fatalf("b64EncodedLen(%d) = %d, want %d", len(src), got, want)
	}
	enc := make([]byte, b64EncodedLen(len(src)))
	b64Encode(enc, src)
	if want := stdB64.EncodeToString(src); string(enc) != want {
		t.Fatalf("b64Encode(%x) = %q, want %q", src, enc, want)
	}
	dec := make([]byte, b64DecodedLen(len(enc)))
	if !b64Decode(dec, string(enc)) || !bytes.Equal(dec, src) {
		t.Fatalf("b64Decode(%q) = %x, want %x", enc, dec, src)
	}

	if len(text)%4 == 1 {
		return
	}
	if got, want := b64DecodedLen(len(text)), stdB64.DecodedLen(len(text)); got != want {
		t.Fatalf("b64DecodedLen(%d) = %d, want %d", len(text), got, want)
	}
	dec = make([]byte, b64DecodedLen(len(text)))
	ok := b64Decode(dec, text)
	want := make([]byte, stdB64.DecodedLen(len(text)))
	n, err := stdB64.Decode(want, []byte(text))
	wantOK := err == nil && n == len(want) // open's test: CR and LF make n fall short
	if ok != wantOK || ok && !bytes.Equal(dec, want) {
		t.Fatalf("b64Decode(%q) = %x, %v; encoding/base64: %x, %v", text, dec, ok, want[:n], wantOK)
	}
}

func TestB64(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const alphabet = b64Alphabet + "+/=\r\n .\x00\xff"
	for n := range 300 {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		// Text: a valid encoding, perhaps with one character changed.
		text := []byte(stdB64.EncodeToString(src))
		if len(text) > 0 && n%2 == 1 {
			text[r.IntN(len(text))] = alphabet[r.IntN(len(alphabet))]
		}
		checkB64(t, src, string(text))
		// Every last character, for the canonical check.
		if len(text) > 0 {
			for _, c := range []byte(b64Alphabet) {
				text[len(text)-1] = c
				checkB64(t, src, string(text))
			}
		}
	}
	for range 20000 {
		text := make([]byte, r.IntN(40))
		for i := range text {
			text[i] = alphabet[r.IntN(len(alphabet))]
		}
		checkB64(t, nil, string(text))
	}
}

func FuzzB64(f *testing.F) {
	f.Add([]byte("hello, world"), "aGVsbG8")
	f.Add([]byte{0xff, 0xfe, 0xfd}, "__79")
	f.Add([]byte{}, "AB\nC")
	f.Fuzz(func(t *testing.T, src []byte, text string) {
		checkB64(t, src, text)
	})
}

func BenchmarkB64(b *testing.B) {
	src := make([]byte, 1040)
	for i := range src {
		src[i] = byte(i * 7)
	}
	enc := make([]byte, b64EncodedLen(len(src)))
	dec := make([]byte, len(src))
	text := stdB64.EncodeToString(src)
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			b64Encode(enc, src)
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			if !b64Decode(dec, text) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("std-encode", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			stdB64.Encode(enc, src)
		}
	})
	b.Run("std-decode", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			if _, err := stdB64.Decode(dec, []byte(text)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
