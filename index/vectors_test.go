package index

import (
	"bytes"
	"testing"

	"github.com/grimoire-search/grimoire/internal/vec8"
)

// TestStoredVector: what a rebuild salvages of an old file comes out in the
// encoding stored now, whichever grimoire wrote it.
func TestStoredVector(t *testing.T) {
	v := []float32{0.5, -1, 3.25, 0}
	enc := vec8.Append(nil, v)
	for _, tc := range []struct {
		name string
		raw  []byte
		dim  int
		want []byte
	}{
		{"encoded", enc, 4, enc},
		{"float32, before schema 22", float32Blob(v), 4, enc},
		{"another dimension", enc, 5, nil},
		{"float32 of another dimension", float32Blob(v), 3, nil},
		{"nothing", nil, 4, nil},
	} {
		got, ok := storedVector(tc.raw, tc.dim)
		if ok != (tc.want != nil) || !bytes.Equal(got, tc.want) {
			t.Errorf("%s: % x, %v; want % x", tc.name, got, ok, tc.want)
		}
	}
}
