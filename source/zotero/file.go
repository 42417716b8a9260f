package zotero

import (
	"fmt"
	"os"
)

// openRegular opens the regular file at p for reading, refusing anything
// else (a FIFO would block the read for ever).
func openRegular(p string) (*os.File, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	return os.Open(p)
}

// openOwn opens the file at p, one of the data directory's own (the
// database, its journal, its backup), refusing anything but a regular
// file: a FIFO would block the read for ever, and a link would have a
// file from elsewhere read as Zotero's. fs.ErrNotExist passes through.
func openOwn(p string) (*os.File, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	// Opened without following a link or blocking, and looked at again:
	// the file may have been swapped since the first look.
	f, err := os.OpenFile(p, os.O_RDONLY|ownFlags, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	return f, nil
}
