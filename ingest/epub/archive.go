package epub

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"path"
	"strings"
)

// archive is the zip container, seen through names that are safe to use:
// entries whose names are absolute or climb out of the root are not in it.
type archive struct {
	files map[string]*zip.File
	// folded maps lower-cased names to files, for books made on
	// case-insensitive file systems whose hrefs and names disagree in case.
	folded map[string]*zip.File
	lim    limits
	// read is how many decompressed bytes have been read so far, against
	// lim.maxTotal.
	read int64
}

func openArchive(data []byte, lim limits) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, failf(ErrNotEPUB, "not an EPUB: not a zip archive (%w)", err)
	}
	if len(zr.File) > lim.maxEntries {
		return nil, failf(ErrTooLarge, "archive has %d entries, more than the %d a book may have (a zip bomb?)", len(zr.File), lim.maxEntries)
	}
	a := &archive{
		files:  make(map[string]*zip.File, len(zr.File)),
		folded: make(map[string]*zip.File, len(zr.File)),
		lim:    lim,
	}
	for _, f := range zr.File {
		name, ok := entryName(f.Name)
		if !ok || f.FileInfo().IsDir() {
			continue
		}
		// A name given twice is ambiguous; the first one wins, as it does in
		// most readers that scan the central directory in order.
		if _, dup := a.files[name]; !dup {
			a.files[name] = f
		}
		if low := strings.ToLower(name); a.folded[low] == nil {
			a.folded[low] = f
		}
	}
	return a, nil
}

// entryName returns the clean form of a zip entry name, and false for names
// that must never be used: absolute paths, drive letters, ".." components,
// NUL bytes. Windows tools sometimes write backslashes; they are separators.
func entryName(raw string) (string, bool) {
	if raw == "" || strings.ContainsRune(raw, 0) {
		return "", false
	}
	name := strings.ReplaceAll(raw, `\`, "/")
	if strings.HasPrefix(name, "/") || (len(name) >= 2 && name[1] == ':') {
		return "", false
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", false
		}
	}
	name = path.Clean(name)
	if name == "." {
		return "", false
	}
	return name, true
}

// lookup finds an entry by its clean name, falling back to a case-insensitive
// match.
func (a *archive) lookup(name string) (*zip.File, bool) {
	if f, ok := a.files[name]; ok {
		return f, true
	}
	f, ok := a.folded[strings.ToLower(name)]
	return f, ok
}

// has reports whether the archive holds the named entry.
func (a *archive) has(name string) bool {
	_, ok := a.lookup(name)
	return ok
}

// canonical returns the entry's own name for a name that lookup accepts, so
// that anchors always cite the name in the archive.
func (a *archive) canonical(name string) (string, bool) {
	f, ok := a.lookup(name)
	if !ok {
		return "", false
	}
	n, _ := entryName(f.Name)
	return n, true
}

// readFile returns the decompressed content of the named entry. The declared
// size is checked first, and the copy is bounded again, because a forged
// header may understate what the stream expands to.
func (a *archive) readFile(name string) ([]byte, error) {
	f, ok := a.lookup(name)
	if !ok {
		return nil, failf(ErrNotEPUB, "not an EPUB: %s is missing", name)
	}
	if f.Flags&0x1 != 0 {
		return nil, failf(ErrDRM, "DRM-protected (entry %s is encrypted inside the zip); grimoire cannot read it", name)
	}
	mb := a.lim.maxEntry >> 20
	if f.UncompressedSize64 > uint64(a.lim.maxEntry) {
		return nil, failf(ErrTooLarge, "entry %s decompresses to more than %d MB (a zip bomb?)", name, mb)
	}
	remaining := a.lim.maxTotal - a.read
	if f.UncompressedSize64 > uint64(max(remaining, 0)) {
		return nil, failf(ErrTooLarge, "the book decompresses to more than %d MB in all (a zip bomb?)", a.lim.maxTotal>>20)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, failf(ErrNotEPUB, "not an EPUB: entry %s cannot be read: %w", name, err)
	}
	defer rc.Close()
	limit := min(a.lim.maxEntry, remaining)
	var buf bytes.Buffer
	if f.UncompressedSize64 < uint64(limit) {
		buf.Grow(int(f.UncompressedSize64))
	}
	n, err := io.Copy(&buf, io.LimitReader(rc, limit+1))
	a.read += n
	if n > limit {
		if limit < a.lim.maxEntry {
			return nil, failf(ErrTooLarge, "the book decompresses to more than %d MB in all (a zip bomb?)", a.lim.maxTotal>>20)
		}
		return nil, failf(ErrTooLarge, "entry %s decompresses to more than %d MB (a zip bomb?)", name, mb)
	}
	if err != nil {
		if errors.Is(err, zip.ErrFormat) {
			// Once an entry is open, archive/zip reports this only for a
			// stream that runs past its declared size: a header that lies
			// is as suspect as a bomb.
			return nil, failf(ErrTooLarge, "entry %s decompresses to more than its declared %d bytes (a zip bomb?)", name, f.UncompressedSize64)
		}
		return nil, failf(ErrNotEPUB, "not an EPUB: entry %s is corrupt: %w", name, err)
	}
	return buf.Bytes(), nil
}

// fatal reports whether an error reading an entry the book could live
// without (a TOC, one content document) must still fail the book: a limit or
// DRM error must, a corrupt or missing entry need not.
func fatal(err error) bool {
	return errors.Is(err, ErrTooLarge) || errors.Is(err, ErrDRM)
}
