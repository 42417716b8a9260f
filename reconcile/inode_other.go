//go:build !unix

package reconcile

import "io/fs"

// inodeOf returns 0 where stat gives no inode cheaply (Windows): the fast
// path then relies on size and mtime, and moves are found by hash alone.
func inodeOf(fs.FileInfo) uint64 { return 0 }
