package zotero

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/source/zotero"
)

// item makes an item's bytes: the header, then each attachment's text.
func item(t testing.TB, h header, files ...string) []byte {
	t.Helper()
	for i, f := range files {
		h.Attachments[i].Size = int64(len(f))
	}
	line, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(zotero.BookMagic + string(line) + "\n" + strings.Join(files, ""))
}

// fakeParts parses "pdf" attachments as one page per line, labelled as
// the line's first word says when it is "label:X"; a line "SCAN" is a
// scanned page, read from recognised when OCR has; "bad" ones fail. It
// draws a page as an empty image and records which it drew.
type fakeParts struct{ drawn []string }

func (*fakeParts) Parse(_ context.Context, typ string, data []byte, recognised map[int]string) (*doc.Document, error) {
	if typ == "bad" {
		return nil, errors.New("cannot read it")
	}
	d := &doc.Document{Title: "From the file"}
	var sec doc.Section
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		d.PageCount++
		if line == "SCAN" {
			text, ok := recognised[i+1]
			if !ok {
				d.Scanned = append(d.Scanned, i+1)
				continue
			}
			line = text
		}
		if l, rest, ok := strings.Cut(line, " "); ok && strings.HasPrefix(l, "label:") {
			for len(d.PageLabels) < i {
				d.PageLabels = append(d.PageLabels, "")
			}
			d.PageLabels = append(d.PageLabels, strings.TrimPrefix(l, "label:"))
			line = rest
		}
		sec.Blocks = append(sec.Blocks, doc.Block{Text: line, Page: i + 1})
	}
	if len(sec.Blocks) > 0 {
		d.Chapters = []doc.Chapter{{Title: "Body", Sections: []doc.Section{sec}}}
	}
	return d, nil
}

func (f *fakeParts) Render(_ context.Context, typ string, data []byte, pages []int, _ float64, each func(doc.PageImage) error) error {
	for _, p := range pages {
		f.drawn = append(f.drawn, fmt.Sprintf("%s:%d", strings.SplitN(string(data), "\n", 2)[0], p))
		if err := each(doc.PageImage{Page: p}); err != nil {
			return err
		}
	}
	return nil
}

func TestParse(t *testing.T) {
	t.Parallel()
	h := header{
		ItemType: "journalArticle", Title: "Tides", Creators: []string{"Ada Lovelace"}, Date: "2019-03",
		Publication: "Journal of Coasts", DOI: "10.1/x", Tags: []string{"coastal"}, Collections: []string{"Thesis/Methods"},
		Language:    "en_GB",
		Attachments: []zotero.BookAttachment{{Key: "A", Type: "pdf", Name: "a.pdf"}, {Key: "B", Title: "Supplement", Type: "pdf", Name: "b.pdf"}},
		Notes:       []zotero.BookNote{{Title: "Summary", Text: "First thought.\n\nSecond thought."}},
		Annotations: []zotero.BookAnnotation{
			{Attachment: "B", Kind: "highlight", Text: "the second file's words", Comment: "mine", PageLabel: "S2", PageIndex: 1},
			{Attachment: "A", Kind: "note", Comment: "a sticky note", PageLabel: "iv", PageIndex: 7},
			{Attachment: "A", Kind: "underline", Text: "two", PageLabel: "iv", PageIndex: 1},
			{Attachment: "A", Kind: "image"},
		},
	}
	d, err := Parse(context.Background(), item(t, h, "label:iii one\nlabel:iv two\n", "s one\ns two\n"), &fakeParts{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Tides" || d.Language != "en-GB" || d.SourceType != zotero.Type || d.PageCount != 4 {
		t.Errorf("document: %q %q %q %d pages", d.Title, d.Language, d.SourceType, d.PageCount)
	}
	if got := strings.Join(d.PageLabels, ","); got != "iii,iv,1,2" {
		t.Errorf("page labels %s, want the first file's, then the second's numbers", got)
	}
	c := d.Catalog
	if c.Published != "2019-03" || c.Publication != "Journal of Coasts" || c.Publisher != "" || c.ItemType != "journalArticle" || c.Identifiers["doi"] != "10.1/x" ||
		len(c.Collections) != 1 || len(c.Tags) != 1 {
		t.Errorf("catalogue: %+v", c)
	}
	var titles []string
	for _, ch := range d.Chapters {
		titles = append(titles, ch.Title)
	}
	if got := strings.Join(titles, " | "); got != "Body | Supplement: Body | "+zotero.NotesChapter {
		t.Fatalf("chapters: %s", got)
	}
	if p := d.Chapters[1].Sections[0].Blocks[1].Page; p != 4 {
		t.Errorf("the second file's second page is page %d of the book, want 4", p)
	}
	notes := d.Chapters[2].Sections
	if len(notes) != 4 {
		t.Fatalf("notes chapter: %+v", notes)
	}
	if notes[0].Title != "Your highlight, p. S2" || notes[0].Blocks[0].Kind != doc.Quote || notes[0].Blocks[0].Page != 4 || notes[0].Blocks[1].Text != "Your comment: mine" {
		t.Errorf("highlight: %+v", notes[0])
	}
	if notes[1].Title != "Your note, p. iv" || notes[1].Blocks[0].Page != 0 {
		t.Errorf("a note on a page the file does not have: %+v", notes[1])
	}
	if notes[2].Title != "Your underline" || notes[2].Blocks[0].Page != 2 {
		t.Errorf("an underline on page iv, which its citation names: %+v", notes[2])
	}
	if notes[3].Title != "Your note: Summary" || len(notes[3].Blocks) != 2 {
		t.Errorf("child note: %+v", notes[3])
	}
}

func TestParseFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	one := func(typ string) header {
		return header{Title: "T", Attachments: []zotero.BookAttachment{{Key: "A", Type: typ, Name: "a.pdf"}}}
	}
	if _, err := Parse(ctx, item(t, one("bad"), "x"), &fakeParts{}, nil); err == nil || !strings.Contains(err.Error(), "a.pdf: cannot read it") {
		t.Errorf("an item whose only file fails: %v", err)
	}
	withNote := one("bad")
	withNote.Notes = []zotero.BookNote{{Text: "kept"}}
	if d, err := Parse(ctx, item(t, withNote, "x"), &fakeParts{}, nil); err != nil || len(d.Chapters) != 1 {
		t.Errorf("an item with a note and a file that fails: %v", err)
	}
	good := item(t, one("pdf"), "one\n")
	for name, data := range map[string][]byte{
		"no magic":      []byte("hello"),
		"no header end": []byte(zotero.BookMagic + "{"),
		"bad JSON":      []byte(zotero.BookMagic + "{\n"),
		"cut short":     good[:len(good)-2],
	} {
		if _, err := Parse(ctx, data, &fakeParts{}, nil); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: %v, want ErrDamaged", name, err)
		}
	}
}

// TestScannedAttachments: the scanned pages of every attachment are the
// item's, numbered as its pages; OCR's text of them goes back to the
// attachment that holds them, and their drawing to it too.
func TestScannedAttachments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := header{Title: "Scans", Attachments: []zotero.BookAttachment{
		{Key: "A", Type: "pdf", Name: "a.pdf"}, {Key: "B", Type: "bad", Name: "b.pdf"}, {Key: "C", Type: "pdf", Name: "c.pdf"},
	}}
	data := item(t, h, "first text\nSCAN\n", "unread", "third\nSCAN\nSCAN\n")
	d, err := Parse(ctx, data, &fakeParts{}, map[int]string{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Scanned, []int{2, 4, 5}) || d.PageCount != 5 {
		t.Fatalf("scanned %v of %d pages, want [2 4 5] of 5", d.Scanned, d.PageCount)
	}
	f := &fakeParts{}
	var got []int
	if err := RenderPages(ctx, data, f, d.Scanned, 300, func(img doc.PageImage) error {
		got = append(got, img.Page)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int{2, 4, 5}) || !slices.Equal(f.drawn, []string{"first text:2", "third:2", "third:3"}) {
		t.Errorf("drew %v as %v, want the item's pages 2, 4, 5 drawn by their attachments", got, f.drawn)
	}
	d, err = Parse(ctx, data, &fakeParts{}, map[int]string{2: "herons on the breakwater", 5: "gulls"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Scanned, []int{4}) {
		t.Errorf("after OCR read pages 2 and 5, scanned %v, want [4]", d.Scanned)
	}
	var text []string
	for _, c := range d.Chapters {
		for _, b := range c.Sections[0].Blocks {
			text = append(text, fmt.Sprintf("%d:%s", b.Page, b.Text))
		}
	}
	if got := strings.Join(text, " "); got != "1:first text 2:herons on the breakwater 3:third 5:gulls" {
		t.Errorf("text by page: %s", got)
	}
	if err := RenderPages(ctx, data, f, []int{6}, 300, func(doc.PageImage) error { return nil }); err == nil {
		t.Error("drawing a page the item does not have succeeded")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(item(f, header{Title: "T", Attachments: []zotero.BookAttachment{{Key: "A", Type: "pdf"}},
		Annotations: []zotero.BookAnnotation{{Attachment: "A", Kind: "highlight", Text: "x", PageIndex: 0}}}, "one\ntwo\n"))
	f.Add([]byte(zotero.BookMagic + `{"attachments":[{"key":"A","type":"pdf","size":-1}]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(context.Background(), data, &fakeParts{}, map[int]string{2: "read"})
		if err != nil {
			return
		}
		for _, c := range d.Chapters {
			for _, s := range c.Sections {
				for _, b := range s.Blocks {
					if b.Page < 0 || b.Page > d.PageCount {
						t.Fatalf("block on page %d of %d", b.Page, d.PageCount)
					}
				}
			}
		}
	})
}
