//go:build windows

package index

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// statID identifies the file behind fi; Windows gives no file index
// through os.FileInfo, so size and time stand alone.
func statID(os.FileInfo) string { return "" }

// fileID identifies an open file by volume and file index.
func fileID(f *os.File) string {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d", info.VolumeSerialNumber, info.FileIndexHigh, info.FileIndexLow)
}

// readOnlyForAll is false on Windows: a folder's read-only attribute does
// not stop files being created in it, and access lists are per user, so
// whether some writer could start cannot be told from here.
func readOnlyForAll(string) bool { return false }

// keepPrivate does nothing on Windows: files take their access list from
// their folder, and modes only carry the read-only attribute.
func keepPrivate(string) {}

func keepFilePrivate(string) {}
