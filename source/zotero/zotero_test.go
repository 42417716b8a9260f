package zotero

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/source/zotero/zoterotest"
)

// file writes a small file with the given content in dir and returns its
// path. This package reads no file's content, so any bytes stand for a PDF.
func file(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func openLib(t *testing.T, dir string, o Options) *Library {
	t.Helper()
	if o.Scratch == "" {
		o.Scratch = t.TempDir()
	}
	lib, err := Open(context.Background(), dir, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if left, _ := os.ReadDir(o.Scratch); len(left) != 0 {
		t.Errorf("scratch folder holds %d entries after Open, want none", len(left))
	}
	return lib
}

func itemByKey(t *testing.T, lib *Library, key string) Item {
	t.Helper()
	for _, it := range lib.Items {
		if it.Key == key {
			return it
		}
	}
	t.Fatalf("no item %s among %d", key, len(lib.Items))
	return Item{}
}

func keys(lib *Library) []string {
	var out []string
	for _, it := range lib.Items {
		out = append(out, it.Key)
	}
	return out
}

func TestIsLibrary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zoterotest.Build(t, filepath.Join(dir, "real"), zoterotest.Library{})
	file(t, dir, "other/README", "")
	if err := os.MkdirAll(filepath.Join(dir, "link"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "real", DB), filepath.Join(dir, "link", DB)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "folder", DB), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{"real", true},
		{"other", false},
		{"link", false},
		{"folder", false},
		{"missing", false},
	} {
		if got := IsLibrary(filepath.Join(dir, tc.dir)); got != tc.want {
			t.Errorf("IsLibrary(%s) = %v, want %v", tc.dir, got, tc.want)
		}
	}
}

// TestMetadata reads back what a library was built with: fields, creators
// in order, single-field names, dates, tags, nested collections (parents
// that loop, collections in the trash) and item types.
func TestMetadata(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zoterotest.Build(t, dir, zoterotest.Library{
		Collections: []zoterotest.Collection{
			{Key: "COLREAD1", Name: "Reading"},
			{Key: "COLMETH1", Name: "Methods", Parent: "COLREAD1"},
			{Key: "COLDEEP1", Name: "Deep", Parent: "COLMETH1"},
			{Key: "COLLOOPA", Name: "Loop A", Parent: "COLLOOPB"},
			{Key: "COLLOOPB", Name: "Loop B", Parent: "COLLOOPA"},
			{Key: "COLGONE1", Name: "Gone"},
			{Key: "COLGONE2", Name: "Below gone", Parent: "COLGONE1"},
			{Key: "COLSLASH", Name: "A/B"},
		},
		Items: []zoterotest.Item{
			{
				Key: "BOOK0001", Type: "book",
				Fields: map[string]string{
					"title": "The Art of Search", "date": "March 2019", "publisher": "Grimoire Press",
					"ISBN": "978-3-16-148410-0", "language": "en", "abstractNote": "On finding things.",
				},
				Creators:    [][2]string{{"Ada", "Lovelace"}, {"", "Bourbaki Group"}, {"Grace", "Hopper"}},
				Tags:        []string{"search", "books", "search"},
				Collections: []string{"COLDEEP1", "COLREAD1", "COLLOOPA", "COLGONE2", "COLSLASH"},
			},
			{
				Key: "ARTI0001", Type: "journalArticle",
				Fields: map[string]string{
					"title": "Ranking Things", "date": "2020-05-17", "publicationTitle": "Journal of Retrieval",
					"DOI": "10.1000/xyz123", "url": "https://example.org/ranking",
				},
				Creators: [][2]string{{"Karen", "Spärck Jones"}},
			},
			{
				Key: "SECT0001", Type: "bookSection",
				Fields: map[string]string{"title": "A Chapter", "bookTitle": "Collected Chapters", "date": "2001"},
			},
			{
				Key: "THES0001", Type: "thesis",
				Fields: map[string]string{"title": "On Theses", "university": "University of Somewhere", "extra": "Note: x\nDOI: 10.5555/thesis.1"},
			},
			{Key: "TRSH0001", Type: "report", Fields: map[string]string{"title": "Thrown away"}, Trashed: true},
		},
	})
	// Editors and a contributor, written as Zotero writes them: a book
	// section with no author is cited by its editors.
	zoterotest.Update(t, dir, func(tx *sql.Tx) error {
		for i, name := range [][2]string{{"Ed", "Itor"}, {"Con", "Tributor"}, {"Sec", "Ond"}} {
			role := "editor"
			if i == 1 {
				role = "contributor"
			}
			if _, err := tx.Exec(`INSERT INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, 0)`, name[0], name[1]); err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO itemCreators (itemID, creatorID, creatorTypeID, orderIndex)
				SELECT (SELECT itemID FROM items WHERE key = 'SECT0001'), last_insert_rowid(),
				(SELECT creatorTypeID FROM creatorTypes WHERE creatorType = ?), ?`, role, 2-i); err != nil {
				return err
			}
		}
		_, err := tx.Exec(`INSERT INTO deletedCollections (collectionID) SELECT collectionID FROM collections WHERE key = 'COLGONE1'`)
		return err
	})
	lib := openLib(t, dir, Options{})
	if got, want := keys(lib), []string{"ARTI0001", "BOOK0001", "SECT0001", "THES0001"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("items %v, want %v", got, want)
	}
	want := map[string]Item{
		"BOOK0001": {
			Key: "BOOK0001", ItemType: "book", Title: "The Art of Search",
			Creators: []string{"Ada Lovelace", "Bourbaki Group", "Grace Hopper"},
			Date:     "2019", Publisher: "Grimoire Press", ISBN: "978-3-16-148410-0",
			Abstract: "On finding things.", Language: "en",
			Tags:        []string{"books", "search"},
			Collections: []string{"A/B", "Loop B/Loop A", "Reading", "Reading/Methods/Deep"},
		},
		"ARTI0001": {
			Key: "ARTI0001", ItemType: "journalArticle", Title: "Ranking Things",
			Creators: []string{"Karen Spärck Jones"}, Date: "2020-05-17",
			Publication: "Journal of Retrieval", DOI: "10.1000/xyz123", URL: "https://example.org/ranking",
		},
		"SECT0001": {
			Key: "SECT0001", ItemType: "bookSection", Title: "A Chapter",
			Creators: []string{"Sec Ond", "Ed Itor"}, Date: "2001", Publication: "Collected Chapters",
		},
		"THES0001": {
			Key: "THES0001", ItemType: "thesis", Title: "On Theses",
			Publisher: "University of Somewhere", DOI: "10.5555/thesis.1",
		},
	}
	for _, got := range lib.Items {
		if got.Modified.IsZero() {
			t.Errorf("%s: Modified is zero", got.Key)
		}
		got.Modified = time.Time{}
		if w := want[got.Key]; !reflect.DeepEqual(got, w) {
			t.Errorf("item %s:\n got %+v\nwant %+v", got.Key, got, w)
		}
	}
	if len(lib.Problems) != 0 {
		t.Errorf("problems: %v", lib.Problems)
	}
	if lib.Read.From != FromDatabase || lib.Read.Locked || lib.Read.Why != "" || lib.Read.ModTime.IsZero() {
		t.Errorf("Read = %+v, want from the database, unlocked", lib.Read)
	}
	if lib.Dir != dir {
		t.Errorf("Dir = %q, want %q", lib.Dir, dir)
	}
}

// TestAttachments checks the files found for items: their order, linked
// files absolute and relative to the base directory, the trash, standalone
// attachments, and the paths that are refused.
func TestAttachments(t *testing.T) {
	t.Parallel()
	dir, src := t.TempDir(), t.TempDir()
	base, outside := filepath.Join(t.TempDir(), "base"), t.TempDir()
	pdf := file(t, src, "paper.pdf", "%PDF-1.4 not really")
	epub := file(t, src, "book.epub", "PK not really")
	page := file(t, src, "page.html", "<html></html>")
	txt := file(t, src, "notes.txt", "plain")
	zoterotest.Build(t, dir, zoterotest.Library{
		BaseDir: base,
		Items: []zoterotest.Item{
			{
				Key: "BOOK0001", Type: "book", Fields: map[string]string{"title": "Best first"},
				Attachments: []zoterotest.Attachment{
					{Key: "TXT00001", Title: "Plain", File: txt},
					{Key: "EPUB0001", Title: "EPUB", File: epub},
					{Key: "PDF00001", Title: "Full Text PDF", File: pdf},
					{Key: "HTML0001", Title: "Snapshot", File: page},
					{Key: "PDF00002", Title: "Older PDF", File: pdf, Name: "older.pdf"},
					{Key: "PDFTRASH", Title: "Trashed PDF", File: pdf},
				},
			},
			{
				Key: "LINK0001", Type: "book", Fields: map[string]string{"title": "Linked"},
				Attachments: []zoterotest.Attachment{
					{Key: "LINKABS1", File: pdf, Linked: filepath.Join(outside, "abs dir", "abs.pdf")},
					{Key: "LINKREL1", File: epub, Linked: filepath.Join(base, "sub", "rel.epub")},
					{Key: "LINKREL2", File: pdf, Linked: "attachments:other/rel2.pdf"},
				},
			},
			{
				Key: "BAD00001", Type: "book", Fields: map[string]string{"title": "Bad paths"},
				Attachments: []zoterotest.Attachment{
					{Key: "ESCAPE01", Name: "../../../etc/passwd"},
					{Key: "ESCAPE02", Name: "../ESCAPE01/x.pdf"},
					{Key: "MISSING1", Name: "gone.pdf"},
					{Key: "MISSING2", Linked: filepath.Join(outside, "gone.pdf")},
					{Key: "GOOD0001", File: pdf},
				},
			},
			{
				Key: "TRSH0001", Type: "book", Fields: map[string]string{"title": "In the trash"}, Trashed: true,
				Attachments: []zoterotest.Attachment{{Key: "TRSHCHLD", File: pdf}},
			},
			{Key: "STAND001", Type: "attachment", Attachments: []zoterotest.Attachment{{File: pdf}}, Tags: []string{"loose"}},
			{Key: "STAND002", Type: "attachment", Fields: map[string]string{"title": "A titled file", "url": "https://example.org/f"},
				Attachments: []zoterotest.Attachment{{File: epub, Name: "titled.epub"}}},
			{Key: "STAND003", Type: "attachment", Attachments: []zoterotest.Attachment{{File: pdf}}, Trashed: true},
			{Key: "STAND004", Type: "attachment", Attachments: []zoterotest.Attachment{{Name: "absent.pdf"}}},
		},
	})
	zoterotest.Trash(t, dir, "PDFTRASH")
	// The second PDF was added before the first: oldest first within a
	// kind, whatever the order of the rows.
	zoterotest.Update(t, dir, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE items SET dateAdded = '2020-01-01 00:00:00' WHERE key = 'PDF00002'`)
		return err
	})
	// A linked URL has no file, and is no problem.
	zoterotest.Update(t, dir, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO items (itemTypeID, libraryID, key) SELECT itemTypeID, 1, 'URL00001' FROM items WHERE key = 'PDF00001';
			INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path)
			SELECT (SELECT itemID FROM items WHERE key = 'URL00001'), (SELECT itemID FROM items WHERE key = 'BOOK0001'), 3, 'text/html', NULL`)
		return err
	})

	lib := openLib(t, dir, Options{BaseDir: base})
	if got, want := keys(lib), []string{"BAD00001", "BOOK0001", "LINK0001", "STAND001", "STAND002"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("items %v, want %v", got, want)
	}
	st := func(key, name string) string { return filepath.Join(dir, "storage", key, name) }
	wantAtts := map[string][]Attachment{
		"BOOK0001": {
			{Key: "PDF00002", Title: "Older PDF", ContentType: "application/pdf", Path: st("PDF00002", "older.pdf")},
			{Key: "PDF00001", Title: "Full Text PDF", ContentType: "application/pdf", Path: st("PDF00001", "paper.pdf")},
			{Key: "EPUB0001", Title: "EPUB", ContentType: "application/epub+zip", Path: st("EPUB0001", "book.epub")},
			{Key: "HTML0001", Title: "Snapshot", ContentType: "text/html", Path: st("HTML0001", "page.html")},
			{Key: "TXT00001", Title: "Plain", ContentType: "text/plain", Path: st("TXT00001", "notes.txt")},
		},
		"LINK0001": {
			{Key: "LINKABS1", ContentType: "application/pdf", Path: filepath.Join(outside, "abs dir", "abs.pdf"), Linked: true},
			{Key: "LINKREL2", ContentType: "application/pdf", Path: filepath.Join(base, "other", "rel2.pdf"), Linked: true},
			{Key: "LINKREL1", ContentType: "application/epub+zip", Path: filepath.Join(base, "sub", "rel.epub"), Linked: true},
		},
		"BAD00001": {{Key: "GOOD0001", ContentType: "application/pdf", Path: st("GOOD0001", "paper.pdf")}},
		"STAND001": {{Key: "STAND001", ContentType: "application/pdf", Path: st("STAND001", "paper.pdf")}},
		"STAND002": {{Key: "STAND002", Title: "A titled file", ContentType: "application/epub+zip", Path: st("STAND002", "titled.epub")}},
	}
	for _, it := range lib.Items {
		if !reflect.DeepEqual(it.Attachments, wantAtts[it.Key]) {
			t.Errorf("%s attachments:\n got %+v\nwant %+v", it.Key, it.Attachments, wantAtts[it.Key])
		}
	}
	s1 := itemByKey(t, lib, "STAND001")
	if s1.ItemType != "attachment" || s1.Title != "paper.pdf" || !reflect.DeepEqual(s1.Tags, []string{"loose"}) {
		t.Errorf("standalone item = %+v, want an attachment titled by its file's name, tagged", s1)
	}
	if s2 := itemByKey(t, lib, "STAND002"); s2.Title != "A titled file" || s2.URL != "https://example.org/f" {
		t.Errorf("standalone item = %+v, want its title and URL", s2)
	}
	wantProblems := []struct{ key, reason string }{
		{"attachment STAND004", "file not found"},
		{"item BAD00001, attachment ESCAPE01", "escapes storage/ESCAPE01"},
		{"item BAD00001, attachment ESCAPE02", "escapes storage/ESCAPE02"},
		{"item BAD00001, attachment MISSING1", "file not found"},
		{"item BAD00001, attachment MISSING2", "file not found"},
	}
	if len(lib.Problems) != len(wantProblems) {
		t.Fatalf("problems %+v, want %d", lib.Problems, len(wantProblems))
	}
	for i, w := range wantProblems {
		p := lib.Problems[i]
		if !strings.HasPrefix(p.Reason, w.key+": ") || !strings.Contains(p.Reason, w.reason) {
			t.Errorf("problem %d = %+v, want %q … %q", i, p, w.key, w.reason)
		}
		if strings.Contains(p.Path, "etc") && strings.HasPrefix(p.Path, "/etc") {
			t.Errorf("problem %d resolved outside storage: %q", i, p.Path)
		}
	}

	// Without the base directory, relative linked files are problems.
	lib = openLib(t, dir, Options{})
	if got := itemByKey(t, lib, "LINK0001").Attachments; len(got) != 1 || got[0].Key != "LINKABS1" {
		t.Errorf("attachments without a base directory: %+v, want the absolute one alone", got)
	}
	n := 0
	for _, p := range lib.Problems {
		if strings.Contains(p.Reason, "base directory") {
			n++
			if !strings.HasPrefix(p.Path, "attachments:") {
				t.Errorf("problem %+v does not give the stored path", p)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d problems name the base directory, want 2: %+v", n, lib.Problems)
	}
}

func TestNotesAndAnnotations(t *testing.T) {
	t.Parallel()
	dir, src := t.TempDir(), t.TempDir()
	pdf := file(t, src, "paper.pdf", "%PDF-1.4")
	epub := file(t, src, "paper.epub", "PK")
	zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{{
		Key: "ARTI0001", Type: "journalArticle", Fields: map[string]string{"title": "Annotated"},
		Notes: []zoterotest.Note{
			{Key: "NOTE0001", HTML: `<div data-schema-version="9"><h1>Summary</h1><p>First <strong>bold</strong>  para.</p>` +
				`<p>Second&nbsp;para<br>line &amp; two</p><ul><li>one</li><li>two</li></ul></div>`},
			{Key: "NOTE0002", HTML: `<p>Later note</p>`},
			{Key: "NOTETRSH", HTML: `<p>Trashed note</p>`},
		},
		Attachments: []zoterotest.Attachment{
			{Key: "EPUB0001", File: epub, Annotations: []zoterotest.Annotation{
				{Key: "ANNE0001", Kind: "highlight", Text: "In the EPUB", PageIndex: -1},
			}},
			{Key: "PDF00001", File: pdf, Annotations: []zoterotest.Annotation{
				{Key: "ANNP0003", Kind: "underline", Text: "Underlined", PageLabel: "iii", PageIndex: 2},
				{Key: "ANNP0001", Kind: "highlight", Text: "Highlighted", Comment: "Why this matters", PageLabel: "1", PageIndex: 0},
				{Key: "ANNP0004", Kind: "image", PageIndex: 3},
				{Key: "ANNP0005", Kind: "ink", Comment: "A drawing", PageLabel: "5", PageIndex: 4},
				{Key: "ANNP0002", Kind: "note", Comment: "A sticky note", PageLabel: "2", PageIndex: 1},
				{Key: "ANNP0006", Kind: "text", Text: "Typed", PageIndex: 5},
				{Key: "ANNTRASH", Kind: "highlight", Text: "Gone", PageIndex: 0},
			}},
		},
	}}})
	zoterotest.Trash(t, dir, "NOTETRSH")
	zoterotest.Trash(t, dir, "ANNTRASH")
	// A standalone note is no item's, and an attachment's own note is no
	// child note.
	zoterotest.Update(t, dir, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO items (itemTypeID, libraryID, key) SELECT itemTypeID, 1, 'NOTEALON' FROM items WHERE key = 'NOTE0001';
			INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (last_insert_rowid(), NULL, '<p>alone</p>', 'alone');
			INSERT INTO itemNotes (itemID, parentItemID, note, title)
			SELECT itemID, (SELECT itemID FROM items WHERE key = 'ARTI0001'), '<p>attachment note</p>', 'x' FROM items WHERE key = 'PDF00001'`)
		return err
	})
	lib := openLib(t, dir, Options{})
	if got := keys(lib); !reflect.DeepEqual(got, []string{"ARTI0001"}) {
		t.Fatalf("items %v", got)
	}
	it := lib.Items[0]
	wantNotes := []Note{
		{Key: "NOTE0001", Title: "Summary", Text: "Summary\n\nFirst bold para.\n\nSecond para\nline & two\n\none\n\ntwo"},
		{Key: "NOTE0002", Title: "Later note", Text: "Later note"},
	}
	if !reflect.DeepEqual(it.Notes, wantNotes) {
		t.Errorf("notes:\n got %q\nwant %q", it.Notes, wantNotes)
	}
	c := "#ffd400"
	wantAnn := []Annotation{
		{Key: "ANNP0001", Attachment: "PDF00001", Kind: "highlight", Text: "Highlighted", Comment: "Why this matters", PageLabel: "1", PageIndex: 0, Color: c},
		{Key: "ANNP0002", Attachment: "PDF00001", Kind: "note", Comment: "A sticky note", PageLabel: "2", PageIndex: 1, Color: c},
		{Key: "ANNP0003", Attachment: "PDF00001", Kind: "underline", Text: "Underlined", PageLabel: "iii", PageIndex: 2, Color: c},
		{Key: "ANNP0005", Attachment: "PDF00001", Kind: "ink", Comment: "A drawing", PageLabel: "5", PageIndex: 4, Color: c},
		{Key: "ANNP0006", Attachment: "PDF00001", Kind: "text", Text: "Typed", PageIndex: 5, Color: c},
		{Key: "ANNE0001", Attachment: "EPUB0001", Kind: "highlight", Text: "In the EPUB", PageIndex: -1, Color: c},
	}
	if !reflect.DeepEqual(it.Annotations, wantAnn) {
		t.Errorf("annotations:\n got %+v\nwant %+v", it.Annotations, wantAnn)
	}
}

// TestModified checks that an item's modification time is the latest of
// its own and its children's.
func TestModified(t *testing.T) {
	t.Parallel()
	dir, src := t.TempDir(), t.TempDir()
	pdf := file(t, src, "a.pdf", "%PDF")
	zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{{
		Key: "ITEM0001", Type: "book", Fields: map[string]string{"title": "T"},
		Attachments: []zoterotest.Attachment{{Key: "PDF00001", File: pdf, Annotations: []zoterotest.Annotation{{Key: "ANN00001", Kind: "highlight", Text: "x"}}}},
	}}})
	for _, key := range []string{"ITEM0001", "PDF00001", "ANN00001"} {
		when := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
		zoterotest.Update(t, dir, func(tx *sql.Tx) error {
			_, err := tx.Exec(`UPDATE items SET clientDateModified = ? WHERE key = ?`, when.Format(time.DateTime), key)
			return err
		})
		if got := openLib(t, dir, Options{}).Items[0].Modified; !got.Equal(when) {
			t.Errorf("after %s changed: Modified = %v, want %v", key, got, when)
		}
		zoterotest.Update(t, dir, func(tx *sql.Tx) error {
			_, err := tx.Exec(`UPDATE items SET clientDateModified = '2024-01-01 00:00:00' WHERE key = ?`, key)
			return err
		})
	}
}

// TestEdits reads a library again after Zotero edited it.
func TestEdits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{
		{Key: "ITEM0001", Type: "book", Fields: map[string]string{"title": "Before"}},
		{Key: "ITEM0002", Type: "book", Fields: map[string]string{"title": "Other"}},
	}})
	zoterotest.Rename(t, dir, "ITEM0001", "After")
	zoterotest.AddTag(t, dir, "ITEM0001", "edited")
	zoterotest.Trash(t, dir, "ITEM0002")
	lib := openLib(t, dir, Options{})
	if len(lib.Items) != 1 || lib.Items[0].Title != "After" || !reflect.DeepEqual(lib.Items[0].Tags, []string{"edited"}) {
		t.Errorf("items after edits: %+v", lib.Items)
	}
}

// TestCrafted reads a database made to harm: values of the wrong types,
// keys that would name other folders, a huge note, parents that point
// nowhere or at themselves.
func TestCrafted(t *testing.T) {
	t.Parallel()
	dir, src := t.TempDir(), t.TempDir()
	pdf := file(t, src, "a.pdf", "%PDF")
	zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{{
		Key: "ITEM0001", Type: "book", Fields: map[string]string{"title": "T"},
		Creators:    [][2]string{{"A", "B"}},
		Attachments: []zoterotest.Attachment{{Key: "PDF00001", File: pdf}},
		Notes:       []zoterotest.Note{{Key: "NOTE0001", HTML: "<p>x</p>"}},
	}}})
	big := "<p>" + strings.Repeat("word ", 1<<19) + "</p>"
	zoterotest.Update(t, dir, func(tx *sql.Tx) error {
		for _, q := range []string{
			`UPDATE itemCreators SET orderIndex = 'first', creatorTypeID = x'00ff'`,
			`UPDATE creators SET fieldMode = 'one', firstName = x'ff00fe'`,
			`UPDATE itemAttachments SET linkMode = 'zero'`,
			`UPDATE itemNotes SET note = '` + big + `'`,
			`INSERT INTO items (itemTypeID, libraryID, key) SELECT itemTypeID, 1, '../../x' FROM items WHERE key = 'PDF00001'`,
			`INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (last_insert_rowid(), NULL, 0, 'application/pdf', 'storage:a.pdf')`,
			`INSERT INTO items (itemTypeID, libraryID, key) SELECT itemTypeID, 1, 'SELF0001' FROM items WHERE key = 'PDF00001'`,
			`INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (last_insert_rowid(), last_insert_rowid(), 0, 'application/pdf', 'storage:a.pdf')`,
			`INSERT INTO itemAttachments (itemID, parentItemID, linkMode, path) VALUES (999999, 1, 0, 'storage:a.pdf')`,
			`INSERT INTO itemAnnotations (itemID, parentItemID, type, sortIndex, position, isExternal) VALUES (888888, 777777, 1, '', '{', 0)`,
			`INSERT INTO items (itemTypeID, libraryID, key, dateAdded) VALUES (424242, 1, 'ODDTYPE1', x'01')`,
			`INSERT INTO collections (collectionID, collectionName, parentCollectionID, libraryID, key) VALUES (50, 'self', 50, 1, 'SELFCOLL')`,
			`INSERT INTO collectionItems (collectionID, itemID) SELECT 50, itemID FROM items WHERE key = 'ITEM0001'`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return fmt.Errorf("%s: %w", q[:min(len(q), 60)], err)
			}
		}
		return nil
	})
	lib := openLib(t, dir, Options{})
	it := itemByKey(t, lib, "ITEM0001")
	if len(it.Notes) != 1 || len(it.Notes[0].Text) > maxNoteHTML || len(it.Notes[0].Text) < maxNoteHTML/2 {
		t.Errorf("the huge note was not cut: %d bytes", len(it.Notes[0].Text))
	}
	if !reflect.DeepEqual(it.Collections, []string{"self"}) {
		t.Errorf("collections %q, want the looping one once", it.Collections)
	}
	found := false
	for _, p := range lib.Problems {
		if strings.Contains(p.Reason, `"../../x"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no problem for the key that names another folder: %+v", lib.Problems)
	}
	for _, it := range lib.Items {
		for _, a := range it.Attachments {
			if !strings.HasPrefix(a.Path, filepath.Join(dir, "storage")+string(filepath.Separator)) {
				t.Errorf("attachment resolved outside storage: %q", a.Path)
			}
		}
	}
}

func TestCanceled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{{Key: "ITEM0001", Type: "book"}}})
	zoterotest.Backup(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, dir, Options{Scratch: t.TempDir()}); err == nil {
		t.Error("Open with a canceled context succeeded")
	}
}
