//go:build !unix && !windows

package reconcile

import (
	"io/fs"

	"github.com/grimoire-search/grimoire/library"
)

// folderIdentity is unknown here: only the other evidence rules apply.
func folderIdentity(string, fs.FileInfo) library.RootIdentity { return library.RootIdentity{} }
