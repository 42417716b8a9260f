//go:build unix

package pdfium

import (
	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// memoryAllocator backs each instance's linear memory with its own
// anonymous mapping, reserved at the instance's maximum and made usable as
// the memory grows. wazero's default grows a Go slice instead, copying it
// at every growth and leaving the old copies to the garbage collector: a
// page that makes PDFium grow to a few hundred megabytes then costs the
// process several times that. A mapping never moves, is never scanned by
// the collector, and goes back to the system whole when the instance
// closes.
func memoryAllocator() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, limit uint64) experimental.LinearMemory {
		if limit > 0 && limit <= uint64(^uint(0)>>1) {
			b, err := unix.Mmap(-1, 0, int(limit), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
			if err == nil {
				return &mappedMemory{buf: b}
			}
		}
		// No address space to reserve: grow on the Go heap.
		return &heapMemory{}
	})
}

// mappedMemory is a reserved mapping whose first committed bytes are
// readable and writable.
type mappedMemory struct {
	buf       []byte
	committed int
}

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil
	}
	n := int(size)
	if n > m.committed {
		page := unix.Getpagesize()
		end := min((n+page-1)/page*page, len(m.buf))
		if err := unix.Mprotect(m.buf[m.committed:end], unix.PROT_READ|unix.PROT_WRITE); err != nil {
			return nil
		}
		m.committed = end
	}
	return m.buf[:n:n]
}

func (m *mappedMemory) Free() {
	if m.buf != nil {
		_ = unix.Munmap(m.buf)
		m.buf, m.committed = nil, 0
	}
}

// heapMemory is a linear memory on the Go heap, grown by copying as
// wazero does by default.
type heapMemory struct{ buf []byte }

func (m *heapMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		b := make([]byte, size, max(size, uint64(cap(m.buf))*5/4))
		copy(b, m.buf)
		m.buf = b
	}
	m.buf = m.buf[:size]
	return m.buf
}

func (m *heapMemory) Free() { m.buf = nil }
