// Package safezip reads the zip containers that book formats come in (EPUB,
// DOCX, ODT, HTMLZ, zipped FB2) as untrusted input: in memory only, entries
// with unsafe names left out, inflated sizes capped per entry and in total,
// and every failure an error that says what is wrong with which entry.
package safezip

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// Kinds of failure, for errors.Is. Every error also carries a message that
// names the entry.
var (
	// ErrNotZip reports data that is no zip archive.
	ErrNotZip = errors.New("not a zip archive")
	// ErrMissing reports an entry that the archive does not hold.
	ErrMissing = errors.New("entry missing")
	// ErrCorrupt reports an entry that cannot be inflated.
	ErrCorrupt = errors.New("entry corrupt")
	// ErrEncrypted reports an entry encrypted with a zip password.
	ErrEncrypted = errors.New("entry encrypted")
	// ErrTooLarge reports an archive with more entries or more inflated
	// bytes than a book can plausibly need, which is how zip bombs look.
	ErrTooLarge = errors.New("archive too large to read safely")
)

// Error is a failure to read an archive or one of its entries.
type Error struct {
	// Kind is one of the Err values above.
	Kind error
	// Entry is the entry's name, empty for the archive as a whole.
	Entry string
	msg   string
	cause error
}

// Error is the message alone, which names the entry: "OEBPS/ch1.xhtml is
// missing", "entry word/document.xml decompresses to more than 64 MB (a zip
// bomb?)". Callers add what the archive was meant to be.
func (e *Error) Error() string { return e.msg }

func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Kind, e.cause}
	}
	return []error{e.Kind}
}

func fail(kind error, entry, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Kind: kind, Entry: entry, msg: err.Error(), cause: errors.Unwrap(err)}
}

// Limits bound what one archive may cost. They are values, not package
// state, so that tests can shrink them.
type Limits struct {
	// MaxEntries is the most entries an archive may have.
	MaxEntries int
	// MaxEntry is the most bytes one entry may inflate to.
	MaxEntry int64
	// MaxTotal is the most bytes all entries read from one archive may
	// inflate to together.
	MaxTotal int64
}

// DefaultLimits are generous for any book: 20,000 entries, 64 MB an entry,
// 512 MB in all.
func DefaultLimits() Limits {
	return Limits{MaxEntries: 20000, MaxEntry: 64 << 20, MaxTotal: 512 << 20}
}

// Archive is a zip container, seen through names that are safe to use:
// entries whose names are absolute or climb out of the root are not in it.
type Archive struct {
	files map[string]*zip.File
	// folded maps lower-cased names to files, for archives made on
	// case-insensitive file systems whose references and names disagree
	// in case.
	folded map[string]*zip.File
	names  []string // in the archive's order
	lim    Limits
	// read is how many inflated bytes have been read so far, against
	// lim.MaxTotal.
	read int64
}

// Open reads the archive's directory. It fails with ErrNotZip for data
// that is not a zip archive and ErrTooLarge for one with more than
// lim.MaxEntries entries.
func Open(data []byte, lim Limits) (*Archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fail(ErrNotZip, "", "not a zip archive (%w)", err)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, fail(ErrTooLarge, "", "archive has %d entries, more than the %d a book may have (a zip bomb?)", len(zr.File), lim.MaxEntries)
	}
	a := &Archive{
		files:  make(map[string]*zip.File, len(zr.File)),
		folded: make(map[string]*zip.File, len(zr.File)),
		lim:    lim,
	}
	for _, f := range zr.File {
		name, ok := EntryName(f.Name)
		if !ok || f.FileInfo().IsDir() {
			continue
		}
		// A name given twice is ambiguous; the first one wins, as it does in
		// most readers that scan the central directory in order.
		if _, dup := a.files[name]; !dup {
			a.files[name] = f
			a.names = append(a.names, name)
		}
		if low := strings.ToLower(name); a.folded[low] == nil {
			a.folded[low] = f
		}
	}
	return a, nil
}

// EntryName returns the clean form of a zip entry name, and false for names
// that must never be used: absolute paths, drive letters, ".." components,
// NUL bytes. Windows tools sometimes write backslashes; they are separators.
func EntryName(raw string) (string, bool) {
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

// Names returns the names of the archive's files, in the archive's order.
func (a *Archive) Names() []string {
	return a.names
}

// lookup finds an entry by its clean name, falling back to a case-insensitive
// match.
func (a *Archive) lookup(name string) (*zip.File, bool) {
	if f, ok := a.files[name]; ok {
		return f, true
	}
	f, ok := a.folded[strings.ToLower(name)]
	return f, ok
}

// Has reports whether the archive holds the named entry.
func (a *Archive) Has(name string) bool {
	_, ok := a.lookup(name)
	return ok
}

// Canonical returns the entry's own name for a name that Has accepts, so
// that citations always name the entry as the archive does.
func (a *Archive) Canonical(name string) (string, bool) {
	f, ok := a.lookup(name)
	if !ok {
		return "", false
	}
	n, _ := EntryName(f.Name)
	return n, true
}

// Read returns the inflated content of the named entry. The declared size
// is checked first, and the copy is bounded again, because a forged header
// may understate what the stream expands to.
func (a *Archive) Read(name string) ([]byte, error) {
	f, ok := a.lookup(name)
	if !ok {
		return nil, fail(ErrMissing, name, "%s is missing", name)
	}
	if f.Flags&0x1 != 0 {
		return nil, fail(ErrEncrypted, name, "entry %s is encrypted inside the zip", name)
	}
	mb := a.lim.MaxEntry >> 20
	if f.UncompressedSize64 > uint64(a.lim.MaxEntry) {
		return nil, fail(ErrTooLarge, name, "entry %s decompresses to more than %d MB (a zip bomb?)", name, mb)
	}
	remaining := a.lim.MaxTotal - a.read
	if f.UncompressedSize64 > uint64(max(remaining, 0)) {
		return nil, fail(ErrTooLarge, name, "the book decompresses to more than %d MB in all (a zip bomb?)", a.lim.MaxTotal>>20)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fail(ErrCorrupt, name, "entry %s cannot be read: %w", name, err)
	}
	defer rc.Close()
	limit := min(a.lim.MaxEntry, remaining)
	var buf bytes.Buffer
	if f.UncompressedSize64 < uint64(limit) {
		buf.Grow(int(f.UncompressedSize64))
	}
	n, err := io.Copy(&buf, io.LimitReader(rc, limit+1))
	a.read += n
	if n > limit {
		if limit < a.lim.MaxEntry {
			return nil, fail(ErrTooLarge, name, "the book decompresses to more than %d MB in all (a zip bomb?)", a.lim.MaxTotal>>20)
		}
		return nil, fail(ErrTooLarge, name, "entry %s decompresses to more than %d MB (a zip bomb?)", name, mb)
	}
	if err != nil {
		if errors.Is(err, zip.ErrFormat) {
			// Once an entry is open, archive/zip reports this only for a
			// stream that runs past its declared size: a header that lies
			// is as suspect as a bomb.
			return nil, fail(ErrTooLarge, name, "entry %s decompresses to more than its declared %d bytes (a zip bomb?)", name, f.UncompressedSize64)
		}
		return nil, fail(ErrCorrupt, name, "entry %s is corrupt: %w", name, err)
	}
	return buf.Bytes(), nil
}
