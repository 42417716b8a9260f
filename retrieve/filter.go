package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/suggest"
	"github.com/grimoire-search/grimoire/library"
)

// checkType returns the type filter typ as the index stores types (lower
// case), or an Invalid error that names the types when none of types is
// typ. Without types nothing is checked.
func checkType(typ string, types []string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(typ))
	if t == "" || len(types) == 0 || slices.Contains(types, t) {
		return t, nil
	}
	msg := fmt.Sprintf("unknown type %.40q", typ)
	if near := suggest.Closest(t, types, 1); len(near) > 0 {
		msg += ": did you mean " + suggest.List(near) + "?"
	}
	return "", (&fault.Error{Code: fault.Invalid, Msg: msg}).WithHint("the types are " + strings.Join(types, ", "))
}

// checkSelects returns a NotFound error when the filters of f select no
// book, ready or not, saying which filter leaves none: an author no book
// has (with the nearest authors), a type no book is of (with those the
// library holds), a path no book file is at or under. Filters that each
// select books but none together are named together. A search would
// otherwise only find "no matches", as if the question were the trouble.
func checkSelects(ctx context.Context, db *index.DB, f index.BookFilter) error {
	if f.Author == "" && f.Type == "" && f.Path == "" && f.Tag == "" && f.Series == "" && f.Collection == "" && f.ItemType == "" {
		return nil
	}
	f.ReadyOnly = false
	if n, err := count(ctx, db, f); err != nil || n > 0 {
		return err
	}
	books, err := db.Books(ctx, index.BookFilter{})
	if err != nil {
		return err
	}
	var why []string
	if f.Author != "" {
		if n, err := count(ctx, db, index.BookFilter{Author: f.Author}); err != nil {
			return err
		} else if n == 0 {
			why = append(why, noAuthor(f.Author, books))
		}
	}
	if f.Type != "" {
		if n, err := count(ctx, db, index.BookFilter{Type: f.Type}); err != nil {
			return err
		} else if n == 0 {
			why = append(why, noType(f.Type, books))
		}
	}
	if why, err = noCatalog(ctx, db, f, books, why); err != nil {
		return err
	}
	if f.Path != "" {
		if n, err := count(ctx, db, index.BookFilter{Path: f.Path}); err != nil {
			return err
		} else if n == 0 {
			why = append(why, fmt.Sprintf("no book has a file at or under %s", f.Path))
		}
	}
	if len(why) == 0 {
		why = append(why, "no book matches "+describe(f)+" together")
	}
	return (&fault.Error{Code: fault.NotFound, Msg: strings.Join(why, "; ")}).
		WithHints("`grimoire list` shows each book's author and type, and a calibre library's tags and series",
			"list_books shows each book's author and type, and a calibre library's tags and series")
}

func count(ctx context.Context, db *index.DB, f index.BookFilter) (int, error) {
	ids, err := db.BookIDs(ctx, f)
	return len(ids), err
}

// noAuthor says that no book's author contains author, with the authors
// nearest to it.
func noAuthor(author string, books []library.Book) string {
	return nearest(fmt.Sprintf("no book's author contains %.80q", author), author, books,
		func(b library.Book) []string { return b.Authors })
}

// noType says that no book is of type typ, and which types the books are.
func noType(typ string, books []library.Book) string {
	var have []string
	for _, b := range books {
		if !slices.Contains(have, b.SourceType) {
			have = append(have, b.SourceType)
		}
	}
	slices.Sort(have)
	if len(have) == 0 {
		return fmt.Sprintf("no book is of type %s: the library holds no book yet", typ)
	}
	return fmt.Sprintf("no book is of type %s (the library holds %s)", typ, strings.Join(have, ", "))
}

// describe names the filters of f for a message.
func describe(f index.BookFilter) string {
	var parts []string
	if f.Slug != "" {
		parts = append(parts, "book "+f.Slug)
	}
	if f.Author != "" {
		parts = append(parts, fmt.Sprintf("author %.80q", f.Author))
	}
	if f.Type != "" {
		parts = append(parts, "type "+f.Type)
	}
	if f.Tag != "" {
		parts = append(parts, fmt.Sprintf("tag %.80q", f.Tag))
	}
	if f.Series != "" {
		parts = append(parts, fmt.Sprintf("series %.80q", f.Series))
	}
	if f.Collection != "" {
		parts = append(parts, fmt.Sprintf("collection %.80q", f.Collection))
	}
	if f.ItemType != "" {
		parts = append(parts, fmt.Sprintf("item type %.40q", f.ItemType))
	}
	if f.Path != "" {
		parts = append(parts, "path "+f.Path)
	}
	return strings.Join(parts, ", ")
}

// checkCatalog returns a NotFound error when the tag, series, collection
// or item type filter of f alone selects no book, with the nearest ones
// the library has: a tag is matched whole, and a typo would otherwise
// list nothing.
func checkCatalog(ctx context.Context, db *index.DB, f index.BookFilter) error {
	if f.Tag == "" && f.Series == "" && f.Collection == "" && f.ItemType == "" {
		return nil
	}
	// Most lists name a tag that exists: only a miss reads every book.
	if n, err := count(ctx, db, index.BookFilter{Tag: f.Tag, Series: f.Series, Collection: f.Collection, ItemType: f.ItemType}); err != nil || n > 0 {
		return err
	}
	books, err := db.Books(ctx, index.BookFilter{})
	if err != nil {
		return err
	}
	why, err := noCatalog(ctx, db, f, books, nil)
	if err != nil || len(why) == 0 {
		return err
	}
	return (&fault.Error{Code: fault.NotFound, Msg: strings.Join(why, "; ")}).
		WithHint("`grimoire list --json` (or list_books) shows each book's tags and series, and a Zotero item's collections and type")
}

// noCatalog appends to why what the tag, series, collection and item type
// filters of f, each alone, fail to select.
func noCatalog(ctx context.Context, db *index.DB, f index.BookFilter, books []library.Book, why []string) ([]string, error) {
	for _, c := range []struct {
		value string
		alone index.BookFilter
		msg   string
		names func(library.Book) []string
	}{
		{f.Tag, index.BookFilter{Tag: f.Tag}, fmt.Sprintf("no book is tagged %.80q", f.Tag),
			func(b library.Book) []string { return b.Catalog.Tags }},
		{f.Series, index.BookFilter{Series: f.Series}, fmt.Sprintf("no book's series contains %.80q", f.Series),
			func(b library.Book) []string { return nonEmpty(b.Catalog.Series) }},
		{f.Collection, index.BookFilter{Collection: f.Collection}, fmt.Sprintf("no book is in a collection %.80q", f.Collection),
			collectionNames},
		{f.ItemType, index.BookFilter{ItemType: f.ItemType}, fmt.Sprintf("no book is a Zotero item of type %.40q", f.ItemType),
			func(b library.Book) []string { return nonEmpty(b.Catalog.ItemType) }},
	} {
		if c.value == "" {
			continue
		}
		n, err := count(ctx, db, c.alone)
		if err != nil {
			return why, err
		}
		if n == 0 {
			why = append(why, nearest(c.msg, c.value, books, c.names))
		}
	}
	return why, nil
}

// nonEmpty is s as a list of names: none when it is empty.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// collectionNames are the names a collection filter takes for the
// collections that hold b: each collection's path, and its last names
// ("Methods" of "Thesis/Methods").
func collectionNames(b library.Book) []string {
	var out []string
	for _, p := range b.Catalog.Collections {
		out = append(out, p)
		for i := range len(p) {
			if p[i] == '/' {
				out = append(out, p[i+1:])
			}
		}
	}
	return out
}

// nearest adds to msg the books' names nearest to typo, compared in
// lower case and suggested as written.
func nearest(msg, typo string, books []library.Book, names func(library.Book) []string) string {
	written := make(map[string]string)
	var all []string
	for _, b := range books {
		for _, n := range names(b) {
			l := strings.ToLower(n)
			if _, ok := written[l]; !ok {
				written[l] = n
				all = append(all, l)
			}
		}
	}
	near := suggest.Closest(strings.ToLower(strings.TrimSpace(typo)), all, 3)
	if len(near) == 0 {
		return msg
	}
	for i, n := range near {
		near[i] = written[n]
	}
	return msg + ": did you mean " + suggest.List(near) + "?"
}
