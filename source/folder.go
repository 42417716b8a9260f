package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/source/calibre"
	"github.com/grimoire-search/grimoire/source/mdbook"
	"github.com/grimoire-search/grimoire/source/zotero"
)

// Options say which folders are one book.
type Options struct {
	// CalibrePrefer orders the formats of a calibre entry, whose first
	// found is its book and the others passed over; nil reads each
	// format as a book of its own.
	CalibrePrefer []string
	// MDBook reads an mdBook folder as one book; false reads its
	// Markdown files as books of their own.
	MDBook bool
	// Zotero reads a Zotero data directory's items as books, each with
	// its attachments, notes and annotations; false reads nothing of it.
	Zotero bool
	// ZoteroBaseDir is where Zotero's linked files stored relative to its
	// base directory lie ("attachments:…" paths); "" leaves them out.
	ZoteroBaseDir string
}

// Problem is why something found was not read as a book: recorded for
// status, with the path it is about.
type Problem struct {
	Path, Reason string
}

// CalibreEntry reports whether dir, listed as ents, below root, is a
// calibre entry (see calibre.Entry), whose formats are one book.
func (o Options) CalibreEntry(dir, root string, ents []fs.DirEntry) bool {
	if o.CalibrePrefer == nil {
		return false
	}
	for _, d := range ents {
		if d.Name() == calibre.OPF && d.Type().IsRegular() {
			return calibre.LibraryOf(dir, root) != ""
		}
	}
	return false
}

// CalibreOwn reports whether a file that is no book is calibre's own
// bookkeeping, which the user did not put in the library: an entry's
// metadata.opf and cover, a calibre library's database and its backup of
// the preferences.
func CalibreOwn(name string, inEntry bool) bool {
	switch {
	case name == calibre.DB || name == "metadata_db_prefs_backup.json":
		return true
	case inEntry:
		return name == calibre.OPF || strings.HasPrefix(strings.ToLower(name), "cover.")
	}
	return false
}

// Choose takes a calibre entry's book among its formats, by the preferred
// order, and says why each other one is passed over: calibre holds them
// as the same book.
func (o Options) Choose(formats []Source) (Source, []Problem) {
	paths := make([]string, len(formats))
	typeOf := make(map[string]string, len(formats))
	for i, f := range formats {
		paths[i] = f.Path
		typeOf[f.Path] = f.Type
	}
	chosen := calibre.Choose(paths, func(p string) string { return typeOf[p] }, o.CalibrePrefer)
	var book Source
	var passed []Problem
	for _, f := range formats {
		if f.Path == chosen {
			book = f
			continue
		}
		passed = append(passed, Problem{Path: f.Path, Reason: fmt.Sprintf("calibre entry: %s taken instead", strings.ToUpper(typeOf[chosen]))})
	}
	return book, passed
}

// MDBookIn reads the mdBook whose folder is dir, listed as ents, below
// root (see mdbook): its SUMMARY.md stands for it, and its files, which
// it returns, are no books of their own. taken tells a SUMMARY.md that an
// mdBook found before already holds. A folder that holds no mdBook gives
// nil; one whose SUMMARY.md names no chapter file there gives nil too, its
// files are books of their own; one that cannot be read gives a problem
// that says so. The error is ctx's.
func (o Options) MDBookIn(ctx context.Context, root, dir string, ents []fs.DirEntry, taken func(string) bool) (*Source, []string, *Problem, error) {
	if !o.MDBook {
		return nil, nil, nil, nil
	}
	hasSummary, hasConfig := false, false
	for _, d := range ents {
		if d.Type().IsRegular() {
			hasSummary = hasSummary || d.Name() == mdbook.SummaryName
			hasConfig = hasConfig || d.Name() == mdbook.ConfigName
		}
	}
	if !hasSummary && !hasConfig {
		return nil, nil, nil, nil
	}
	var src *Source
	var members []string
	summary, cfg, err := mdbook.Find(ctx, root, dir, hasConfig)
	if err == nil && summary != "" && !taken(summary) {
		var b *mdbook.Book
		if b, err = mdbook.Load(ctx, root, summary, cfg); err == nil && len(b.Members) > 0 {
			members = b.Paths()
			s := folder(b, summary, root)
			src = &s
		}
	}
	switch {
	case ctx.Err() != nil:
		return nil, nil, nil, ctx.Err()
	case err != nil:
		at := summary
		if at == "" {
			at = cfg
		}
		return nil, nil, &Problem{Path: at, Reason: fmt.Sprintf("not read as an mdBook (%v); its Markdown files are books of their own", libfile.Cause(err))}, nil
	}
	return src, members, nil, nil
}

// FolderOf returns the folder whose books a change at p (a file or
// folder below root, there or gone) may change, to be looked at whole, or
// "" when p is a book of its own or none: the Zotero data directory p lies
// in (its database, or an attachment in its storage); the mdBook folder p
// lies in, or was the SUMMARY.md or book.toml of (its files are books
// again); the calibre entry p is a format or the description of, or was.
func (o Options) FolderOf(p, root string) string {
	if dir := o.zoteroFolder(p, root); dir != "" {
		return dir
	}
	if !o.MDBook && o.CalibrePrefer == nil {
		return ""
	}
	fi, err := os.Lstat(p)
	if dir := o.mdBookFolder(p, root, fi, err); dir != "" {
		return dir
	}
	if o.CalibrePrefer == nil {
		return ""
	}
	dir := filepath.Dir(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) && entryChanged(p, root):
		return dir
	case err == nil && fi.Mode().IsRegular() && calibre.Entry(dir, root):
		return dir
	}
	return ""
}

// mdBookFolder returns the folder of the mdBook that p may change, or "":
// the highest folder from p's up that holds a SUMMARY.md or a book.toml,
// or, when p was one of those and is gone, its folder. fi and err are
// p's Lstat.
func (o Options) mdBookFolder(p, root string, fi fs.FileInfo, err error) string {
	if !o.MDBook {
		return ""
	}
	dir := filepath.Dir(p)
	if err == nil && fi.IsDir() {
		dir = p
	}
	if f := mdbook.Folder(dir, root); f != "" {
		return f
	}
	if base := filepath.Base(p); errors.Is(err, fs.ErrNotExist) && (base == mdbook.SummaryName || base == mdbook.ConfigName) {
		if st, err := os.Lstat(dir); err == nil && st.IsDir() {
			return dir
		}
	}
	return ""
}

// entryChanged reports whether the missing path p was a calibre entry's
// metadata.opf, or a file of a folder that is still an entry.
func entryChanged(p, root string) bool {
	dir := filepath.Dir(p)
	if filepath.Base(p) == calibre.OPF {
		st, err := os.Lstat(dir)
		return err == nil && st.IsDir()
	}
	return calibre.Entry(dir, root)
}

// zoteroFolder returns the Zotero data directory that p (there or gone)
// lies in, up to root, or "".
func (o Options) zoteroFolder(p, root string) string {
	if !o.Zotero {
		return ""
	}
	root = filepath.Clean(root)
	for d := filepath.Dir(filepath.Clean(p)); subtree.Contains(root, d); d = filepath.Dir(d) {
		if zotero.IsLibrary(d) {
			return d
		}
		if d == root {
			break
		}
	}
	return ""
}
