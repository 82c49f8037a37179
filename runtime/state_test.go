package runtime

import (
	"crypto/aes"
	"crypto/cipher"
	"testing"
	"time"
)

var benchSizes = []struct {
	name string
	n    int
}{{"128B", 128}, {"1KiB", 1 << 10}, {"8KiB", 8 << 10}}

func BenchmarkSealOpen(b *testing.B) {
	k, err := NewKeyring(testKey(1))
	if err != nil {
		b.Fatal(err)
	}
	bind := Binding{Tool: "book_flight", ArgsDigest: DigestArguments([]byte(`{"to":"OSL"}`)), Principal: "user-42"}
	now := time.Unix(1_800_000_000, 0)
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			payload := make([]byte, sz.n)
			b.SetBytes(int64(sz.n))
			b.ReportAllocs()
			for b.Loop() {
				s := k.Seal(bind, 3, payload, now, DefaultStateTTL)
				if _, _, err := k.Open(bind, s, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkBareAESGCM(b *testing.B) {
	block, err := aes.NewCipher(testKey(1))
	if err != nil {
		b.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		b.Fatal(err)
	}
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

func testKey(seed byte) []byte {
	k := make([]byte, KeySize)
	for i := range k {
		k[i] = seed + byte(i)*7
	}
	return k
}
