package passage

import (
	"encoding/binary"
	"fmt"

	"github.com/grimoire-search/grimoire/internal/shingle"
)

// Signature returns the copy signature of a passage's text: its shingles
// (shingle.Of), sorted, by whose share two passages are found to hold the
// same text.
func Signature(text string) []uint64 { return shingle.Of(text) }

// EncodeSignature appends sig to dst as little-endian uint64s, as the
// index stores it.
func EncodeSignature(dst []byte, sig []uint64) []byte {
	for _, x := range sig {
		dst = binary.LittleEndian.AppendUint64(dst, x)
	}
	return dst
}

// DecodeSignature reads a signature EncodeSignature wrote.
func DecodeSignature(b []byte) ([]uint64, error) {
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("copy signature of %d bytes: not a whole number of shingles", len(b))
	}
	sig := make([]uint64, len(b)/8)
	for i := range sig {
		sig[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return sig, nil
}
