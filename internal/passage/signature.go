package passage

import (
	"encoding/binary"
	"fmt"

	"github.com/grimoire-search/grimoire/internal/shingle"
)

// Signature is a passage's copy signature: the top 16 bits of each of its
// shingles (shingle.Of), sorted, repeats kept. It holds one value per
// shingle, so its length is the passage's count of shingles, at a quarter
// of their size; two passages share at most SharedAtMost of their
// shingles, which rules out nearly every pair that is not a copy (two
// random passages of 300 shingles each are counted about 1.4 alike, where
// a copy needs 0.4 of them), and the pairs it does not rule out are
// compared by their shingles, worked out from their texts.
type Signature []uint16

// SignatureOf returns the copy signature of a passage's text.
func SignatureOf(text string) Signature {
	sh := shingle.Of(text)
	sig := make(Signature, len(sh))
	for i, x := range sh {
		// Taking the top bits keeps shingle.Of's order.
		sig[i] = uint16(x >> 48)
	}
	return sig
}

// SharedAtMost returns a bound on the shingles the passages of signatures
// a and b share: no fewer than shingle.Shared counts of their shingles.
func SharedAtMost(a, b Signature) int { return shingle.Shared(a, b) }

// EncodeSignature appends sig to dst as little-endian uint16s, as the
// index stores it.
func EncodeSignature(dst []byte, sig Signature) []byte {
	for _, x := range sig {
		dst = binary.LittleEndian.AppendUint16(dst, x)
	}
	return dst
}

// DecodeSignature reads a signature EncodeSignature wrote.
func DecodeSignature(b []byte) (Signature, error) {
	if len(b)%2 != 0 {
		return nil, fmt.Errorf("copy signature of %d bytes: not a whole number of shingles", len(b))
	}
	sig := make(Signature, len(b)/2)
	for i := range sig {
		sig[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return sig, nil
}
