//go:build windows

package libfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/windows"
)

// open opens the file itself without following a reparse point (a symbolic
// link or junction) and refuses anything but a plain disk file. Folders
// between root and the file are resolved by the system: the scan records no
// file IDs on Windows that a junction swapped in for a folder could be
// caught by.
func open(root, path string, parts []string) (*os.File, Info, error) {
	p, err := windows.UTF16PtrFromString(verbatim(path))
	if err != nil {
		return nil, Info{}, err
	}
	// FILE_FLAG_BACKUP_SEMANTICS opens a folder too, which handleInfo
	// then refuses as no regular file, where it would fail as access
	// denied.
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, Info{}, err
	}
	info, err := handleInfo(h)
	if err != nil {
		windows.CloseHandle(h)
		return nil, Info{}, err
	}
	return os.NewFile(uintptr(h), path), info, nil
}

// verbatim gives an absolute path the \\?\ form, which the system takes
// as it is. Without it, a path past MAX_PATH (260) fails unless long paths
// are enabled for the whole machine (Go's os adds the form for its own
// calls, not for ours), a name with a trailing dot or space opens another
// file, and one Windows reserves (CON, aux.txt) opens a device: the walk
// lists such names as they are on disk, and the file opened must be that
// one.
func verbatim(path string) string {
	switch {
	case !filepath.IsAbs(path), strings.HasPrefix(path, `\\?\`), strings.HasPrefix(path, `\\.\`):
		return path
	case strings.HasPrefix(path, `\\`):
		return `\\?\UNC\` + filepath.Clean(path)[2:]
	}
	return `\\?\` + filepath.Clean(path)
}

func handleInfo(h windows.Handle) (Info, error) {
	if t, err := windows.GetFileType(h); err != nil {
		return Info{}, err
	} else if t != windows.FILE_TYPE_DISK {
		return Info{}, ErrNotRegular
	}
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return Info{}, err
	}
	switch {
	case d.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0:
		return Info{}, ErrLink
	case d.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0:
		return Info{}, ErrNotRegular
	}
	return Info{
		Size:    int64(d.FileSizeHigh)<<32 | int64(d.FileSizeLow),
		ModTime: time.Unix(0, d.LastWriteTime.Nanoseconds()),
		Dev:     uint64(d.VolumeSerialNumber),
		Ino:     uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow),
	}, nil
}

func infoOf(fi fs.FileInfo) Info {
	return Info{Size: fi.Size(), ModTime: fi.ModTime()}
}

// IDOf returns 0, 0: a stat on Windows does not give the file ID cheaply,
// and Open compares what is known.
func IDOf(fs.FileInfo) (dev, ino uint64) { return 0, 0 }
