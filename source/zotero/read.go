package zotero

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Bounds on what is read of one value: the database is the user's data,
// which may be damaged or made to harm, and no value of a real library
// comes near them. Lengths are in characters, as SQLite's substr counts.
const (
	maxValue      = 64 << 10 // a field's value
	maxName       = 4 << 10  // a name: a creator's, a tag's, a collection's, a path
	maxNoteHTML   = 1 << 20  // a note's HTML
	maxAnnotation = 64 << 10 // an annotation's text or comment
	maxPosition   = 64 << 10 // an annotation's position JSON
	maxDepth      = 64       // collections above one another
)

// requiredTables are the tables every Zotero database since Zotero 5 has
// and read reads; itemAnnotations (Zotero 6) and deletedCollections are
// read when present.
func requiredTables() []string {
	return []string{
		"items", "itemTypes", "fields", "itemData", "itemDataValues",
		"creators", "itemCreators", "creatorTypes",
		"collections", "collectionItems", "tags", "itemTags",
		"itemNotes", "itemAttachments", "deletedItems",
	}
}

// Zotero's item types that are no regular item.
const (
	typeAttachment = "attachment"
	typeNote       = "note"
	typeAnnotation = "annotation"
)

// itemRow is a row of items with what hangs on it.
type itemRow struct {
	id       int64
	typ      string
	key      string
	lib      int64
	added    time.Time
	modified time.Time
	trashed  bool
	fields   map[string]string
	creators []creatorRow
	tags     []string
	colls    []int64
	// Of a regular item or a standalone attachment:
	notes []*noteRow
	atts  []*attRow
	// Of an attachment:
	att *attRow
}

type creatorRow struct {
	role        string
	first, last string
	single      bool
}

type noteRow struct {
	item        *itemRow
	html, title string
}

type attRow struct {
	item        *itemRow
	standalone  bool
	linkMode    int64
	contentType string
	path        string
	annots      []*annotRow
}

type annotRow struct {
	item                *itemRow
	kind                string
	text, comment       string
	color, label, order string
	position            string
}

// reader is one read of a database copy.
type reader struct {
	ctx   context.Context
	db    *sql.DB
	dir   string // the data directory, absolute
	base  string // Options.BaseDir, absolute, or ""
	items map[int64]*itemRow
	// paths are the collections' paths, by collectionID.
	paths map[int64]string
	// problems are appended as attachments are resolved.
	problems []Problem
}

// read reads the library from the open copy db of the database in dir.
func read(ctx context.Context, db *sql.DB, dir string, o Options) (*Library, error) {
	r := &reader{ctx: ctx, db: db, dir: dir, items: map[int64]*itemRow{}}
	if o.BaseDir != "" {
		b, err := filepath.Abs(o.BaseDir)
		if err != nil {
			return nil, fmt.Errorf("base directory: %w", err)
		}
		r.base = b
	}
	tables, err := r.tables()
	if err != nil {
		return nil, err
	}
	for _, t := range requiredTables() {
		if !tables[t] {
			return nil, fmt.Errorf("not a Zotero database: no table %s", t)
		}
	}
	steps := []func() error{r.readItems, r.readTrash, r.readFields, r.readCreators, r.readTags, r.readNotes, r.readAttachments}
	if tables["itemAnnotations"] {
		steps = append(steps, r.readAnnotations)
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if r.paths, err = r.collectionPaths(tables["deletedCollections"]); err != nil {
		return nil, err
	}
	if err := r.readCollectionItems(); err != nil {
		return nil, err
	}
	items, err := r.assemble()
	if err != nil {
		return nil, err
	}
	return &Library{Items: items, Problems: r.problems}, nil
}

func (r *reader) tables() (map[string]bool, error) {
	rows, err := r.db.QueryContext(r.ctx, `SELECT name FROM sqlite_master WHERE type IN ('table', 'view')`)
	if err != nil {
		return nil, fmt.Errorf("does not read as SQLite: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name sql.NullString
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("does not read as SQLite: %w", err)
		}
		out[name.String] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("does not read as SQLite: %w", err)
	}
	return out, nil
}

// each runs query and calls fn for each row, with scan to read it. Every
// column is cast in the query to the type it is scanned into, so that a
// value of another type (SQLite lets any column hold any) reads as
// something rather than failing the read.
func (r *reader) each(what, query string, args []any, fn func(scan func(...any) error) error) error {
	rows, err := r.db.QueryContext(r.ctx, query, args...)
	if err != nil {
		return fmt.Errorf("reading %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows.Scan); err != nil {
			return fmt.Errorf("reading %s: %w", what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", what, err)
	}
	return nil
}

func (r *reader) readItems() error {
	return r.each("items", `SELECT i.itemID, CAST(t.typeName AS TEXT), CAST(i.key AS TEXT),
		CAST(i.libraryID AS INTEGER), CAST(i.dateAdded AS TEXT), CAST(i.clientDateModified AS TEXT)
		FROM items i LEFT JOIN itemTypes t ON t.itemTypeID = i.itemTypeID`, nil,
		func(scan func(...any) error) error {
			var (
				id         int64
				typ, key   sql.NullString
				lib        sql.NullInt64
				added, mod sql.NullString
			)
			if err := scan(&id, &typ, &key, &lib, &added, &mod); err != nil {
				return err
			}
			r.items[id] = &itemRow{
				id: id, typ: typ.String, key: key.String, lib: lib.Int64,
				added: timestamp(added.String), modified: timestamp(mod.String),
			}
			return nil
		})
}

// timestamp reads one of Zotero's times, "2006-01-02 15:04:05" in UTC.
func timestamp(s string) time.Time {
	t, err := time.Parse(time.DateTime, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

func (r *reader) readTrash() error {
	return r.each("deletedItems", `SELECT CAST(itemID AS INTEGER) FROM deletedItems`, nil,
		func(scan func(...any) error) error {
			var id sql.NullInt64
			if err := scan(&id); err != nil {
				return err
			}
			if it := r.items[id.Int64]; it != nil {
				it.trashed = true
			}
			return nil
		})
}

// wantedFields are the fields read: those Item has, under the names of
// each item type's own field for it (a thesis's publisher is its
// "university"), as Zotero stores the type's field rather than the base
// field it maps to.
func wantedFields() []string {
	return []string{
		"title", "caseName", "nameOfAct", "subject",
		"date", "dateDecided", "dateEnacted", "issueDate",
		"publicationTitle", "bookTitle", "proceedingsTitle", "websiteTitle",
		"blogTitle", "forumTitle", "encyclopediaTitle", "dictionaryTitle", "programTitle",
		"publisher", "university", "institution", "company", "label", "distributor",
		"studio", "network",
		"DOI", "ISBN", "url", "abstractNote", "language", "extra",
	}
}

func (r *reader) readFields() error {
	names := wantedFields()
	args := []any{maxValue}
	for _, n := range names {
		args = append(args, n)
	}
	marks := strings.TrimSuffix(strings.Repeat("?,", len(names)), ",")
	return r.each("itemData", `SELECT CAST(d.itemID AS INTEGER), CAST(f.fieldName AS TEXT),
		substr(CAST(v.value AS TEXT), 1, ?)
		FROM itemData d JOIN fields f ON f.fieldID = d.fieldID JOIN itemDataValues v ON v.valueID = d.valueID
		WHERE f.fieldName IN (`+marks+`)`, args,
		func(scan func(...any) error) error {
			var (
				id          sql.NullInt64
				name, value sql.NullString
			)
			if err := scan(&id, &name, &value); err != nil {
				return err
			}
			it := r.items[id.Int64]
			if it == nil || !value.Valid {
				return nil
			}
			if it.fields == nil {
				it.fields = map[string]string{}
			}
			it.fields[name.String] = strings.TrimSpace(value.String)
			return nil
		})
}

func (r *reader) readCreators() error {
	return r.each("creators", `SELECT CAST(ic.itemID AS INTEGER), CAST(ct.creatorType AS TEXT),
		substr(CAST(c.firstName AS TEXT), 1, ?), substr(CAST(c.lastName AS TEXT), 1, ?),
		CAST(c.fieldMode AS INTEGER)
		FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID
		LEFT JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID
		ORDER BY ic.itemID, CAST(ic.orderIndex AS INTEGER), ic.rowid`, []any{maxName, maxName},
		func(scan func(...any) error) error {
			var (
				id                sql.NullInt64
				role, first, last sql.NullString
				mode              sql.NullInt64
			)
			if err := scan(&id, &role, &first, &last, &mode); err != nil {
				return err
			}
			if it := r.items[id.Int64]; it != nil {
				it.creators = append(it.creators, creatorRow{
					role: role.String, first: first.String, last: last.String, single: mode.Int64 == 1,
				})
			}
			return nil
		})
}

func (r *reader) readTags() error {
	return r.each("tags", `SELECT CAST(it.itemID AS INTEGER), substr(CAST(t.name AS TEXT), 1, ?)
		FROM itemTags it JOIN tags t ON t.tagID = it.tagID`, []any{maxName},
		func(scan func(...any) error) error {
			var (
				id   sql.NullInt64
				name sql.NullString
			)
			if err := scan(&id, &name); err != nil {
				return err
			}
			if it := r.items[id.Int64]; it != nil {
				if n := strings.TrimSpace(name.String); n != "" {
					it.tags = append(it.tags, n)
				}
			}
			return nil
		})
}

// readNotes reads the notes. itemNotes also holds the notes of
// attachments, in the attachment's own row, which are no child notes: only
// the rows of note items are kept.
func (r *reader) readNotes() error {
	return r.each("itemNotes", `SELECT itemID, CAST(parentItemID AS INTEGER),
		substr(CAST(note AS TEXT), 1, ?), substr(CAST(title AS TEXT), 1, ?)
		FROM itemNotes`, []any{maxNoteHTML, maxName},
		func(scan func(...any) error) error {
			var (
				id          int64
				parent      sql.NullInt64
				html, title sql.NullString
			)
			if err := scan(&id, &parent, &html, &title); err != nil {
				return err
			}
			it, p := r.items[id], r.items[parent.Int64]
			// A standalone note (no parent) is no book's and is left out.
			if it == nil || it.typ != typeNote || p == nil || !regular(p.typ) {
				return nil
			}
			p.notes = append(p.notes, &noteRow{item: it, html: html.String, title: strings.TrimSpace(title.String)})
			return nil
		})
}

func (r *reader) readAttachments() error {
	return r.each("itemAttachments", `SELECT itemID, CAST(parentItemID AS INTEGER),
		CAST(linkMode AS INTEGER), substr(CAST(contentType AS TEXT), 1, ?), substr(CAST(path AS TEXT), 1, ?)
		FROM itemAttachments`, []any{maxName, maxName},
		func(scan func(...any) error) error {
			var (
				id          int64
				parent      sql.NullInt64
				mode        sql.NullInt64
				ctype, path sql.NullString
			)
			if err := scan(&id, &parent, &mode, &ctype, &path); err != nil {
				return err
			}
			it := r.items[id]
			if it == nil || it.typ != typeAttachment {
				return nil
			}
			a := &attRow{item: it, standalone: !parent.Valid, linkMode: mode.Int64, contentType: ctype.String, path: path.String}
			it.att = a
			if a.standalone {
				return nil
			}
			// Attachments of notes (images embedded in them) and of
			// anything else than a regular item are no item's files.
			if p := r.items[parent.Int64]; p != nil && regular(p.typ) && parent.Int64 != id {
				p.atts = append(p.atts, a)
			}
			return nil
		})
}

func (r *reader) readAnnotations() error {
	return r.each("itemAnnotations", `SELECT itemID, CAST(parentItemID AS INTEGER), CAST(type AS INTEGER),
		substr(CAST(text AS TEXT), 1, ?), substr(CAST(comment AS TEXT), 1, ?),
		substr(CAST(color AS TEXT), 1, 64), substr(CAST(pageLabel AS TEXT), 1, 256),
		substr(CAST(sortIndex AS TEXT), 1, 256), substr(CAST(position AS TEXT), 1, ?)
		FROM itemAnnotations`, []any{maxAnnotation, maxAnnotation, maxPosition},
		func(scan func(...any) error) error {
			var (
				id                                           int64
				parent, typ                                  sql.NullInt64
				text, comment, color, label, order, position sql.NullString
			)
			if err := scan(&id, &parent, &typ, &text, &comment, &color, &label, &order, &position); err != nil {
				return err
			}
			it, p := r.items[id], r.items[parent.Int64]
			if it == nil || it.typ != typeAnnotation || p == nil || p.att == nil {
				return nil
			}
			kind := annotationKind(typ.Int64)
			if kind == "" {
				return nil
			}
			a := &annotRow{
				item: it, kind: kind, text: strings.TrimSpace(text.String), comment: strings.TrimSpace(comment.String),
				color: color.String, label: strings.TrimSpace(label.String), order: order.String, position: position.String,
			}
			// An image or a drawing holds no text: it is kept for the
			// comment the user wrote on it, when there is one.
			if (kind == "image" || kind == "ink") && a.comment == "" {
				return nil
			}
			p.att.annots = append(p.att.annots, a)
			return nil
		})
}

// annotationKind names Zotero's annotation type t, or "" for an unknown one.
func annotationKind(t int64) string {
	switch t {
	case 1:
		return "highlight"
	case 2:
		return "note"
	case 3:
		return "image"
	case 4:
		return "ink"
	case 5:
		return "underline"
	case 6:
		return "text"
	}
	return ""
}

// regular reports whether items of type typ are regular items: neither
// attachments, notes nor annotations.
func regular(typ string) bool {
	return typ != typeAttachment && typ != typeNote && typ != typeAnnotation
}

// collectionPaths returns the path from the top of every collection
// that is not in the trash, nor below one that is.
func (r *reader) collectionPaths(withTrash bool) (map[int64]string, error) {
	type coll struct {
		name   string
		parent int64
	}
	colls := map[int64]coll{}
	err := r.each("collections", `SELECT collectionID, substr(CAST(collectionName AS TEXT), 1, ?),
		CAST(parentCollectionID AS INTEGER) FROM collections`, []any{maxName},
		func(scan func(...any) error) error {
			var (
				id     int64
				name   sql.NullString
				parent sql.NullInt64
			)
			if err := scan(&id, &name, &parent); err != nil {
				return err
			}
			colls[id] = coll{name: strings.TrimSpace(name.String), parent: parent.Int64}
			return nil
		})
	if err != nil {
		return nil, err
	}
	trashed := map[int64]bool{}
	if withTrash {
		err := r.each("deletedCollections", `SELECT CAST(collectionID AS INTEGER) FROM deletedCollections`, nil,
			func(scan func(...any) error) error {
				var id sql.NullInt64
				if err := scan(&id); err != nil {
					return err
				}
				trashed[id.Int64] = true
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	paths := make(map[int64]string, len(colls))
	for id := range colls {
		// Walk up to the top. A damaged database may make parents loop:
		// the walk stops before a collection comes round again, so that
		// the path holds each once, and at maxDepth.
		var names []string
		seen := map[int64]bool{}
		gone := false
		for c, ok := id, true; ok && !seen[c] && len(names) < maxDepth; {
			seen[c] = true
			if trashed[c] {
				gone = true
				break
			}
			col := colls[c]
			names = append(names, col.name)
			c = col.parent
			_, ok = colls[c]
		}
		if gone {
			continue
		}
		slices.Reverse(names)
		paths[id] = strings.Join(names, "/")
	}
	return paths, nil
}

func (r *reader) readCollectionItems() error {
	return r.each("collectionItems", `SELECT CAST(collectionID AS INTEGER), CAST(itemID AS INTEGER)
		FROM collectionItems`, nil,
		func(scan func(...any) error) error {
			var c, id sql.NullInt64
			if err := scan(&c, &id); err != nil {
				return err
			}
			if it := r.items[id.Int64]; it != nil {
				if _, ok := r.paths[c.Int64]; ok {
					it.colls = append(it.colls, c.Int64)
				}
			}
			return nil
		})
}
