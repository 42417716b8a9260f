//go:build unix

package reconcile

import (
	"io/fs"
	"syscall"

	"github.com/grimoire-search/grimoire/library"
)

// folderIdentity returns the device and inode of a folder stat'ed at path.
func folderIdentity(_ string, fi fs.FileInfo) library.RootIdentity {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return library.RootIdentity{Device: uint64(st.Dev), Inode: uint64(st.Ino)}
	}
	return library.RootIdentity{}
}
