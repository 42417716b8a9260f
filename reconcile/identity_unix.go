//go:build unix

package reconcile

import (
	"io/fs"
	"syscall"

	"github.com/grimoire-search/grimoire/index"
)

// folderIdentity returns the device and inode of a folder stat'ed at path.
func folderIdentity(_ string, fi fs.FileInfo) index.RootIdentity {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return index.RootIdentity{Device: uint64(st.Dev), Inode: uint64(st.Ino)}
	}
	return index.RootIdentity{}
}
