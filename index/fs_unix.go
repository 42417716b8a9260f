//go:build unix

package index

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// statID identifies the file behind fi (device and inode), "" when unknown.
func statID(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino))
	}
	return ""
}

// fileID identifies an open file.
func fileID(f *os.File) string {
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	return statID(fi)
}

// readOnlyForAll reports whether nobody can create files in dir: it is on
// a read-only file system, or its permissions let no one write. Then no
// writer can start (SQLite's writer must create the -wal file there).
func readOnlyForAll(dir string) bool {
	if err := unix.Access(dir, unix.W_OK); errors.Is(err, unix.EROFS) {
		return true
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.Mode().Perm()&0o222 == 0
}
