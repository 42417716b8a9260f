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

// keepPrivate takes away other users' access to the index file at abs and
// to its -wal and -shm. It changes modes by path, never by opening the
// files: closing a descriptor of the database would drop the locks SQLite
// holds on it in this process. A failure is not the index's: a file system
// without modes, a file of another user's.
func keepPrivate(abs string) {
	for _, p := range []string{abs, abs + "-wal", abs + "-shm"} {
		keepFilePrivate(p)
	}
}

func keepFilePrivate(path string) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	os.Chmod(path, fi.Mode().Perm()&^0o077)
}
