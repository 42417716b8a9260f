package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
	"github.com/grimoire-search/grimoire/library"
)

// storeLaidOut stores a laid out book in w as the book of a file named
// name, and reads each of its sections back: it fails the test where a
// text differs from the one layout made. It returns the bytes of section
// text the book has and those its section rows hold.
func storeLaidOut(t *testing.T, w *index.Writer, name string, b book) (total, held int) {
	t.Helper()
	ctx := context.Background()
	h := library.SumBytes([]byte(name))
	err := w.Update(ctx, func(tx *index.Tx) error {
		_, err := tx.PutFile(ctx, library.File{Path: "/lib/" + name, Root: "/lib", Hash: h, SourceType: doc.Text}, library.Hash{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	todo, err := w.BooksToIngest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	for _, bk := range todo {
		if bk.Hash == h {
			id = bk.ID
		}
	}
	if err := w.StoreParsed(ctx, id, index.BookMeta{Title: name, SourceType: doc.Text}, b.chapters, b.chunks); err != nil {
		t.Fatal(err)
	}
	for _, ch := range b.chapters {
		for _, s := range ch.Sections {
			got, _, err := w.Section(ctx, id, ch.Index, s.Index)
			if err != nil {
				t.Fatalf("%s: section %d.%d: %v", name, ch.Index, s.Index, err)
			}
			if got.Text != s.Text {
				t.Errorf("%s: section %d.%d reads back as %q, laid out as %q", name, ch.Index, s.Index, got.Text, s.Text)
			}
			total += len(s.Text)
		}
	}
	db, err := sql.Open("sqlite", "file:"+w.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(`SELECT coalesce(sum(length(CAST(text AS BLOB))), 0) FROM section WHERE book_id = ?`, id).Scan(&held); err != nil {
		t.Fatal(err)
	}
	return total, held
}

// TestSectionsReadBackAsLaidOut: the index gives back each section's text
// as layout made it, byte for byte, whether its chunks hold it or its row;
// chunks hold it wherever their cuts kept the text between their pieces.
func TestSectionsReadBackAsLaidOut(t *testing.T) {
	small := Chunking{ChunkTokens: 64, OverlapTokens: 16, SectionSplitTokens: 300}
	para := func(s string) doc.Block { return doc.Block{Text: s} }
	var paras []doc.Block
	for i := range 40 {
		paras = append(paras, para(words(30+i, fmt.Sprintf("p%d-", i))))
	}
	var code strings.Builder
	for i := range 200 {
		fmt.Fprintf(&code, "line %d := f(%d)\n", i, i)
	}
	tests := []struct {
		name string
		d    *doc.Document
		// held: whether some section keeps its text in its row.
		held bool
	}{
		{"sentences overlapping", &doc.Document{Chapters: []doc.Chapter{{Title: "C", Sections: []doc.Section{{Title: "S", Blocks: []doc.Block{para(words(500, "w"))}}}}}}, false},
		{"paragraphs with gaps", &doc.Document{Chapters: []doc.Chapter{{Title: "C", Sections: []doc.Section{{Title: "S", Blocks: paras[:8]}}}}}, false},
		{"a long chapter split", &doc.Document{Chapters: []doc.Chapter{{Title: "C", Sections: []doc.Section{{Blocks: paras}}}}}, false},
		{"code cut at lines", &doc.Document{Chapters: []doc.Chapter{{Title: "C", Sections: []doc.Section{{Title: "S", Blocks: []doc.Block{{Kind: doc.Code, Text: code.String()}}}}}}}, false},
		{"one short section", &doc.Document{Chapters: []doc.Chapter{{Title: "C", Sections: []doc.Section{{Blocks: []doc.Block{para("Call me Ishmael.")}}}}}}, false},
		{"not ASCII", &doc.Document{Chapters: []doc.Chapter{{Title: "ים", Sections: []doc.Section{{Blocks: []doc.Block{
			para(numbered(60, "אלכס %d מגיעה לנמל. היא שמחה מאוד.")),
			para(numbered(60, "Ünïcödé 🐋 %d whales.")),
		}}}}}}, false},
		// Chunks join sentences with a space, which these texts lack
		// or have another of.
		{"sentences without spaces between", &doc.Document{Chapters: []doc.Chapter{{Title: "猫", Sections: []doc.Section{{Blocks: []doc.Block{
			para(strings.Repeat("吾輩は猫である。名前はまだ無い。", 30)),
		}}}}}}, true},
		{"sentences on lines of their own", &doc.Document{Chapters: []doc.Chapter{{Title: "C", Sections: []doc.Section{{Blocks: []doc.Block{
			para(strings.ReplaceAll(words(400, "x"), ". ", ".\n")),
		}}}}}}, true},
	}
	w, err := index.OpenWriter(context.Background(), filepath.Join(t.TempDir(), "g.db"), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := layout(tc.d, "Book", small)
			if _, held := storeLaidOut(t, w, tc.name, b); (held > 0) != tc.held {
				t.Errorf("section rows hold %d bytes of text; want some: %v", held, tc.held)
			}
		})
	}
	if err := w.Check(context.Background()); err != nil {
		t.Error(err)
	}
}

// numbered is n sentences of format, each with its number, a space
// between: no chunk's text is found twice in them.
func numbered(n int, format string) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf(format, i)
	}
	return strings.Join(s, " ")
}

// TestCorpusSectionsReadBack: real books, laid out as ingest does, give
// their sections' text back, most of it from their chunks alone.
func TestCorpusSectionsReadBack(t *testing.T) {
	if testing.Short() {
		t.Skip("parses and stores corpus books")
	}
	books := [][]string{
		{"books", "text", "pg84.txt"},
		{"books", "epub", "pg1661.epub"},
		{"books", "epub", "israelsailing.epub"},
		{"books", "markdown", "the-art-of-command-line", "README-ja.md"},
	}
	w, err := index.OpenWriter(context.Background(), filepath.Join(t.TempDir(), "g.db"), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ps := NewParsers(nil)
	defer ps.Close()
	total, held := 0, 0
	for _, p := range books {
		name := p[len(p)-1]
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(testcorpus.Path(t, p...))
			if err != nil {
				t.Fatal(err)
			}
			d, err := ps.Parse(context.Background(), Formats().TypeOf(name), data, nil)
			if err != nil {
				t.Fatal(err)
			}
			n, h := storeLaidOut(t, w, name, layout(d, name, DefaultChunking()))
			t.Logf("%s: %d bytes of section text, %d held in section rows", name, n, h)
			total, held = total+n, held+h
		})
	}
	// The Hebrew book's paragraphs have a sentence a line.
	if held*10 > total {
		t.Errorf("section rows hold %d of %d bytes of text", held, total)
	}
}
