package vec8

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"slices"
	"testing"
)

// reference is the quantizer as first written: scaling by the largest
// magnitude and math.Round.
func reference(x []float32) ([]int8, float32) {
	var m float32
	for _, f := range x {
		m = max(m, f, -f)
	}
	q := make([]int8, len(x))
	if m == 0 {
		return q, 0
	}
	s := m / 127
	for i, f := range x {
		q[i] = int8(math.Round(float64(f * (1 / s))))
	}
	return q, s
}

func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / math.Sqrt(n))
	}
	return out
}

// vectors are the edge cases and random vectors, raw and of unit length.
func vectors() [][]float32 {
	vs := [][]float32{
		// A scale of 1: the halves stay halves.
		{127, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, -126.5, 0.49999997, -0.49999997, float32(math.Copysign(0, -1)), 0},
		{float32(math.Copysign(0, -1)), 0},
		{-3, 1, 2},
		{1e-30, -1e-30, 5e-31},
		{},
	}
	rng := rand.New(rand.NewSource(4))
	for range 2000 {
		v := make([]float32, 64)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		vs = append(vs, v, unit(v))
	}
	return vs
}

// TestQuantizeIsExact: the 8-bit vectors are what scaling by the largest
// magnitude and math.Round make of them, halves and signed zeros included,
// so that quantizing faster changed no search; the encoding holds the same.
func TestQuantizeIsExact(t *testing.T) {
	for _, x := range vectors() {
		want, wantScale := reference(x)
		got := make([]int8, len(x))
		if scale := Quantize(got, x); scale != wantScale || !slices.Equal(got, want) {
			t.Fatalf("Quantize(%v) = %v × %v, want %v × %v", x, got, scale, want, wantScale)
		}
		b := Append([]byte("prefix"), x)
		if string(b[:6]) != "prefix" || len(b) != 6+Size(len(x)) {
			t.Fatalf("Append(%v): %d bytes %q", x, len(b), b)
		}
		q := make([]int8, len(x))
		if scale, ok := Read(q, b[6:]); !ok || scale != wantScale || !slices.Equal(q, want) {
			t.Fatalf("Read(Append(%v)) = %v × %v (%v), want %v × %v", x, q, scale, ok, want, wantScale)
		}
	}
}

// TestLayout pins the stored bytes: the scale as a little-endian float32,
// then a byte per component.
func TestLayout(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    []float32
		want []byte
	}{
		{"empty", nil, []byte{0, 0, 0, 0}},
		{"zero", []float32{0, 0}, []byte{0, 0, 0, 0, 0, 0}},
		{"scale one", []float32{127, -1, 0.5}, binary.LittleEndian.AppendUint32(nil, math.Float32bits(1))},
	} {
		if tc.name == "scale one" {
			tc.want = append(tc.want, 127, 0xff, 1)
		}
		if got := Append(nil, tc.x); !bytes.Equal(got, tc.want) {
			t.Errorf("%s: % x, want % x", tc.name, got, tc.want)
		}
	}
}

// TestFloatsEncodeAgain: a vector decoded to floats is the scale times
// each component, and is stored again as the same bytes.
func TestFloatsEncodeAgain(t *testing.T) {
	vs := vectors()
	// Every largest magnitude from 127 to past 128, where 127 × scale
	// crosses into the next binade and rounds more coarsely.
	for bits := math.Float32bits(127); bits < math.Float32bits(127)+200000; bits++ {
		vs = append(vs, []float32{math.Float32frombits(bits), -1, 0.25})
	}
	for _, x := range vs {
		b := Append(nil, x)
		f := Floats(b)
		if again := Append(nil, f); !bytes.Equal(again, b) {
			t.Fatalf("%v: encoded % x, its floats %v encode to % x", x, b, f, again)
		}
		q, s := reference(x)
		for i := range f {
			if want := float32(q[i]) * s; f[i] != want {
				t.Fatalf("%v: component %d decoded to %v, want %v", x, i, f[i], want)
			}
		}
	}
}

// TestDecodeRefuses: bytes of another length are no vector of the
// dimension asked for, and too few are none at all.
func TestDecodeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		dim  int
	}{
		{"nothing", nil, 0},
		{"short scale", []byte{1, 2, 3}, 0},
		{"float32 of the old format", make([]byte, 4*8), 8},
		{"one byte short", make([]byte, Size(8)-1), 8},
		{"one byte long", make([]byte, Size(8)+1), 8},
	} {
		if _, ok := Read(make([]int8, tc.dim), tc.b); ok {
			t.Errorf("%s: read as a vector of %d", tc.name, tc.dim)
		}
	}
	if Floats(nil) != nil || Floats([]byte{1, 2, 3}) != nil {
		t.Error("Floats decoded fewer bytes than a scale")
	}
}

// FuzzDecode: no stored bytes make the decoders panic, and what Read
// takes, Floats decodes to as many components.
func FuzzDecode(f *testing.F) {
	f.Add(Append(nil, []float32{0.5, -1, 3.25}), 3)
	f.Add([]byte{}, 0)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x80, 0x7f}, 2)
	f.Fuzz(func(t *testing.T, b []byte, dim int) {
		dim = min(max(dim, 0), 4096)
		q := make([]int8, dim)
		_, ok := Read(q, b)
		fs := Floats(b)
		if ok && len(fs) != dim {
			t.Fatalf("Read took % x as %d components, Floats as %d", b, dim, len(fs))
		}
		if len(b) >= 4 && len(fs) != len(b)-4 {
			t.Fatalf("Floats(% x): %d components", b, len(fs))
		}
	})
}
