// Package vec8 is the one encoding of a stored embedding vector: its
// components as 8-bit integers with one float32 scale, the precision the
// vector search scans at. The index writes it and search reads it as it
// is, so the quantizer lives here alone.
//
// The encoding of a vector of dim components is dim+4 bytes: the scale as
// a little-endian float32, then each component as a signed byte. The
// vector it stands for is the scale times each component.
package vec8

import (
	"encoding/binary"
	"math"
	"slices"
)

// Size is the length of the encoding of a vector of dim components.
func Size(dim int) int { return dim + 4 }

// Quantize writes x scaled to 8-bit integers into q, which must be as long,
// and returns the scale that undoes it: the largest |component| / 127,
// each component rounded half away from zero.
func Quantize(q []int8, x []float32) float32 { return quantize(q, x) }

func quantize[E int8 | byte](q []E, x []float32) float32 {
	// The largest magnitude, compared as bits: the order of the bits of
	// |f| is the order of |f|, and the builtin max, which minds NaNs and
	// the signs of zeros, took as long as the rest.
	var mb uint32
	for _, f := range x {
		mb = max(mb, math.Float32bits(f)&0x7fffffff)
	}
	m := math.Float32frombits(mb)
	if m == 0 {
		clear(q)
		return 0
	}
	s := m / 127
	inv := 1 / s
	for i, f := range x {
		// Rounded half away from zero, as math.Round rounds, without
		// its call (a third of loading the vectors): f*inv lies within
		// ±127, where adding ±0.5 in float64 is exact, and the
		// conversion truncates.
		r := float64(f * inv)
		q[i] = E(int8(r + math.Copysign(0.5, r)))
	}
	return s
}

// Append appends the encoding of x to dst.
func Append(dst []byte, x []float32) []byte {
	n := len(dst)
	dst = slices.Grow(dst, Size(len(x)))[:n+Size(len(x))]
	s := quantize(dst[n+4:], x)
	binary.LittleEndian.PutUint32(dst[n:], math.Float32bits(s))
	return dst
}

// Read copies the components that b encodes into q and returns the scale;
// false, with q untouched, when b is not the encoding of a vector of
// len(q) components.
func Read(q []int8, b []byte) (scale float32, ok bool) {
	if len(b) != Size(len(q)) {
		return 0, false
	}
	for i, c := range b[4:] {
		q[i] = int8(c)
	}
	return scaleOf(b), true
}

// Floats decodes b into a new slice of floats, nil when b is too short to
// be an encoding. What Append wrote decodes to floats that Append encodes
// to the same bytes again (127 × scale, rounded, divides back to the scale:
// tried for every scale of a binade, so for all but subnormal ones), so
// that a vector passed on as floats (a rebuild's) is stored unchanged.
func Floats(b []byte) []float32 {
	if len(b) < Size(0) {
		return nil
	}
	s := scaleOf(b)
	out := make([]float32, len(b)-4)
	for i, c := range b[4:] {
		out[i] = float32(int8(c)) * s
	}
	return out
}

func scaleOf(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }
