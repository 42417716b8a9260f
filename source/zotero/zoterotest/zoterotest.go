// Package zoterotest makes Zotero data directories for tests: a
// zotero.sqlite with the tables and columns of Zotero 6 and 7 that package
// zotero reads, under Zotero's names and types, the files of its imported
// attachments in storage/, and its linked files where they are linked
// from. It also edits and locks such a database as a running Zotero does.
package zoterotest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"

	_ "modernc.org/sqlite" // the SQLite driver, "sqlite"
)

// Library is the content of a data directory.
type Library struct {
	Items []Item
	// BaseDir is the linked attachment base directory: linked files below
	// it are stored as "attachments:<rel>", as Zotero stores them.
	BaseDir     string
	Collections []Collection
}

// Collection is a collection; Parent is another's Key, or "" for one at
// the top. Parents may loop, as in a damaged database.
type Collection struct{ Key, Name, Parent string }

// Item is an item of the library. An Item of Type "attachment" is a
// standalone attachment: its one Attachments entry is its file, and the
// Item's Key, Fields, Tags, Collections and Trashed are the attachment's.
type Item struct {
	// Key is the item's key; one is made up when empty.
	Key  string
	Type string
	// Fields are the item's fields under Zotero's names: "title", "date",
	// "DOI", "publicationTitle", …; a date is stored as Zotero stores it,
	// with its sortable form before it.
	Fields map[string]string
	// Creators are the authors, {first, last}; an empty first name makes
	// a single-field name.
	Creators    [][2]string
	Tags        []string
	Collections []string // collection keys
	Attachments []Attachment
	Notes       []Note
	Trashed     bool
}

// Attachment is a file of an item. Attachments are added in order, each
// a minute after the one before.
type Attachment struct {
	// Key is the attachment's key; one is made up when empty.
	Key         string
	Title       string
	ContentType string // from the name's extension when empty
	// File is a file whose bytes to store: copied into storage/<Key>/<Name>
	// for an imported file, or to Linked for a linked file. When empty, no
	// file is written: the database names a file that is missing.
	File string
	// Name is the file's name in storage (the base of File when empty).
	// It is stored as it is, so that a test can store one that escapes
	// storage/<Key>/ (then File must be empty).
	Name string
	// Linked makes a linked file: the absolute path to copy File to and
	// store in the database (as "attachments:<rel>" when it lies under the
	// Library's BaseDir), or "attachments:<rel>" itself.
	Linked      string
	Annotations []Annotation
}

// Note is a child note: its HTML as Zotero's editor writes it.
type Note struct{ Key, HTML string }

// Annotation is an annotation on an attachment. Kind is "highlight",
// "note", "image", "ink", "underline" or "text"; a negative PageIndex
// leaves the page index out of the position.
type Annotation struct {
	Key, Kind, Text, Comment, PageLabel string
	PageIndex                           int
}

// Build writes a Zotero data directory in dir: zotero.sqlite, storage/
// and the linked files. It fails the test on error.
func Build(t testing.TB, dir string, lib Library) {
	t.Helper()
	if err := build(dir, lib); err != nil {
		t.Fatalf("zoterotest: building a Zotero library: %v", err)
	}
}

// Backup copies zotero.sqlite to zotero.sqlite.bak, as Zotero does now
// and then.
func Backup(t testing.TB, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "zotero.sqlite"))
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "zotero.sqlite.bak"), data, 0o644)
	}
	if err != nil {
		t.Fatalf("zoterotest: %v", err)
	}
}

// Update opens dir's zotero.sqlite and runs fn on it in a transaction, as
// Zotero does when the user edits an item; an error from fn rolls it back
// and fails the test.
func Update(t testing.TB, dir string, fn func(*sql.Tx) error) {
	t.Helper()
	if err := update(dir, fn); err != nil {
		t.Fatalf("zoterotest: updating %s: %v", filepath.Join(dir, "zotero.sqlite"), err)
	}
}

func update(dir string, fn func(*sql.Tx) error) error {
	db, err := sql.Open("sqlite", dsn(filepath.Join(dir, "zotero.sqlite"), "busy_timeout(5000)"))
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// AddTag tags the item with key, as the user does in Zotero.
func AddTag(t testing.TB, dir, key, tag string) {
	t.Helper()
	edit(t, dir, key, func(tx *sql.Tx, id int64) error {
		if _, err := tx.Exec(`INSERT OR IGNORE INTO tags (name) VALUES (?)`, tag); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT OR IGNORE INTO itemTags (itemID, tagID, type)
			SELECT ?, tagID, 0 FROM tags WHERE name = ?`, id, tag); err != nil {
			return err
		}
		return touch(tx, id)
	})
}

// Rename sets the title of the item with key.
func Rename(t testing.TB, dir, key, title string) {
	t.Helper()
	edit(t, dir, key, func(tx *sql.Tx, id int64) error {
		if err := setField(tx, id, "title", title); err != nil {
			return err
		}
		return touch(tx, id)
	})
}

// Trash moves the item with key to the trash.
func Trash(t testing.TB, dir, key string) {
	t.Helper()
	edit(t, dir, key, func(tx *sql.Tx, id int64) error {
		_, err := tx.Exec(`INSERT OR IGNORE INTO deletedItems (itemID) VALUES (?)`, id)
		return err
	})
}

// edit runs fn on the item with key in one transaction, as Zotero saves
// an edit.
func edit(t testing.TB, dir, key string, fn func(tx *sql.Tx, id int64) error) {
	t.Helper()
	Update(t, dir, func(tx *sql.Tx) error {
		id, err := itemID(tx, key)
		if err != nil {
			return err
		}
		return fn(tx, id)
	})
}

func itemID(tx *sql.Tx, key string) (int64, error) {
	var id int64
	if err := tx.QueryRow(`SELECT itemID FROM items WHERE key = ?`, key).Scan(&id); err != nil {
		return 0, fmt.Errorf("item %s: %w", key, err)
	}
	return id, nil
}

func touch(tx *sql.Tx, id int64) error {
	_, err := tx.Exec(`UPDATE items SET clientDateModified = ?, dateModified = ?, synced = 0,
		version = version + 1 WHERE itemID = ?`, stamp(time.Now()), stamp(time.Now()), id)
	return err
}

// Lock holds dir's database as a running Zotero does: it opens it in
// SQLite's exclusive locking mode and writes once, so that the exclusive
// lock is taken, and keeps it until release is called.
//
// The lock is a POSIX lock, which belongs to the process: another process
// sees it, but this one does not, and it is dropped when this process
// closes any descriptor of the database. A test of what another process
// sees runs Lock in a helper process (the test binary run again for one
// test that calls Lock and waits), never in its own.
func Lock(t testing.TB, dir string) (release func()) {
	t.Helper()
	db, conn, err := lock(dir)
	if err != nil {
		t.Fatalf("zoterotest: locking %s: %v", filepath.Join(dir, "zotero.sqlite"), err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(release)
	return release
}

func lock(dir string) (*sql.DB, *sql.Conn, error) {
	db, err := sql.Open("sqlite", dsn(filepath.Join(dir, "zotero.sqlite"), "busy_timeout(5000)", "locking_mode(EXCLUSIVE)"))
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err == nil {
		// An update that changes nothing still writes its row: the
		// write takes the exclusive lock, which the exclusive locking
		// mode keeps.
		_, err = conn.ExecContext(ctx, `UPDATE libraries SET version = version`)
		if err != nil {
			conn.Close()
		}
	}
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, conn, nil
}

// dsn names the database at p for the driver, as a URI so that any
// character of the path is taken as a path, with the pragmas given.
func dsn(p string, pragmas ...string) string {
	u := url.URL{Path: filepath.ToSlash(p)}
	q := url.Values{"_pragma": pragmas}
	s := "file:" + u.EscapedPath()
	if len(pragmas) > 0 {
		s += "?" + q.Encode()
	}
	return s
}

// schema is the part of Zotero 7's userdata schema that package zotero
// reads, as Zotero declares it.
const schema = `
CREATE TABLE libraries (
    libraryID INTEGER PRIMARY KEY,
    type TEXT NOT NULL,
    editable INT NOT NULL,
    filesEditable INT NOT NULL,
    version INT NOT NULL DEFAULT 0,
    storageVersion INT NOT NULL DEFAULT 0,
    lastSync INT NOT NULL DEFAULT 0,
    archived INT NOT NULL DEFAULT 0
);
CREATE TABLE itemTypes (
    itemTypeID INTEGER PRIMARY KEY,
    typeName TEXT,
    templateItemTypeID INT,
    display INT DEFAULT 1
);
CREATE TABLE fields (
    fieldID INTEGER PRIMARY KEY,
    fieldName TEXT,
    fieldFormatID INT
);
CREATE TABLE creatorTypes (
    creatorTypeID INTEGER PRIMARY KEY,
    creatorType TEXT
);
CREATE TABLE items (
    itemID INTEGER PRIMARY KEY,
    itemTypeID INT NOT NULL,
    dateAdded TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    libraryID INT NOT NULL,
    key TEXT NOT NULL,
    version INT NOT NULL DEFAULT 0,
    synced INT NOT NULL DEFAULT 0,
    UNIQUE (libraryID, key)
);
CREATE TABLE itemDataValues (
    valueID INTEGER PRIMARY KEY,
    value UNIQUE
);
CREATE TABLE itemData (
    itemID INT,
    fieldID INT,
    valueID,
    PRIMARY KEY (itemID, fieldID)
);
CREATE TABLE itemNotes (
    itemID INTEGER PRIMARY KEY,
    parentItemID INT,
    note TEXT,
    title TEXT
);
CREATE TABLE itemAttachments (
    itemID INTEGER PRIMARY KEY,
    parentItemID INT,
    linkMode INT,
    contentType TEXT,
    charsetID INT,
    path TEXT,
    syncState INT DEFAULT 0,
    storageModTime INT,
    storageHash TEXT,
    lastProcessedModificationTime INT
);
CREATE TABLE itemAnnotations (
    itemID INTEGER PRIMARY KEY,
    parentItemID INT NOT NULL,
    type INTEGER NOT NULL,
    authorName TEXT,
    text TEXT,
    comment TEXT,
    color TEXT,
    pageLabel TEXT,
    sortIndex TEXT NOT NULL,
    position TEXT NOT NULL,
    isExternal INT NOT NULL
);
CREATE TABLE tags (
    tagID INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE itemTags (
    itemID INT NOT NULL,
    tagID INT NOT NULL,
    type INT NOT NULL,
    PRIMARY KEY (itemID, tagID)
);
CREATE TABLE creators (
    creatorID INTEGER PRIMARY KEY,
    firstName TEXT,
    lastName TEXT,
    fieldMode INT,
    UNIQUE (lastName, firstName, fieldMode)
);
CREATE TABLE itemCreators (
    itemID INT NOT NULL,
    creatorID INT NOT NULL,
    creatorTypeID INT NOT NULL DEFAULT 1,
    orderIndex INT NOT NULL DEFAULT 0,
    PRIMARY KEY (itemID, creatorID, creatorTypeID, orderIndex)
);
CREATE TABLE collections (
    collectionID INTEGER PRIMARY KEY,
    collectionName TEXT NOT NULL,
    parentCollectionID INT DEFAULT NULL,
    clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    libraryID INT NOT NULL,
    key TEXT NOT NULL,
    version INT NOT NULL DEFAULT 0,
    synced INT NOT NULL DEFAULT 0,
    UNIQUE (libraryID, key)
);
CREATE TABLE collectionItems (
    collectionID INT NOT NULL,
    itemID INT NOT NULL,
    orderIndex INT NOT NULL DEFAULT 0,
    PRIMARY KEY (collectionID, itemID)
);
CREATE TABLE deletedItems (
    itemID INTEGER PRIMARY KEY,
    dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL
);
CREATE TABLE deletedCollections (
    collectionID INTEGER PRIMARY KEY,
    dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL
);
INSERT INTO libraries VALUES (1, 'user', 1, 1, 0, 0, 0, 0);
INSERT INTO creatorTypes (creatorType) VALUES ('author'), ('contributor'), ('editor');
`

// builder writes one library. The ids of item types and fields are its
// own, given in the order the names are first used.
type builder struct {
	dir, base string
	tx        *sql.Tx
	types     map[string]int64
	fields    map[string]int64
	colls     map[string]int64
	n         int // items written, for their times and made-up keys
}

// origin is when the first item was added; each later one a minute after.
func origin() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) }

func stamp(t time.Time) string { return t.UTC().Format(time.DateTime) }

func build(dir string, lib Library) error {
	if err := os.MkdirAll(filepath.Join(dir, "storage"), 0o755); err != nil {
		return err
	}
	p := filepath.Join(dir, "zotero.sqlite")
	if _, err := os.Lstat(p); err == nil {
		return fmt.Errorf("%s exists", p)
	}
	return update(dir, func(tx *sql.Tx) error {
		b := &builder{dir: dir, base: lib.BaseDir, tx: tx, types: map[string]int64{}, fields: map[string]int64{}, colls: map[string]int64{}}
		if _, err := tx.Exec(schema); err != nil {
			return fmt.Errorf("schema: %w", err)
		}
		if err := b.collections(lib.Collections); err != nil {
			return err
		}
		for _, it := range lib.Items {
			if err := b.item(it); err != nil {
				return fmt.Errorf("item %s: %w", it.Key, err)
			}
		}
		return nil
	})
}

func (b *builder) collections(cs []Collection) error {
	for i, c := range cs {
		key := c.Key
		if key == "" {
			key = madeKey(10000 + i)
		}
		res, err := b.tx.Exec(`INSERT INTO collections (collectionName, clientDateModified, libraryID, key)
			VALUES (?, ?, 1, ?)`, c.Name, stamp(origin()), key)
		if err != nil {
			return err
		}
		b.colls[key], _ = res.LastInsertId()
	}
	for _, c := range cs {
		if c.Parent == "" {
			continue
		}
		parent, ok := b.colls[c.Parent]
		if !ok {
			return fmt.Errorf("collection %s: no parent %s", c.Key, c.Parent)
		}
		if _, err := b.tx.Exec(`UPDATE collections SET parentCollectionID = ? WHERE collectionID = ?`, parent, b.colls[c.Key]); err != nil {
			return err
		}
	}
	return nil
}

// madeKey makes the n-th key, in Zotero's alphabet.
func madeKey(n int) string {
	const alphabet = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"
	k := []byte("ZT000000")
	for i := len(k) - 1; i >= 2; i-- {
		k[i] = alphabet[n%len(alphabet)]
		n /= len(alphabet)
	}
	return string(k)
}

func (b *builder) typeID(name string) (int64, error) {
	if id, ok := b.types[name]; ok {
		return id, nil
	}
	res, err := b.tx.Exec(`INSERT INTO itemTypes (typeName, templateItemTypeID, display) VALUES (?, NULL, 1)`, name)
	if err != nil {
		return 0, err
	}
	b.types[name], _ = res.LastInsertId()
	return b.types[name], nil
}

// newItem writes the items row of an item of type typ and returns its id
// and key.
func (b *builder) newItem(typ, key string) (int64, string, error) {
	tid, err := b.typeID(typ)
	if err != nil {
		return 0, "", err
	}
	b.n++
	if key == "" {
		key = madeKey(b.n)
	}
	at := stamp(origin().Add(time.Duration(b.n) * time.Minute))
	res, err := b.tx.Exec(`INSERT INTO items (itemTypeID, dateAdded, dateModified, clientDateModified, libraryID, key, version, synced)
		VALUES (?, ?, ?, ?, 1, ?, 1, 1)`, tid, at, at, at, key)
	if err != nil {
		return 0, "", err
	}
	id, _ := res.LastInsertId()
	return id, key, nil
}

func (b *builder) item(it Item) error {
	if it.Type == "attachment" {
		return b.standalone(it)
	}
	if it.Type == "" {
		return fmt.Errorf("no type")
	}
	id, key, err := b.newItem(it.Type, it.Key)
	if err != nil {
		return err
	}
	for name, v := range it.Fields {
		if err := setField(b.tx, id, name, v); err != nil {
			return err
		}
	}
	for i, c := range it.Creators {
		if err := b.creator(id, c, i); err != nil {
			return err
		}
	}
	if err := b.tagsAndCollections(id, it); err != nil {
		return err
	}
	for _, a := range it.Attachments {
		if _, err := b.attachmentItem(id, a, nil); err != nil {
			return fmt.Errorf("attachment %s of %s: %w", a.Key, key, err)
		}
	}
	for _, n := range it.Notes {
		nid, _, err := b.newItem("note", n.Key)
		if err != nil {
			return err
		}
		if _, err := b.tx.Exec(`INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (?, ?, ?, ?)`,
			nid, id, n.HTML, noteTitle(n.HTML)); err != nil {
			return err
		}
	}
	return b.trash(id, it.Trashed)
}

func (b *builder) standalone(it Item) error {
	if len(it.Attachments) != 1 {
		return fmt.Errorf("a standalone attachment has one file, not %d", len(it.Attachments))
	}
	a := it.Attachments[0]
	a.Key = it.Key
	id, err := b.attachmentItem(0, a, it.Fields)
	if err != nil {
		return err
	}
	if err := b.tagsAndCollections(id, it); err != nil {
		return err
	}
	return b.trash(id, it.Trashed)
}

func (b *builder) trash(id int64, trashed bool) error {
	if !trashed {
		return nil
	}
	_, err := b.tx.Exec(`INSERT INTO deletedItems (itemID, dateDeleted) VALUES (?, ?)`, id, stamp(origin()))
	return err
}

func (b *builder) tagsAndCollections(id int64, it Item) error {
	for _, tag := range it.Tags {
		if _, err := b.tx.Exec(`INSERT OR IGNORE INTO tags (name) VALUES (?)`, tag); err != nil {
			return err
		}
		if _, err := b.tx.Exec(`INSERT OR IGNORE INTO itemTags (itemID, tagID, type)
			SELECT ?, tagID, 0 FROM tags WHERE name = ?`, id, tag); err != nil {
			return err
		}
	}
	for i, ck := range it.Collections {
		c, ok := b.colls[ck]
		if !ok {
			return fmt.Errorf("no collection %s", ck)
		}
		if _, err := b.tx.Exec(`INSERT OR IGNORE INTO collectionItems (collectionID, itemID, orderIndex) VALUES (?, ?, ?)`, c, id, i); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) creator(id int64, c [2]string, order int) error {
	first, last, mode := c[0], c[1], 0
	if first == "" {
		mode = 1
	}
	if _, err := b.tx.Exec(`INSERT OR IGNORE INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, ?)`, first, last, mode); err != nil {
		return err
	}
	_, err := b.tx.Exec(`INSERT INTO itemCreators (itemID, creatorID, creatorTypeID, orderIndex)
		SELECT ?, creatorID, (SELECT creatorTypeID FROM creatorTypes WHERE creatorType = 'author'), ?
		FROM creators WHERE firstName = ? AND lastName = ? AND fieldMode = ?`, id, order, first, last, mode)
	return err
}

// setField sets the field name of item id to v, adding the field and the
// value to their tables as needed.
func setField(tx *sql.Tx, id int64, name, v string) error {
	if name == "date" {
		v = zoteroDate(v)
	}
	if _, err := tx.Exec(`INSERT INTO fields (fieldName, fieldFormatID)
		SELECT ?, NULL WHERE NOT EXISTS (SELECT 1 FROM fields WHERE fieldName = ?)`, name, name); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)`, v); err != nil {
		return err
	}
	_, err := tx.Exec(`INSERT OR REPLACE INTO itemData (itemID, fieldID, valueID)
		VALUES (?, (SELECT fieldID FROM fields WHERE fieldName = ?), (SELECT valueID FROM itemDataValues WHERE value = ?))`,
		id, name, v)
	return err
}

// zoteroDate is v as Zotero stores a date: its sortable form
// ("2019-03-00"), a space, then the text as written. A v already in that
// form is kept.
func zoteroDate(v string) string {
	if regexp.MustCompile(`^\d{4}-\d{2}-\d{2} `).MatchString(v) {
		return v
	}
	if m := regexp.MustCompile(`^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$`).FindStringSubmatch(v); m != nil {
		return fmt.Sprintf("%s-%s-%s %s", m[1], or00(m[2]), or00(m[3]), v)
	}
	if y := regexp.MustCompile(`\b\d{4}\b`).FindString(v); y != "" {
		return y + "-00-00 " + v
	}
	return "0000-00-00 " + v
}

func or00(s string) string {
	if s == "" {
		return "00"
	}
	return s
}

// noteTitle is a title for a note, as Zotero derives one: its first line
// of text.
func noteTitle(src string) string {
	z := html.NewTokenizer(strings.NewReader(src))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.TextToken:
			if s := strings.TrimSpace(string(z.Text())); s != "" {
				line, _, _ := strings.Cut(s, "\n")
				return strings.TrimSpace(line)
			}
		}
	}
}

// attachmentItem writes an attachment item, a child of parent or
// standalone when parent is 0, and returns its id.
func (b *builder) attachmentItem(parent int64, a Attachment, fields map[string]string) (int64, error) {
	id, key, err := b.newItem("attachment", a.Key)
	if err != nil {
		return 0, err
	}
	title := a.Title
	if title == "" && fields != nil {
		title = fields["title"]
	}
	if title != "" {
		if err := setField(b.tx, id, "title", title); err != nil {
			return 0, err
		}
	}
	for name, v := range fields {
		if name != "title" {
			if err := setField(b.tx, id, name, v); err != nil {
				return 0, err
			}
		}
	}
	name := a.Name
	if name == "" && a.File != "" {
		name = filepath.Base(a.File)
	}
	var stored string
	mode := 0
	switch {
	case a.Linked == "":
		stored = "storage:" + name
		if a.File != "" {
			if !filepath.IsLocal(name) {
				return 0, fmt.Errorf("name %q leaves storage/%s", name, key)
			}
			if err := copyFile(a.File, filepath.Join(b.dir, "storage", key, name)); err != nil {
				return 0, err
			}
		}
	default:
		mode = 2
		target := a.Linked
		stored = a.Linked
		if rel, ok := strings.CutPrefix(a.Linked, "attachments:"); ok {
			if b.base == "" {
				return 0, fmt.Errorf("linked %q with no BaseDir", a.Linked)
			}
			target = filepath.Join(b.base, filepath.FromSlash(rel))
		} else if b.base != "" {
			if rel, err := filepath.Rel(b.base, a.Linked); err == nil && filepath.IsLocal(rel) {
				stored = "attachments:" + filepath.ToSlash(rel)
			}
		}
		if a.File != "" {
			if err := copyFile(a.File, target); err != nil {
				return 0, err
			}
		}
		if name == "" {
			name = filepath.Base(target)
		}
	}
	ctype := a.ContentType
	if ctype == "" {
		ctype = contentType(name)
	}
	var parentID any
	if parent != 0 {
		parentID = parent
	}
	if _, err := b.tx.Exec(`INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, charsetID, path, syncState, storageModTime, storageHash, lastProcessedModificationTime)
		VALUES (?, ?, ?, ?, NULL, ?, 0, NULL, NULL, NULL)`, id, parentID, mode, ctype, stored); err != nil {
		return 0, err
	}
	for i, an := range a.Annotations {
		if err := b.annotation(id, an, i); err != nil {
			return 0, fmt.Errorf("annotation %s: %w", an.Key, err)
		}
	}
	return id, nil
}

// contentType guesses a file's type from its name, as Zotero does when it
// imports one.
func contentType(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	switch ext {
	case ".pdf":
		return "application/pdf"
	case ".epub":
		return "application/epub+zip"
	case ".html", ".htm":
		return "text/html"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		t, _, _ = strings.Cut(t, ";")
		return t
	}
	return "application/octet-stream"
}

func annotationType(kind string) (int, error) {
	switch kind {
	case "highlight":
		return 1, nil
	case "note":
		return 2, nil
	case "image":
		return 3, nil
	case "ink":
		return 4, nil
	case "underline":
		return 5, nil
	case "text":
		return 6, nil
	}
	return 0, fmt.Errorf("unknown kind %q", kind)
}

func (b *builder) annotation(parent int64, an Annotation, order int) error {
	typ, err := annotationType(an.Kind)
	if err != nil {
		return err
	}
	id, _, err := b.newItem("annotation", an.Key)
	if err != nil {
		return err
	}
	page := max(an.PageIndex, 0)
	position := fmt.Sprintf(`{"pageIndex":%d,"rects":[[72.5,600.25,300,612.75]]}`, an.PageIndex)
	if an.PageIndex < 0 {
		position = `{"rects":[[72.5,600.25,300,612.75]]}`
	}
	// Zotero's sortIndex: page, offset in the page's text, distance from
	// the top, zero-padded so that the strings sort.
	sortIndex := fmt.Sprintf("%05d|%06d|%05d", page, order*100, 0)
	_, err = b.tx.Exec(`INSERT INTO itemAnnotations (itemID, parentItemID, type, authorName, text, comment, color, pageLabel, sortIndex, position, isExternal)
		VALUES (?, ?, ?, NULL, ?, ?, '#ffd400', ?, ?, ?, 0)`, id, parent, typ, an.Text, an.Comment, an.PageLabel, sortIndex, position)
	return err
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
