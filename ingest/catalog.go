package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/meta"
	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/source/calibre"
)

// maxOPF bounds a metadata.opf: calibre's are a few kilobytes.
const maxOPF = 4 << 20

// catalogOf returns what the calibre entry holding one of files says of
// the book, if one does (read). A missing or broken metadata.opf says
// nothing: the book speaks for itself. held reports that a calibre entry
// holds one of files, even when its metadata.opf could not be read (calibre
// may be writing it): the catalogue is then calibre's to give, and
// RefreshCatalogs gives it, never the book's file.
func catalogOf(ctx context.Context, files []library.File) (e library.CatalogEntry, read, held bool) {
	for _, f := range files {
		dir := filepath.Dir(f.Path)
		if !calibre.Entry(dir, f.Root) {
			continue
		}
		held = true
		if e, err := readOPF(ctx, f.Root, filepath.Join(dir, calibre.OPF)); err == nil {
			return e, true, true
		}
	}
	return library.CatalogEntry{}, false, held
}

// fileCatalog is the catalogue of a book that no calibre entry holds:
// what its own file says (EPUB's subjects, a Kindle book's EXTH, a PDF's
// Info), which a parse writes whole, so that an edited file's description
// leaves nothing of the old one. Its Path is empty: no catalogue file
// gave it.
func fileCatalog(c doc.Catalog) *library.CatalogEntry {
	return &library.CatalogEntry{Catalog: library.Catalog{
		Series: c.Series, SeriesIndex: c.SeriesIndex, Tags: c.Tags,
		Publisher: c.Publisher, Published: c.Published, Identifiers: c.Identifiers,
		Collections: c.Collections, ItemType: c.ItemType, Publication: c.Publication, Abstract: c.Abstract,
	}}
}

// readOPF reads a calibre entry's metadata.opf, through libfile as every
// file of the library.
func readOPF(ctx context.Context, root, path string) (library.CatalogEntry, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return library.CatalogEntry{}, err
	}
	if fi.Size() > maxOPF {
		return library.CatalogEntry{}, fmt.Errorf("%s: over %d bytes", path, maxOPF)
	}
	data, err := libfile.ReadFile(ctx, root, path, libfile.Want{Size: fi.Size()})
	if err != nil {
		return library.CatalogEntry{}, err
	}
	var pkg struct {
		UniqueIdentifier string   `xml:"unique-identifier,attr"`
		Metadata         meta.OPF `xml:"metadata"`
	}
	if err := xhtml.NewXMLDecoder(data).Decode(&pkg); err != nil {
		return library.CatalogEntry{}, fmt.Errorf("%s: %w", path, err)
	}
	info := meta.FromOPF(&pkg.Metadata, pkg.UniqueIdentifier)
	return library.CatalogEntry{
		Title: info.Title, Authors: info.Authors, Language: info.Language,
		Catalog: library.Catalog{
			Path: path, Series: info.Series, SeriesIndex: info.SeriesIndex, Tags: info.Tags,
			Publisher: info.Publisher, Published: info.Date, Identifiers: info.Identifiers,
		},
	}, nil
}

// RefreshCatalogs reads again the metadata.opf of the calibre entries that
// hold books, under scope (nil: everywhere), and stores what changed: an
// edit in calibre changes the description, never the book's bytes, so no
// book is ingested again. A path in scope may be the metadata.opf itself.
// It returns the books whose description changed.
func RefreshCatalogs(ctx context.Context, w *index.Writer, scope []string) ([]library.Hash, error) {
	files, err := w.Files(ctx)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	entries := make(map[string]bool)
	type read struct {
		hash  library.Hash
		entry library.CatalogEntry
	}
	var reads []read
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := files[p]
		dir := filepath.Dir(p)
		if scope != nil && !subtree.InAny(dir, scope) && !subtree.InAny(filepath.Join(dir, calibre.OPF), scope) {
			continue
		}
		is, seen := entries[dir]
		if !seen {
			is = calibre.Entry(dir, f.Root)
			entries[dir] = is
		}
		if !is {
			continue
		}
		e, err := readOPF(ctx, f.Root, filepath.Join(dir, calibre.OPF))
		if err != nil {
			continue // being rewritten, or broken: the book keeps what it had
		}
		reads = append(reads, read{f.Hash, e})
	}
	// A few hundred books a transaction: a large calibre library's first
	// sync describes every book.
	var changed []library.Hash
	for start := 0; start < len(reads); start += catalogBatch {
		batch := reads[start:min(start+catalogBatch, len(reads))]
		var got []library.Hash
		err := w.Update(ctx, func(t *index.Tx) error {
			got = got[:0]
			for _, r := range batch {
				ok, err := t.SetCatalog(ctx, r.hash, r.entry)
				if err != nil {
					return err
				}
				if ok {
					got = append(got, r.hash)
				}
			}
			return nil
		})
		if err != nil {
			return changed, err
		}
		changed = append(changed, got...)
	}
	return changed, nil
}

// catalogBatch is how many books' descriptions one transaction stores.
const catalogBatch = 256
