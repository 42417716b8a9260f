//go:build !unix

package pdfium

import "github.com/tetratelabs/wazero/experimental"

// memoryAllocator leaves linear memory to wazero where there is no mmap.
func memoryAllocator() experimental.MemoryAllocator { return nil }
