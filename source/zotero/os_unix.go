//go:build unix

package zotero

import "golang.org/x/sys/unix"

// ownFlags open a file of the data directory without following a link
// and without blocking on a FIFO.
const ownFlags = unix.O_NOFOLLOW | unix.O_NONBLOCK

// SQLite's lock bytes in a database file (its os_unix.c): the pending
// byte, the reserved byte, then the range a reader takes one byte of.
const (
	pendingByte = 0x40000000
	lockBytes   = 1 + 1 + 510
)

// lockedByOther reports whether another process holds a SQLite lock on the
// database at p: a running Zotero does, all the while it runs. It asks
// with F_GETLK, which takes no lock: a write lock over the lock bytes
// would conflict with any lock another process holds there.
//
// POSIX locks belong to the process, and closing any descriptor of a file
// drops all the process's locks on it: so this must not run on a database
// the process itself holds open through SQLite (a lock held in this
// process is not seen either).
func lockedByOther(p string) bool {
	f, err := openOwn(p)
	if err != nil {
		return false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: pendingByte, Len: lockBytes}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil {
		return false
	}
	return lk.Type != unix.F_UNLCK
}
