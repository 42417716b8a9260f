package zotero

import (
	"context"
	"encoding/json"
	"errors"
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

// pages parses "pdf" attachments as one page per line, labelled as the
// line's first word says when it is "label:X"; "bad" ones fail.
func pages(_ context.Context, typ string, data []byte) (*doc.Document, error) {
	if typ == "bad" {
		return nil, errors.New("cannot read it")
	}
	d := &doc.Document{Title: "From the file"}
	var sec doc.Section
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l, rest, ok := strings.Cut(line, " "); ok && strings.HasPrefix(l, "label:") {
			for len(d.PageLabels) < i {
				d.PageLabels = append(d.PageLabels, "")
			}
			d.PageLabels = append(d.PageLabels, strings.TrimPrefix(l, "label:"))
			line = rest
		}
		sec.Blocks = append(sec.Blocks, doc.Block{Text: line, Page: i + 1})
		d.PageCount++
	}
	d.Chapters = []doc.Chapter{{Title: "Body", Sections: []doc.Section{sec}}}
	return d, nil
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
			{Attachment: "A", Kind: "image"},
		},
	}
	d, err := Parse(context.Background(), item(t, h, "label:iii one\nlabel:iv two\n", "s one\ns two\n"), pages)
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
	if len(notes) != 3 {
		t.Fatalf("notes chapter: %+v", notes)
	}
	if notes[0].Title != "Your highlight, p. S2" || notes[0].Blocks[0].Kind != doc.Quote || notes[0].Blocks[0].Page != 4 || notes[0].Blocks[1].Text != "Your comment: mine" {
		t.Errorf("highlight: %+v", notes[0])
	}
	if notes[1].Title != "Your note, p. iv" || notes[1].Blocks[0].Page != 0 {
		t.Errorf("a note on a page the file does not have: %+v", notes[1])
	}
	if notes[2].Title != "Your note: Summary" || len(notes[2].Blocks) != 2 {
		t.Errorf("child note: %+v", notes[2])
	}
}

func TestParseFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	one := func(typ string) header {
		return header{Title: "T", Attachments: []zotero.BookAttachment{{Key: "A", Type: typ, Name: "a.pdf"}}}
	}
	if _, err := Parse(ctx, item(t, one("bad"), "x"), pages); err == nil || !strings.Contains(err.Error(), "a.pdf: cannot read it") {
		t.Errorf("an item whose only file fails: %v", err)
	}
	withNote := one("bad")
	withNote.Notes = []zotero.BookNote{{Text: "kept"}}
	if d, err := Parse(ctx, item(t, withNote, "x"), pages); err != nil || len(d.Chapters) != 1 {
		t.Errorf("an item with a note and a file that fails: %v", err)
	}
	good := item(t, one("pdf"), "one\n")
	for name, data := range map[string][]byte{
		"no magic":      []byte("hello"),
		"no header end": []byte(zotero.BookMagic + "{"),
		"bad JSON":      []byte(zotero.BookMagic + "{\n"),
		"cut short":     good[:len(good)-2],
	} {
		if _, err := Parse(ctx, data, pages); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: %v, want ErrDamaged", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(item(f, header{Title: "T", Attachments: []zotero.BookAttachment{{Key: "A", Type: "pdf"}},
		Annotations: []zotero.BookAnnotation{{Attachment: "A", Kind: "highlight", Text: "x", PageIndex: 0}}}, "one\ntwo\n"))
	f.Add([]byte(zotero.BookMagic + `{"attachments":[{"key":"A","type":"pdf","size":-1}]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(context.Background(), data, pages)
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
