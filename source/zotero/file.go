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
