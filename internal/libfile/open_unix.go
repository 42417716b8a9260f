//go:build unix

package libfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// open walks from root to the file one folder at a time with openat and
// O_NOFOLLOW, so a folder swapped for a link after the scan is not
// followed. The file itself is looked at before it is opened, so a FIFO or
// a device is never opened at all; it is opened non-blocking all the same,
// and checked again once open, in case it was swapped in between.
func open(root, path string, parts []string) (*os.File, Info, error) {
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, Info{}, err
	}
	for _, name := range parts[:len(parts)-1] {
		next, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			err = classify(dir, name, err)
		}
		unix.Close(dir)
		if err != nil {
			return nil, Info{}, err
		}
		dir = next
	}
	defer unix.Close(dir)
	name := parts[len(parts)-1]
	var seen unix.Stat_t
	if err := unix.Fstatat(dir, name, &seen, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, Info{}, err
	}
	if err := regular(uint32(seen.Mode)); err != nil {
		return nil, Info{}, err
	}
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, Info{}, classify(dir, name, err)
	}
	// Regular files ignore O_NONBLOCK; clearing it keeps the descriptor
	// plain for os.File.
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, Info{}, err
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Info{}, err
	}
	info := infoOf(fi)
	switch {
	case !fi.Mode().IsRegular():
		err = ErrNotRegular
	case info.Dev != uint64(seen.Dev) || info.Ino != uint64(seen.Ino):
		err = ErrChanged // swapped between the look and the open
	}
	if err != nil {
		f.Close()
		return nil, Info{}, err
	}
	return f, info, nil
}

// classify turns the error of an openat with O_NOFOLLOW into one that says
// what stands there: systems disagree on the errno for a link (ELOOP,
// EMLINK, EFTYPE; ENOTDIR with O_DIRECTORY).
func classify(dir int, name string, err error) error {
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) {
		return err
	}
	var st unix.Stat_t
	if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return ErrLink
	case unix.S_IFREG:
		if errors.Is(err, unix.ENOTDIR) {
			return ErrChanged // a folder the scan went through is a file now
		}
		return err
	case unix.S_IFDIR:
		return err
	}
	return ErrNotRegular
}

func regular(mode uint32) error {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return nil
	case unix.S_IFLNK:
		return ErrLink
	}
	return ErrNotRegular
}

func infoOf(fi fs.FileInfo) Info {
	info := Info{Size: fi.Size(), ModTime: fi.ModTime()}
	info.Dev, info.Ino = IDOf(fi)
	return info
}

// IDOf returns the device and inode of a file a stat described, as Open
// compares them.
func IDOf(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
