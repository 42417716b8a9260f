package source

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/source/zotero"
)

// zoteroBook is a Zotero item as one book: the header, then the files of
// its attachments that grimoire reads.
type zoteroBook struct {
	head  []byte
	parts []libfile.Part
}

func (b *zoteroBook) size() int64 {
	n := int64(len(b.head))
	for _, p := range b.parts {
		n += p.Info.Size
	}
	return n
}

// id folds the header and the identities of the attachment files into
// one number: it changes when the item is edited in Zotero or a file is
// replaced.
func (b *zoteroBook) id() uint64 {
	h := fnv.New64a()
	h.Write(b.head)
	for _, p := range b.parts {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", p.Path, p.Info.Size, p.Info.Ino)
	}
	return h.Sum64()
}

func (b *zoteroBook) modTimeNS() int64 {
	var t int64
	for _, p := range b.parts {
		t = max(t, p.Info.ModTime.UnixNano())
	}
	return t
}

// ZoteroItemPath is the path that stands for a Zotero item in the library
// whose data directory is dir: the database's, with the item's key.
func ZoteroItemPath(dir, key string) string {
	return filepath.Join(dir, zotero.DB+"#"+key)
}

// zoteroItemOf splits a path made by ZoteroItemPath.
func zoteroItemOf(p string) (dir, key string, ok bool) {
	key, ok = strings.CutPrefix(filepath.Base(p), zotero.DB+"#")
	return filepath.Dir(p), key, ok && key != ""
}

// ZoteroLibrary is what a Zotero data directory gave a walk: its items as
// books, what could not be read, and which database was read.
type ZoteroLibrary struct {
	Books    []Source
	Problems []Problem
	Read     zotero.Read
}

// ZoteroIn reads the Zotero library whose data directory is dir, below
// root, listed as ents (see zotero.Open: never in Zotero's way): each
// regular item with an attachment of a format typeOf names is one book,
// its path the database's with the item's key. nil when o does not read
// Zotero libraries or dir holds none.
func (o Options) ZoteroIn(ctx context.Context, root, dir string, ents []fs.DirEntry, typeOf func(string) string) (*ZoteroLibrary, error) {
	if !o.Zotero || !slices.ContainsFunc(ents, func(d fs.DirEntry) bool { return d.Name() == zotero.DB && d.Type().IsRegular() }) {
		return nil, nil
	}
	lib, err := o.openZotero(ctx, dir)
	if err != nil {
		return nil, err
	}
	out := &ZoteroLibrary{Read: lib.Read}
	// A problem is the item's, where a later pass that reads the library
	// clears it: the file it names may lie anywhere, or nowhere.
	for _, p := range lib.Problems {
		out.Problems = append(out.Problems, Problem{Path: ZoteroItemPath(dir, p.Item), Reason: p.Path + ": " + p.Reason})
	}
	for i := range lib.Items {
		b, problems := zoteroBookOf(root, dir, &lib.Items[i], typeOf)
		out.Problems = append(out.Problems, problems...)
		if b == nil {
			continue
		}
		out.Books = append(out.Books, Source{Path: ZoteroItemPath(dir, lib.Items[i].Key), Root: root, Type: zotero.Type,
			Size: b.size(), ModTimeNS: b.modTimeNS(), Inode: b.id(), zotero: b})
	}
	return out, nil
}

// openZotero opens the library in dir; its errors name the database.
func (o Options) openZotero(ctx context.Context, dir string) (*zotero.Library, error) {
	return zotero.Open(ctx, dir, zotero.Options{BaseDir: o.ZoteroBaseDir})
}

// zoteroBookOf makes the book of item, from the attachments whose files
// are there and of a format typeOf names; nil when it has none. An
// imported file is read below root; a linked file, which may lie
// anywhere, below its own folder, and never through a link.
func zoteroBookOf(root, dir string, it *zotero.Item, typeOf func(string) string) (*zoteroBook, []Problem) {
	h := zotero.BookHeader{
		Key: it.Key, ItemType: it.ItemType, Title: it.Title, Creators: it.Creators, Date: it.Date,
		Publication: it.Publication, Publisher: it.Publisher, DOI: it.DOI, ISBN: it.ISBN, URL: it.URL,
		Abstract: it.Abstract, Language: it.Language, Tags: it.Tags, Collections: it.Collections,
	}
	b := &zoteroBook{}
	var problems []Problem
	taken := make(map[string]bool)
	for _, a := range it.Attachments {
		typ := typeOf(a.Path)
		if typ == "" {
			continue
		}
		base := root
		if a.Linked {
			base = filepath.Dir(a.Path)
		}
		info, err := libfile.Stat(base, a.Path)
		if err != nil {
			problems = append(problems, Problem{Path: ZoteroItemPath(dir, it.Key), Reason: fmt.Sprintf("%s: attachment of %q cannot be read: %v", a.Path, it.Title, libfile.Cause(err))})
			continue
		}
		taken[a.Key] = true
		h.Attachments = append(h.Attachments, zotero.BookAttachment{Key: a.Key, Title: a.Title, Type: typ, Name: filepath.Base(a.Path), Size: info.Size})
		b.parts = append(b.parts, libfile.Part{Root: base, Path: a.Path, Info: info})
	}
	if len(b.parts) == 0 {
		return nil, problems
	}
	for _, n := range it.Notes {
		h.Notes = append(h.Notes, zotero.BookNote{Title: n.Title, Text: n.Text})
	}
	for _, a := range it.Annotations {
		if !taken[a.Attachment] {
			continue
		}
		h.Annotations = append(h.Annotations, zotero.BookAnnotation{Attachment: a.Attachment, Kind: a.Kind, Text: a.Text,
			Comment: a.Comment, PageLabel: a.PageLabel, PageIndex: a.PageIndex})
	}
	line, err := json.Marshal(h)
	if err != nil {
		return nil, append(problems, Problem{Path: ZoteroItemPath(dir, it.Key), Reason: err.Error()})
	}
	b.head = append(append([]byte(zotero.BookMagic), line...), '\n')
	return b, problems
}

// Reader reads the books' bytes for ingest, keeping each Zotero library
// it opened while its database is unchanged: every item of a library is
// read from the same copy of it. It is safe for concurrent use.
type Reader struct {
	Options Options
	// TypeOf names the format of a file, as the walk that found the
	// books named it.
	TypeOf func(path string) string

	mu     sync.Mutex
	zotero map[string]zoteroOpened
}

// zoteroOpened is a library as a Reader opened it: its items by key.
type zoteroOpened struct {
	stamp string
	items map[string]*zotero.Item
}

// Read reads the book that the file row f records, as the walk saw it: a
// file reached from its library folder without following a link, regular,
// of the size and inode recorded, never more than that size; an mdBook's
// chapter files, after the list of them, all of the size and identities
// recorded; a Zotero item's bytes made again from its library as it is
// now, which must be those the walk hashed. A book that is not as
// recorded is an error that wraps libfile.ErrChanged.
func (r *Reader) Read(ctx context.Context, f library.File) ([]byte, error) {
	if f.SourceType != zotero.Type {
		return read(ctx, f)
	}
	dir, key, ok := zoteroItemOf(f.Path)
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: f.Path, Err: fs.ErrNotExist}
	}
	items, err := r.items(ctx, dir)
	if err != nil {
		return nil, err
	}
	var b *zoteroBook
	if it := items[key]; it != nil {
		b, _ = zoteroBookOf(f.Root, dir, it, r.TypeOf)
	}
	if b == nil || b.size() != f.Size || (f.Inode != 0 && b.id() != f.Inode) {
		return nil, &fs.PathError{Op: "read", Path: f.Path, Err: libfile.ErrChanged}
	}
	rc := libfile.Concat(ctx, b.head, b.parts)
	defer rc.Close()
	data := make([]byte, b.size())
	if _, err := io.ReadFull(rc, data); err != nil {
		return nil, err
	}
	return data, nil
}

// items returns the items of the library in dir by key, opened again
// only when its database changed.
func (r *Reader) items(ctx context.Context, dir string) (map[string]*zotero.Item, error) {
	stamp := zotero.Stamp(dir)
	r.mu.Lock()
	defer r.mu.Unlock()
	if o, ok := r.zotero[dir]; ok && o.stamp == stamp {
		return o.items, nil
	}
	lib, err := r.Options.openZotero(ctx, dir)
	if err != nil {
		return nil, err
	}
	items := make(map[string]*zotero.Item, len(lib.Items))
	for i := range lib.Items {
		items[lib.Items[i].Key] = &lib.Items[i]
	}
	if r.zotero == nil {
		r.zotero = make(map[string]zoteroOpened)
	}
	r.zotero[dir] = zoteroOpened{stamp: stamp, items: items}
	return items, nil
}
