// Package library holds what a library is made of, as every layer names
// it: books (one per distinct content, by Hash) with their catalog,
// chapters, sections and chunks, the files that hold them, the states a
// book and a chunk go through, and a sync run's counters and failures.
// It imports nothing of grimoire's; the index stores these values, the
// ingest pipeline makes them, and search and the front ends read them.
package library

import (
	"strconv"
	"strings"
	"time"
)

// BookStatus is where a book is in the ingest pipeline.
type BookStatus string

const (
	// Pending: known by its hash, not yet parsed.
	Pending BookStatus = "pending"
	// Parsed: structure and chunks stored; chunks still being contextualized
	// or embedded.
	Parsed BookStatus = "parsed"
	// Ready: every chunk embedded; the book answers queries.
	Ready BookStatus = "ready"
	// Failed: parsing failed; Book.Error says why. Retried when the file
	// changes or on `grimoire sync --retry`.
	Failed BookStatus = "failed"
)

// ChunkState is where a chunk is in the ingest pipeline. States only move
// forward: pending → contextualized → embedded.
type ChunkState string

const (
	ChunkPending        ChunkState = "pending"
	ChunkContextualized ChunkState = "contextualized"
	ChunkEmbedded       ChunkState = "embedded"
)

// Book is one distinct content (one Hash). Many files may hold it; a book no
// file holds is pruned, unless it is the answering version of a file whose
// new content is still being ingested.
type Book struct {
	ID   int64
	Hash Hash
	// Slug is the book's stable, unique, URL-safe name, derived from its
	// title; it is how users and MCP clients name a book.
	Slug       string
	Title      string
	Authors    []string
	Language   string
	SourceType string
	PageCount  int
	// PageLabels[i] is the printed name of page i+1 ("xiv"); empty when
	// the pages are simply numbered.
	PageLabels []string
	// Size is the file's size in bytes.
	Size   int64
	Status BookStatus
	// Error is the last ingest failure; empty unless Status is Failed (or a
	// retry is pending after a failure).
	Error    string
	Attempts int
	// Replaces is the ID of the older version of the same file that keeps
	// answering until this one is ready; 0 for none.
	Replaces int64
	AddedAt  time.Time
	ReadyAt  time.Time

	// Catalog is what a calibre library says of the book, else what the
	// book's own file says (an EPUB's subjects, a PDF's Keywords); zero
	// when neither says anything.
	Catalog Catalog

	// Counts and Paths are filled by listing queries.
	Chapters, Sections, Chunks int
	// Paths are the files that hold this content, sorted.
	Paths []string

	// OriginPath is a path the book was first found at: its citation once
	// no file holds it (an old version still answering). The index sets
	// it; it is not printed.
	OriginPath string `json:"-"`
}

// Catalog is what a library catalogue (calibre's metadata.opf), or the
// book's own file, says of a book beyond its text.
type Catalog struct {
	// Path is the catalogue file it was read from (calibre's
	// metadata.opf); empty when the book's own file gave it.
	Path        string
	Series      string
	SeriesIndex float64
	Tags        []string
	Publisher   string
	// Published is the publication date as the catalogue gives it.
	Published string
	// Identifiers map a scheme ("isbn", "uri") to the book's identifier.
	Identifiers map[string]string
	// Collections are the paths of the Zotero collections that hold the
	// book ("Thesis/Methods"); ItemType is Zotero's type of the item
	// ("journalArticle"); Publication the journal, proceedings or book it
	// appeared in; Abstract its abstract.
	Collections []string
	ItemType    string
	Publication string
	Abstract    string
}

// CatalogEntry is a catalogue's description of a book: it names the book
// as well, overriding what the book's file says of itself where it says
// anything.
type CatalogEntry struct {
	Title    string
	Authors  []string
	Language string
	Catalog
}

// Author returns the authors joined for display.
func (b *Book) Author() string { return JoinAuthors(b.Authors) }

// JoinAuthors joins authors for display, as the index stores them for
// searching.
func JoinAuthors(a []string) string { return strings.Join(a, "; ") }

// PageLabel returns the printed name of page p (1-based), or "" when it is
// just the number p.
func (b *Book) PageLabel(p int) string {
	if p < 1 || p > len(b.PageLabels) {
		return ""
	}
	if l := b.PageLabels[p-1]; l != strconv.Itoa(p) {
		return l
	}
	return ""
}

// Chapter is a top-level division of a book. Index is 0-based and dense.
type Chapter struct {
	Index     int
	Title     string
	Anchor    string
	PageStart int // 0 when the format has no pages
	PageEnd   int
	Sections  []Section
}

// Section is a division of a chapter: a sub-heading, a TOC sub-entry, or a
// part of a long chapter split on paragraph boundaries (Synthesized).
type Section struct {
	ChapterIndex int
	Index        int // 0-based within the chapter
	Title        string
	Synthesized  bool
	Anchor       string
	PageStart    int
	PageEnd      int
	Tokens       int
	// Text is the section's full text; filled only where asked for.
	Text string
	// FirstChunk and ChunkCount locate the section's chunks in book order.
	FirstChunk int
	ChunkCount int
}

// Chunk is the unit of retrieval: a passage that never crosses a section.
type Chunk struct {
	ID           int64
	BookID       int64
	Index        int // 0-based, book-wide reading order
	ChapterIndex int
	SectionIndex int
	// Heading is the heading path "Book › Chapter › Section", indexed and
	// embedded with the text.
	Heading string
	// Context situates the chunk in its book (Contextual Retrieval); empty
	// when no language model is configured.
	Context   string
	Text      string
	Anchor    string
	PageStart int
	PageEnd   int
	Tokens    int
	State     ChunkState
}

// File maps a path under a library root to the content it held when it was
// last hashed.
type File struct {
	// Path is absolute and clean.
	Path string
	// Root is the library root the path was found under.
	Root    string
	Hash    Hash
	Size    int64
	MtimeNS int64
	Inode   uint64
	// VerifiedNS is when the hash was last known to match (Unix ns). A file
	// whose mtime is not older than this by the racy window is re-hashed.
	VerifiedNS int64
	// SourceType is the format the file's name says it holds, as the scan
	// judged it (one of ingest/doc's source types). A book made for the
	// content starts with it; parsing may settle on another of its paths'.
	SourceType string
}

// RootIdentity tells one folder from another that later takes its path: an
// unmounted drive leaves an empty folder of another device at its mount
// point. The zero value means unknown.
type RootIdentity struct {
	Device uint64
	Inode  uint64
}

// IsZero reports whether the identity is unknown.
func (r RootIdentity) IsZero() bool { return r == RootIdentity{} }

// Hold is a removal that a sync did not apply for want of evidence: files
// under a library folder (or a mount point below one) are gone, but the
// folder is not the one that held them, or too many went at once. The
// books stay until the files come back or `grimoire sync --prune` applies
// the removal.
type Hold struct {
	Root   string    `json:"root"`
	Reason string    `json:"reason"`
	Files  int       `json:"files"` // files whose removal is held
	Since  time.Time `json:"since"`
}

// Counters are one reconcile-and-ingest run's numbers.
type Counters struct {
	Scanned  int `json:"scanned"`   // files seen by the walk
	Hashed   int `json:"hashed"`    // files read and hashed
	New      int `json:"new"`       // books created for unknown content
	Changed  int `json:"changed"`   // known paths whose content changed
	Moved    int `json:"moved"`     // paths whose content appeared at a new path
	Copied   int `json:"copied"`    // new paths holding already-known content
	Removed  int `json:"removed"`   // paths gone from the library
	Held     int `json:"held"`      // paths gone whose removal is held (see Hold)
	Skipped  int `json:"skipped"`   // files skipped: too large, empty, unstable, unreadable
	Excluded int `json:"excluded"`  // files whose content was deleted by the user
	Ingested int `json:"ingested"`  // books that became ready
	Pruned   int `json:"pruned"`    // books removed from the index
	Failed   int `json:"failed"`    // books that failed to ingest
	NeedsOCR int `json:"needs_ocr"` // books whose scanned pages wait for OCR (no tesseract)
}

// Add adds o's counts to c.
func (c *Counters) Add(o Counters) {
	c.Scanned += o.Scanned
	c.Hashed += o.Hashed
	c.New += o.New
	c.Changed += o.Changed
	c.Moved += o.Moved
	c.Copied += o.Copied
	c.Removed += o.Removed
	c.Held += o.Held
	c.Skipped += o.Skipped
	c.Excluded += o.Excluded
	c.Ingested += o.Ingested
	c.Pruned += o.Pruned
	c.Failed += o.Failed
	c.NeedsOCR += o.NeedsOCR
}

// Unsupported counts the library's files of one extension that are no
// book grimoire reads.
type Unsupported struct {
	// Extension is lower case with its dot (".cbz"), or "" for names
	// without one.
	Extension string `json:"extension"`
	Files     int    `json:"files"`
}

// Failure is one file or book that could not be indexed, and why.
type Failure struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Run is the record of one sync run.
type Run struct {
	ID       int64     `json:"-"`
	Kind     string    `json:"kind"` // "sync", "watch", "rescan"
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Counters
	Failures []Failure `json:"failures"`
	// Holds are the removals this run held back; not kept with the run
	// (the index keeps the current ones, see DB.Holds).
	Holds []Hold `json:"-"`
}

// ZoteroRead is which database a pass read a Zotero library from, and how
// old what it read was: grimoire reads a copy, never Zotero's own file,
// and the backup when no consistent copy could be had.
type ZoteroRead struct {
	// Dir is the Zotero data directory.
	Dir string `json:"dir"`
	// From names the file read: "zotero.sqlite" or "zotero.sqlite.bak".
	From string `json:"from"`
	// Locked: a running Zotero held the database when it was copied.
	Locked bool `json:"locked,omitempty"`
	// DataTime is when the file read was last written.
	DataTime time.Time `json:"data_time"`
	// ReadAt is when the pass read it.
	ReadAt time.Time `json:"read_at"`
	// Why the backup was read instead of the database; "" when it was not.
	Why string `json:"why,omitempty"`
	// Items is how many of its items are books.
	Items int `json:"items"`
}
