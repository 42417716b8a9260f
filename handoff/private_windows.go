//go:build windows

package handoff

import (
	"fmt"
	"io/fs"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// mkdirPrivate makes the folder path with an access list that admits only
// this user, inherited by what is made in it. A socket takes its access
// list from its folder when it is made, and connecting takes write access
// to the socket itself, so no other user can connect, even for a moment.
// Windows lets anyone pass through folders they cannot open, which is why
// the socket's own access list is what counts, not the folder's.
func mkdirPrivate(path string) error {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("who runs this process: %w", err)
	}
	// P: nothing inherited from the parent folder; OICI: files and
	// folders made inside get the same entry; FA: all access.
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;" + u.User.Sid.String() + ")")
	if err != nil {
		return fmt.Errorf("an access list for %s: %w", path, err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return &os.PathError{Op: "mkdir", Path: path, Err: err}
	}
	if err := windows.CreateDirectory(p, sa); err != nil {
		return &os.PathError{Op: "mkdir", Path: path, Err: err}
	}
	return nil
}

// ownedByMe is true on Windows: a folder left beside the index that this
// user cannot remove stays, and another is made elsewhere.
func ownedByMe(fs.FileInfo) bool { return true }
