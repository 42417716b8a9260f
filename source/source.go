// Package source is what a book is on disk: a plain file, the one format
// a calibre entry is read from (package calibre), an mdBook folder
// (package mdbook), or an item of a Zotero library (package zotero). A
// folder's listing gives its books as Source values (Options.Listing); a
// changed path, the folder whose books it changes
// (Options.FolderOf). A Source's bytes are read one way, through libfile,
// whether reconcile hashes them (Source.Hash) or ingest parses them
// (Reader), so that the hash a book is known by is the hash of what is
// parsed.
package source

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/source/mdbook"
	"github.com/grimoire-search/grimoire/source/zotero"
)

// Source is one book's bytes on disk as a walk of the library found them.
type Source struct {
	// Path is the file; for an mdBook, its SUMMARY.md, which stands for
	// the folder.
	Path string
	// Root is the library folder it was found under.
	Root string
	// Type is its format's type (ingest's registry; mdbook.Type for a
	// folder).
	Type string
	// Size, ModTimeNS and Inode are what a stat told (for an mdBook, of
	// all its files: see mdbook.Book); Dev is 0 where a stat does not
	// tell (Windows, and an mdBook).
	Size      int64
	ModTimeNS int64
	Inode     uint64
	Dev       uint64

	// book is the mdBook read from the folder, nil for a file.
	book *mdbook.Book
	// zotero is the Zotero item read from its library, nil for a file.
	zotero *zoteroBook
}

// File is the source of the regular file p below root, of format typ, as
// stat told fi.
func File(p, root, typ string, fi fs.FileInfo) Source {
	dev, ino := libfile.IDOf(fi)
	return Source{Path: p, Root: root, Type: typ, Size: fi.Size(), ModTimeNS: fi.ModTime().UnixNano(), Inode: ino, Dev: dev}
}

// folder is the source of the mdBook b, whose SUMMARY.md is at summary.
func folder(b *mdbook.Book, summary, root string) Source {
	return Source{Path: summary, Root: root, Type: mdbook.Type, Size: b.Size(), ModTimeNS: b.ModTime().UnixNano(), Inode: b.ID(), book: b}
}

// Folder reports whether s is a folder of files read as one book.
func (s Source) Folder() bool { return s.book != nil || s.zotero != nil }

// Hash reads s as the walk saw it and hashes it, with buf for the reads.
// It returns the hash, and the modification time the file had when read,
// which is the walk's for an mdBook. A file written to while it was read
// is an error that wraps libfile.ErrChanged; nothing a link leads to is
// ever read (see libfile.Open).
func (s Source) Hash(ctx context.Context, buf []byte) (library.Hash, int64, error) {
	if s.book != nil || s.zotero != nil {
		var r io.ReadCloser
		if s.book != nil {
			r = s.book.Reader(ctx)
		} else {
			r = libfile.Concat(ctx, s.zotero.head, s.zotero.parts)
		}
		defer r.Close()
		h, _, err := library.HashReader(r, buf)
		return h, s.ModTimeNS, err
	}
	f, err := libfile.Open(s.Root, s.Path, libfile.Want{Size: s.Size, Dev: s.Dev, Ino: s.Inode})
	if err != nil {
		return library.Hash{}, 0, err
	}
	defer f.Close()
	before := f.Info()
	h, _, err := library.HashReader(f.Reader(ctx), buf)
	if err != nil {
		return library.Hash{}, 0, err
	}
	after, err := f.Stat()
	if err != nil {
		return library.Hash{}, 0, err
	}
	if after.Size != before.Size || !after.ModTime.Equal(before.ModTime) {
		return library.Hash{}, 0, fmt.Errorf("%w (written to while it was read)", libfile.ErrChanged)
	}
	return h, before.ModTime.UnixNano(), nil
}

// read reads a file or an mdBook as Reader.Read does.
func read(ctx context.Context, f library.File) ([]byte, error) {
	want := libfile.Want{Size: f.Size, Ino: f.Inode}
	if f.SourceType != mdbook.Type {
		return libfile.ReadFile(ctx, f.Root, f.Path, want)
	}
	b, err := mdbook.LoadAt(ctx, f.Root, f.Path)
	if err != nil {
		return nil, err
	}
	if b.Size() != want.Size || (want.Ino != 0 && b.ID() != want.Ino) {
		return nil, &fs.PathError{Op: "read", Path: f.Path, Err: libfile.ErrChanged}
	}
	n, err := b.Len()
	if err != nil {
		return nil, err
	}
	r := b.Reader(ctx)
	defer r.Close()
	data := make([]byte, n)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, err
	}
	return data, nil
}

// Now stats the book that the file row f records as it is now: whether
// it is still as the walk saw it, and when it was last written. ok is
// false for a file gone or that cannot be read, which the next walk sorts
// out, and for an mdBook, whose row folds all its files: the walk compares
// them.
func Now(f library.File) (same bool, modTime time.Time, ok bool) {
	if f.SourceType == mdbook.Type || f.SourceType == zotero.Type {
		return false, time.Time{}, false
	}
	info, err := libfile.Stat(f.Root, f.Path)
	if err != nil {
		return false, time.Time{}, false
	}
	same = info.Size == f.Size && info.ModTime.UnixNano() == f.MtimeNS && (f.Inode == 0 || info.Ino == f.Inode)
	return same, info.ModTime, true
}
