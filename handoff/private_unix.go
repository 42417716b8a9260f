//go:build unix

package handoff

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// mkdirPrivate makes the folder path, which only this user may enter. The
// mode is set by the mkdir itself (a umask only takes bits away), so there
// is no moment when another user could reach a socket made in it.
func mkdirPrivate(path string) error {
	if err := os.Mkdir(path, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByMe(fi) {
		os.Remove(path)
		return fmt.Errorf("%s is not a private folder of this user's (%v)", path, fi.Mode())
	}
	return nil
}

// ownedByMe reports whether this process's user owns the file fi.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
