// Package libfile opens the files of a library for reading without ever
// leaving the library: no symbolic link (or Windows reparse point) below the
// library folder is followed, only regular files are read, an open never
// blocks, and a read never goes past the size the scan saw and stops when
// its context is done.
package libfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

var (
	// ErrLink means a symbolic link (or junction) stands where the scan
	// saw a file or folder: following it could leave the library.
	ErrLink = errors.New("a symbolic link stands on the path")
	// ErrNotRegular means the path is not a regular file (a FIFO, a device,
	// a socket, a folder).
	ErrNotRegular = errors.New("not a regular file")
	// ErrChanged means the file is not the one the scan saw: another file
	// took its place, or it grew or shrank.
	ErrChanged = errors.New("changed since it was scanned")
	// ErrOutside means the path does not lie below the library folder.
	ErrOutside = errors.New("not inside the library folder")
	// ErrReserved means a name on the path is one Windows keeps for a
	// device (before Windows 11 with an extension too, as aux.txt): other
	// programs cannot open it either, so the user is told to rename it.
	ErrReserved = errors.New("Windows keeps this name for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9); rename it to have it indexed")
)

// Want is what the caller saw of a file before opening it; the opened file
// must match it.
type Want struct {
	// Size is the size the scan saw; a read never returns more.
	Size int64
	// Dev and Ino identify the file; 0 when unknown (Windows, or not
	// recorded).
	Dev, Ino uint64
}

// Info is what the opened file is.
type Info struct {
	Size     int64
	ModTime  time.Time
	Dev, Ino uint64
}

func (i Info) matches(w Want) bool {
	return i.Size == w.Size && (w.Ino == 0 || i.Ino == w.Ino) && (w.Dev == 0 || i.Dev == w.Dev)
}

// File is an open regular file of the library.
type File struct {
	f    *os.File
	info Info
}

// Open opens path, which must lie below root, for reading. On unix the
// folders between root and the file are opened one by one without following
// a symbolic link; root itself may be one (the user chose it). Windows
// checks the file itself only (see open_windows.go). The file must be a
// regular file that matches want.
func Open(root, path string, want Want) (*File, error) {
	parts, err := below(root, path)
	if err != nil {
		return nil, err
	}
	f, info, err := open(root, path, parts)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if !info.matches(want) {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrChanged}
	}
	return &File{f: f, info: info}, nil
}

// Stat tells what Open would find at path, by the same rules (no link
// followed below root, a regular file only), without reading it.
func Stat(root, path string) (Info, error) {
	parts, err := below(root, path)
	if err != nil {
		return Info{}, err
	}
	f, info, err := open(root, path, parts)
	if err != nil {
		return Info{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	f.Close()
	return info, nil
}

// below splits path into its parts below root.
func below(root, path string) ([]string, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrOutside}
	}
	if !filepath.IsLocal(rel) {
		if reserved(rel) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: ErrReserved}
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrOutside}
	}
	return strings.Split(rel, string(filepath.Separator)), nil
}

// reserved reports whether rel, a clean relative path that
// filepath.IsLocal refuses, is refused only for a name Windows reserves:
// it does not climb out, is not rooted, and names no drive or stream.
func reserved(rel string) bool {
	if rel == "" || filepath.IsAbs(rel) || os.IsPathSeparator(rel[0]) || strings.Contains(rel, ":") {
		return false
	}
	for part := range strings.SplitSeq(rel, string(filepath.Separator)) {
		if part == ".." {
			return false
		}
	}
	return true
}

// Info returns what the file was when it was opened.
func (f *File) Info() Info { return f.info }

// Stat returns what the file is now.
func (f *File) Stat() (Info, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return Info{}, err
	}
	return infoOf(fi), nil
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Reader reads the file from its start in the caller's chunks. It checks
// ctx before each chunk, and fails with ErrChanged when the file holds more
// or fewer bytes than it had when it was opened.
func (f *File) Reader(ctx context.Context) io.Reader {
	return &reader{ctx: ctx, f: f.f, left: f.info.Size}
}

type reader struct {
	ctx  context.Context
	f    *os.File
	left int64 // bytes still expected
}

func (r *reader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if r.left == 0 {
		// One byte more than expected tells growth from the end.
		var one [1]byte
		n, err := r.f.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%w (it grew while it was read)", ErrChanged)
		}
		if err == nil || errors.Is(err, io.EOF) {
			return 0, io.EOF
		}
		return 0, err
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.f.Read(p)
	r.left -= int64(n)
	if errors.Is(err, io.EOF) && r.left > 0 {
		return n, fmt.Errorf("%w (it shrank while it was read)", ErrChanged)
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// chunk is how much ReadFile reads between two looks at its context.
const chunk = 1 << 20

// ReadFile opens path as Open does and reads it whole.
func ReadFile(ctx context.Context, root, path string, want Want) ([]byte, error) {
	f, err := Open(root, path, want)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, f.info.Size)
	r := f.Reader(ctx)
	for n := 0; n < len(data); {
		m, err := r.Read(data[n:min(len(data), n+chunk)])
		n += m
		if err != nil {
			return nil, err
		}
	}
	// Past the expected size, the reader only checks for growth.
	if _, err := r.Read(nil); err != io.EOF {
		return nil, err
	}
	return data, nil
}

// Cause is what a path error says went wrong, without the operation and
// the path, for a message that names the path itself; any other error is
// returned as it is.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
