package reconcile

import (
	"io/fs"

	"github.com/grimoire-search/grimoire/library"
	"golang.org/x/sys/windows"
)

// folderIdentity returns the volume serial number and file index of the
// folder at path; stat alone does not give them on Windows.
func folderIdentity(path string, _ fs.FileInfo) library.RootIdentity {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return library.RootIdentity{}
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return library.RootIdentity{}
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return library.RootIdentity{}
	}
	return library.RootIdentity{
		Device: uint64(info.VolumeSerialNumber),
		Inode:  uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow),
	}
}
