package seal

import "encoding/binary"

// A base64url codec (RFC 4648 §5, no padding) for sealed states: the same
// encoding as base64.RawURLEncoding.Strict(), about twice as fast. It
// encodes 6 bytes into 8 characters per step through a table of character
// pairs, and decodes 8 characters into 6 bytes per step through four
// tables that place each character's 6 bits, with one check for invalid
// characters per call. Base64 is most of the cost of sealing and opening a
// state (AES-GCM is fast), hence the codec. It is tested against
// encoding/base64, including by fuzzing (b64_test.go).
//
// The decoder rejects exactly what the strict standard decoder rejects
// (given a length that is not 1 mod 4, which open checks first): any
// character outside the alphabet, CR and LF included (which the standard
// decoder skips, making the decoded length fall short), and a last
// character whose unused low bits are not zero.

const b64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// b64Bad marks an invalid character in the decoding tables: a bit above
// the 24 a group of four characters fills.
const b64Bad = 1 << 31

var (
	// b64Pairs[v] holds the two characters of the 12-bit value v, the
	// first in the low byte.
	b64Pairs [4096]uint16
	// b64Dec[i][c] is the value of character c placed as the i-th of a
	// group of four (bits 18, 12, 6 and 0), or b64Bad.
	b64Dec [4][256]uint32
)

func init() {
	for v := range b64Pairs {
		b64Pairs[v] = uint16(b64Alphabet[v>>6]) | uint16(b64Alphabet[v&63])<<8
	}
	for i := range b64Dec {
		for c := range b64Dec[i] {
			b64Dec[i][c] = b64Bad
		}
	}
	for x := range len(b64Alphabet) {
		c := b64Alphabet[x]
		for i := range b64Dec {
			b64Dec[i][c] = uint32(x) << (18 - 6*i)
		}
	}
}

// b64EncodedLen is the length of the encoding of n bytes.
func b64EncodedLen(n int) int { return n/3*4 + (n%3*8+5)/6 }

// b64DecodedLen is the length of the bytes that n characters encode.
func b64DecodedLen(n int) int { return n/4*3 + n%4*6/8 }

// b64Encode writes the encoding of src to dst, which must have room for
// b64EncodedLen(len(src)) bytes.
func b64Encode(dst, src []byte) {
	// 6 bytes, read as the top of a big-endian uint64 (8 readable bytes),
	// become 8 characters, written as one uint64; two at a time.
	for len(src) >= 14 && len(dst) >= 16 {
		v := binary.BigEndian.Uint64(src)
		w := binary.BigEndian.Uint64(src[6:])
		binary.LittleEndian.PutUint64(dst, uint64(b64Pairs[v>>52])|
			uint64(b64Pairs[v>>40&0xfff])<<16|
			uint64(b64Pairs[v>>28&0xfff])<<32|
			uint64(b64Pairs[v>>16&0xfff])<<48)
		binary.LittleEndian.PutUint64(dst[8:], uint64(b64Pairs[w>>52])|
			uint64(b64Pairs[w>>40&0xfff])<<16|
			uint64(b64Pairs[w>>28&0xfff])<<32|
			uint64(b64Pairs[w>>16&0xfff])<<48)
		src, dst = src[12:], dst[16:]
	}
	for len(src) >= 3 && len(dst) >= 4 {
		v := uint(src[0])<<16 | uint(src[1])<<8 | uint(src[2])
		binary.LittleEndian.PutUint16(dst, b64Pairs[v>>12&0xfff])
		binary.LittleEndian.PutUint16(dst[2:], b64Pairs[v&0xfff])
		src, dst = src[3:], dst[4:]
	}
	switch len(src) {
	case 1:
		v := uint(src[0])
		dst[0], dst[1] = b64Alphabet[v>>2], b64Alphabet[v<<4&63]
	case 2:
		v := uint(src[0])<<8 | uint(src[1])
		dst[0], dst[1], dst[2] = b64Alphabet[v>>10], b64Alphabet[v>>4&63], b64Alphabet[v<<2&63]
	}
}

// b64Decode decodes src into dst, which must have room for
// b64DecodedLen(len(src)) bytes, and reports whether src is a canonical
// encoding. On false, dst holds garbage.
func b64Decode(dst []byte, src string) bool {
	var bad uint32
	// 8 characters become 6 bytes, written as the top of one big-endian
	// uint64 (8 writable bytes; the next step overwrites the other 2).
	for len(src) >= 8 && len(dst) >= 8 {
		v1 := b64Dec[0][src[0]] | b64Dec[1][src[1]] | b64Dec[2][src[2]] | b64Dec[3][src[3]]
		v2 := b64Dec[0][src[4]] | b64Dec[1][src[5]] | b64Dec[2][src[6]] | b64Dec[3][src[7]]
		bad |= v1 | v2
		binary.BigEndian.PutUint64(dst, uint64(v1)<<40|uint64(v2)<<16)
		src, dst = src[8:], dst[6:]
	}
	for len(src) >= 4 && len(dst) >= 3 {
		v := b64Dec[0][src[0]] | b64Dec[1][src[1]] | b64Dec[2][src[2]] | b64Dec[3][src[3]]
		bad |= v
		dst[0], dst[1], dst[2] = byte(v>>16), byte(v>>8), byte(v)
		src, dst = src[4:], dst[3:]
	}
	switch len(src) {
	case 0:
	case 2:
		if len(dst) < 1 {
			return false
		}
		v := b64Dec[0][src[0]] | b64Dec[1][src[1]]
		if v&0xf000 != 0 { // the unused low 4 bits of the second character
			return false
		}
		bad |= v
		dst[0] = byte(v >> 16)
	case 3:
		if len(dst) < 2 {
			return false
		}
		v := b64Dec[0][src[0]] | b64Dec[1][src[1]] | b64Dec[2][src[2]]
		if v&0xc0 != 0 { // the unused low 2 bits of the third character
			return false
		}
		bad |= v
		dst[0], dst[1] = byte(v>>16), byte(v>>8)
	default: // a length of 1 mod 4
		return false
	}
	return bad&b64Bad == 0
}
