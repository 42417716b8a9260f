package epub

import (
	"errors"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/safezip"
)

// archive is the book's zip container, whose failures speak of an EPUB.
type archive struct {
	*safezip.Archive
}

func openArchive(data []byte, lim limits) (*archive, error) {
	a, err := safezip.Open(data, safezip.Limits{MaxEntries: lim.maxEntries, MaxEntry: lim.maxEntry, MaxTotal: lim.maxTotal})
	if err != nil {
		return nil, zipError(err)
	}
	return &archive{a}, nil
}

func (a *archive) has(name string) bool { return a.Has(name) }

func (a *archive) canonical(name string) (string, bool) { return a.Canonical(name) }

// readFile returns the decompressed content of the named entry.
func (a *archive) readFile(name string) ([]byte, error) {
	data, err := a.Read(name)
	if err != nil {
		return nil, zipError(err)
	}
	return data, nil
}

// zipError turns a failure of the zip container into the EPUB's kinds: an
// entry encrypted inside the zip is DRM, a limit is a limit, and the rest
// makes the file no EPUB.
func zipError(err error) error {
	switch {
	case errors.Is(err, safezip.ErrTooLarge):
		return doc.Failf(ErrTooLarge, "%w", err)
	case errors.Is(err, safezip.ErrEncrypted):
		return doc.Failf(ErrDRM, "DRM-protected (%w); grimoire cannot read it", err)
	}
	return doc.Failf(ErrNotEPUB, "not an EPUB: %w", err)
}

// entryName returns the clean form of a zip entry name, and false for names
// that must never be used.
func entryName(raw string) (string, bool) { return safezip.EntryName(raw) }

// fatal reports whether an error reading an entry the book could live
// without (a TOC, one content document) must still fail the book: a limit or
// DRM error must, a corrupt or missing entry need not.
func fatal(err error) bool {
	return errors.Is(err, ErrTooLarge) || errors.Is(err, ErrDRM)
}
