//go:build unix

package pdfium

import (
	"bytes"
	"testing"
	"unsafe"
)

// TestMappedMemory grows a mapped memory the way wazero does: its bytes
// stay put and keep their content, new bytes read zero, and it refuses to
// grow past its reservation.
func TestMappedMemory(t *testing.T) {
	const limit = 64 << 20
	m, ok := memoryAllocator().Allocate(0, limit).(*mappedMemory)
	if !ok {
		t.Skip("no mapping here")
	}
	defer m.Free()
	b := m.Reallocate(65536)
	if len(b) != 65536 {
		t.Fatalf("len %d", len(b))
	}
	copy(b, "grimoire")
	base := unsafe.SliceData(b)
	for _, size := range []uint64{65536 * 3, 1 << 20, limit} {
		b = m.Reallocate(size)
		if uint64(len(b)) != size || unsafe.SliceData(b) != base {
			t.Fatalf("Reallocate(%d): len %d, moved %v", size, len(b), unsafe.SliceData(b) != base)
		}
		if !bytes.HasPrefix(b, []byte("grimoire")) || b[size-1] != 0 {
			t.Fatalf("Reallocate(%d) lost the content or is not zeroed", size)
		}
		b[size-1] = 1
	}
	if m.Reallocate(limit+1) != nil {
		t.Error("grew past its reservation")
	}
	m.Free()
	m.Free()
	if m.Reallocate(65536) != nil {
		t.Error("usable after Free")
	}
}
