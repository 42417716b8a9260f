//go:build !unix && !windows

package reconcile

import (
	"io/fs"

	"github.com/grimoire-search/grimoire/index"
)

// folderIdentity is unknown here: only the other evidence rules apply.
func folderIdentity(string, fs.FileInfo) index.RootIdentity { return index.RootIdentity{} }
