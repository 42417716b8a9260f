// Package zotero reads a Zotero data directory: the items of every library
// in its zotero.sqlite, with their metadata, collections, tags, child notes,
// annotations and the files of their attachments, resolved to paths.
//
// Zotero holds its database open, and locked, while it runs, and rewrites it
// as the user works; this package never writes to Zotero's files nor takes
// a lock on them. It reads a copy made while the files stood still, and
// falls back on the backup Zotero keeps beside the database (Backup) when no
// such copy can be had.
package zotero

import (
	"os"
	"path/filepath"
	"time"
)

const (
	// DB is the name of Zotero's database in its data directory.
	DB = "zotero.sqlite"
	// Backup is the name of the copy of DB that Zotero writes now and then,
	// beside it.
	Backup = "zotero.sqlite.bak"
)

// IsLibrary reports whether dir holds a Zotero database: a regular file
// named DB. A link named DB is not followed, as a data directory never
// holds one.
func IsLibrary(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, DB))
	return err == nil && fi.Mode().IsRegular()
}

// Options says what Open cannot find in the data directory itself.
type Options struct {
	// BaseDir resolves linked files stored as "attachments:…" paths,
	// relative to Zotero's "Linked Attachment Base Directory" (a setting
	// of the profile, which BaseDirFromPrefs reads); empty leaves them
	// unresolved, each reported as a Problem.
	BaseDir string
	// Scratch is a directory where the snapshot copy may be made
	// (os.TempDir() when empty); the copy is removed before Open returns.
	Scratch string
}

// Library is what Open read from a data directory.
type Library struct {
	// Dir is the data directory, as Open was given it.
	Dir string
	// Read says which file the items come from and how.
	Read Read
	// Items are the regular items and the standalone attachments of all
	// libraries (the user's and groups'), without those in the trash,
	// ordered by key.
	Items []Item
	// Problems are the attachments that could not be resolved to a file
	// (a missing file, a path that escapes its folder, an unknown base
	// directory), each naming the item.
	Problems []Problem
}

// Source is the file Open read.
type Source int

const (
	// FromDatabase is a copy of DB.
	FromDatabase Source = iota
	// FromBackup is a copy of Backup.
	FromBackup
)

// String returns the name of the file.
func (s Source) String() string {
	if s == FromBackup {
		return Backup
	}
	return DB
}

// Read says how the library was read.
type Read struct {
	// From is the file read: FromDatabase or FromBackup.
	From Source
	// Locked is whether another process (a running Zotero) held a lock on
	// DB when it was read. The lock is looked at, never taken.
	Locked bool
	// ModTime is the modification time of the file read: how old the data
	// is.
	ModTime time.Time
	// Why says, when From is FromBackup, why DB itself was not read.
	Why string
}

// String says what was read, for a person: "zotero.sqlite", with a note
// when Zotero held it, or "zotero.sqlite.bak of 2026-12-01 09:00 (why)".
func (r Read) String() string {
	s := r.From.String()
	if r.From == FromBackup {
		if !r.ModTime.IsZero() {
			s += " of " + r.ModTime.Format("2006-01-02 15:04")
		}
		if r.Why != "" {
			s += " (" + r.Why + ")"
		}
		return s
	}
	if r.Locked {
		s += " (Zotero running: a copy taken while it held the database)"
	}
	return s
}

// Item is one of Zotero's top-level items: a regular item (a book, an
// article, …) or a standalone attachment, whose only attachment is itself.
type Item struct {
	// Key is Zotero's key of the item, unique within its library.
	Key string
	// ItemType is Zotero's name of the type: "book", "journalArticle", …,
	// "attachment" for a standalone attachment.
	ItemType string
	// Title is the item's title; a standalone attachment's title, or its
	// file's name when it has none.
	Title string
	// Creators are the authors, "First Last" or a single-field name, in
	// Zotero's order; the editors when there is no author; else every
	// creator.
	Creators []string
	// Date is the date in ISO 8601 as far as Zotero knows it ("2019-03"
	// for "March 2019"), or as the user wrote it when Zotero could not
	// read it as a date.
	Date string
	// Publication is the journal, book, proceedings or website the item
	// appeared in.
	Publication string
	// Publisher is the publisher, or a thesis's university, a report's
	// institution.
	Publisher string
	DOI       string
	ISBN      string
	URL       string
	Abstract  string
	Language  string
	// Tags are the item's tags, sorted, distinct.
	Tags []string
	// Collections are the paths of the collections the item is in, each
	// from the top, the names joined with "/" ("Reading/Methods"; a "/"
	// inside a name is left as it is), sorted.
	Collections []string
	// Attachments are the item's files, best first: PDF, then EPUB, then
	// HTML snapshots, then others; within a kind, oldest first (Zotero's
	// own order for its "best attachment").
	Attachments []Attachment
	// Notes are the item's child notes, oldest first.
	Notes []Note
	// Annotations are the annotations on the item's attachments, in the
	// order of Attachments, then in their order in the document.
	Annotations []Annotation
	// Modified is the latest modification of the item and its children
	// (informative).
	Modified time.Time
}

// Attachment is a file of an item.
type Attachment struct {
	// Key is the attachment's own item key.
	Key string
	// Title is the attachment's title ("Full Text PDF", …).
	Title string
	// ContentType is the MIME type Zotero recorded.
	ContentType string
	// Path is the file's absolute path, cleaned; the file existed when
	// Open read the library.
	Path string
	// Linked is whether the file is a linked file, outside storage/.
	Linked bool
}

// Note is a child note of an item, as plain text.
type Note struct {
	Key string
	// Title is the title Zotero derived from the note.
	Title string
	// Text is the note's text, its paragraphs separated by blank lines.
	Text string
}

// Annotation is an annotation made in Zotero's reader on an attachment.
type Annotation struct {
	Key string
	// Attachment is the key of the attachment annotated.
	Attachment string
	// Kind is "highlight", "underline", "note", "text", "image" or "ink".
	Kind string
	// Text is the text highlighted or underlined, or a text annotation's.
	Text string
	// Comment is the user's comment on it.
	Comment string
	// PageLabel is the page's label as the document numbers it ("xii").
	PageLabel string
	// PageIndex is the 0-based index of the page, -1 when unknown.
	PageIndex int
	// Color is the colour, as Zotero stores it ("#ffd400").
	Color string
}

// Problem is an attachment Open could not resolve to a file.
type Problem struct {
	// Item is the key of the item the attachment belongs to (its own for
	// a standalone attachment).
	Item string
	// Path is the file's path, or the path as the database stores it when
	// it does not resolve to one.
	Path string
	// Reason says what is wrong, naming the item and the attachment.
	Reason string
}
