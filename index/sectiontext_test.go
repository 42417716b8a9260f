package index

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/library"
)

// laidSection is a section as a test lays it out: its text and its
// chunks' texts, in order.
type laidSection struct {
	text   string
	chunks []string
}

// layOut turns sections into one chapter's rows for StoreParsed, each
// section's chunks following the one before's.
func layOut(title string, secs []laidSection) ([]library.Chapter, []library.Chunk) {
	ch := library.Chapter{Index: 0, Title: title}
	var chunks []library.Chunk
	for i, s := range secs {
		ch.Sections = append(ch.Sections, library.Section{Index: i, Title: fmt.Sprintf("%s %d", title, i), Text: s.text, FirstChunk: len(chunks), ChunkCount: len(s.chunks)})
		for _, k := range s.chunks {
			chunks = append(chunks, library.Chunk{Index: len(chunks), SectionIndex: i, Heading: title, Text: k})
		}
	}
	return []library.Chapter{ch}, chunks
}

// storeLaidOut stores a book of the given chapters and chunks, and
// returns its id.
func storeLaidOut(t *testing.T, w *Writer, path string, chapters []library.Chapter, chunks []library.Chunk) int64 {
	t.Helper()
	h, _ := putT(t, w, path, path)
	books, err := w.queryBooks(contextBG, `WHERE b.hash = ?`, h)
	if err != nil || len(books) != 1 {
		t.Fatalf("book of %s: %v %v", path, books, err)
	}
	if err := w.StoreParsed(contextBG, books[0].ID, BookMeta{Title: path, SourceType: "text"}, chapters, chunks); err != nil {
		t.Fatal(err)
	}
	return books[0].ID
}

// sectionTexts reads every section of book id back through each reader of
// section text: Section, and SectionsToSummarize while no summary is
// written.
func sectionTexts(t *testing.T, d *DB, id int64, n int) []string {
	t.Helper()
	var out []string
	for i := range n {
		s, _, err := d.Section(contextBG, id, 0, i)
		if err != nil {
			t.Fatalf("section %d: %v", i, err)
		}
		out = append(out, s.Text)
	}
	todo, err := d.SectionsToSummarize(contextBG, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range todo {
		if s.Text != out[s.Index] {
			t.Errorf("section %d: SectionsToSummarize gave %q, Section %q", s.Index, s.Text, out[s.Index])
		}
	}
	return out
}

// sectionCases are sections as ingest lays them out and worse; inChunks
// says whether their text is to be stored in their chunks alone.
var sectionCases = []struct {
	name     string
	secs     []laidSection
	inChunks []bool
}{
	{"one chunk", []laidSection{{"Call me Ishmael.", []string{"Call me Ishmael."}}}, []bool{true}},
	{"overlaps", []laidSection{{
		"One two. Three four. Five six. Seven eight.",
		[]string{"One two. Three four.", "Three four. Five six.", "Five six. Seven eight."},
	}}, []bool{true}},
	{"gaps between blocks and sentences", []laidSection{{
		"First block.\n\nSecond block. Its second sentence.\nA line.",
		[]string{"First block.", "Second block.", "Its second sentence.", "A line."},
	}}, []bool{true}},
	{"overlaps and gaps", []laidSection{{
		"A a a.\n\nB b b. C c c.\n\nD d d.",
		[]string{"A a a.\n\nB b b.", "B b b. C c c.", "D d d."},
	}}, []bool{true}},
	{"empty and near empty", []laidSection{
		{"", nil},
		{"x", []string{"x"}},
		{"held: no chunk", nil},
		{" ", []string{" "}},
	}, []bool{true, true, false, true}},
	{"sections cut out of a long chapter", []laidSection{
		{"Part one, first.\n\nPart one, second.", []string{"Part one, first.", "Part one, second."}},
		{"Part two.\n\nPart two, again.", []string{"Part two.\n\nPart two, again."}},
		{"Part three.", []string{"Part three."}},
	}, []bool{true, true, true}},
	{"not ASCII", []laidSection{
		{"פרק שני\n\nאלכס מגיעה. היא שמחה.", []string{"פרק שני\n\nאלכס מגיעה.", "אלכס מגיעה. היא שמחה."}},
		{"吾輩は猫である。名前はまだ無い。どこで生れたか。", []string{"吾輩は猫である。名前はまだ無い。", "名前はまだ無い。どこで生れたか。"}},
		{"Ünïcödé 🐋 whales 🐋 ends", []string{"Ünïcödé 🐋", "🐋 whales 🐋 ends"}},
	}, []bool{true, true, true}},
	{"bytes that are no UTF-8", []laidSection{{"a\xff b\xfe. c", []string{"a\xff b\xfe.", "b\xfe. c"}}}, []bool{true}},
	{"a refrain repeated", []laidSection{{
		"Nevermore.\n\nQuoth the Raven.\n\nNevermore.\n\nNevermore.",
		[]string{"Nevermore.", "Quoth the Raven.", "Nevermore.", "Nevermore."},
	}}, []bool{true}},
	{"whitespace the chunks lost", []laidSection{{
		"He came.\nHe saw.  He went.",
		[]string{"He came. He saw.", "He saw. He went."},
	}}, []bool{false}},
	{"a chunk of other text", []laidSection{{"The text.", []string{"Another text."}}}, []bool{false}},
	{"text past the last chunk", []laidSection{{"Kept. And more.", []string{"Kept."}}}, []bool{false}},
	{"chunks out of order", []laidSection{{"First. Second.", []string{"Second.", "First."}}}, []bool{false}},
}

// TestSectionTextRoundTrip: every reader gets back the text each section
// was stored with, byte for byte, whether its row or its chunks hold it.
func TestSectionTextRoundTrip(t *testing.T) {
	w := mustOpenWriter(t)
	for i, tc := range sectionCases {
		t.Run(tc.name, func(t *testing.T) {
			chapters, chunks := layOut("Book", tc.secs)
			id := storeLaidOut(t, w, fmt.Sprintf("/lib/%d.txt", i), chapters, chunks)
			got := sectionTexts(t, &w.DB, id, len(tc.secs))
			for j, s := range tc.secs {
				if got[j] != s.text {
					t.Errorf("section %d: %q, want %q", j, got[j], s.text)
				}
				var held string
				var inChunks bool
				if err := w.db.QueryRow(`SELECT text, from_chunks = 1 FROM section WHERE book_id = ? AND idx = ?`, id, j).Scan(&held, &inChunks); err != nil {
					t.Fatal(err)
				}
				if inChunks != tc.inChunks[j] || (inChunks && held != "") || (!inChunks && held != s.text) {
					t.Errorf("section %d: row holds %q (text in its chunks: %v), want in its chunks: %v", j, held, inChunks, tc.inChunks[j])
				}
			}
		})
	}
	if err := w.Check(contextBG); err != nil {
		t.Error(err)
	}
}

// TestChunkServesOneSection: sections whose chunk ranges cross keep
// their own text but for the first, whose joins the chunks hold.
func TestChunkServesOneSection(t *testing.T) {
	w := mustOpenWriter(t)
	chapters := []library.Chapter{{Index: 0, Title: "C", Sections: []library.Section{
		{Index: 0, Title: "A", Text: "One. Two.", FirstChunk: 0, ChunkCount: 2},
		{Index: 1, Title: "B", Text: "Two.", FirstChunk: 1, ChunkCount: 1},
		{Index: 2, Title: "C", Text: "Three.", FirstChunk: 5, ChunkCount: 1},
	}}}
	chunks := []library.Chunk{{Index: 0, Heading: "C", Text: "One."}, {Index: 1, Heading: "C", Text: "Two."}}
	id := storeLaidOut(t, w, "/lib/cross.txt", chapters, chunks)
	got := sectionTexts(t, &w.DB, id, 3)
	if want := []string{"One. Two.", "Two.", "Three."}; !slices.Equal(got, want) {
		t.Errorf("texts %q, want %q", got, want)
	}
	if n := count(t, w, `SELECT count(*) FROM section WHERE from_chunks = 1`); n != 1 {
		t.Errorf("%d sections in their chunks, want 1", n)
	}
	if err := w.Check(contextBG); err != nil {
		t.Error(err)
	}
}

// TestCheckFindsSectionsThatDoNotRebuild: a chunk changed behind the
// writer's back leaves its section without its text, and Check says so.
func TestCheckFindsSectionsThatDoNotRebuild(t *testing.T) {
	for _, tc := range []struct{ name, change string }{
		{"overlap past the text", `UPDATE chunk SET overlap = 1000 WHERE idx = 1`},
		{"overlap of other bytes", `UPDATE chunk SET text = 'Xhree four. Five six.' WHERE idx = 1`},
		{"chunk gone", `DELETE FROM chunk WHERE idx = 2`},
		{"text besides", `UPDATE section SET text = 'stray'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := mustOpenWriter(t)
			chapters, chunks := layOut("Book", sectionCases[1].secs)
			id := storeLaidOut(t, w, "/lib/a.txt", chapters, chunks)
			if _, err := w.db.Exec(tc.change); err != nil {
				t.Fatal(err)
			}
			if err := w.Check(contextBG); err == nil || !strings.Contains(err.Error(), "section 0.0 of book") {
				t.Errorf("Check: %v", err)
			}
			if tc.name != "text besides" {
				if _, _, err := w.Section(contextBG, id, 0, 0); err == nil {
					t.Error("a section that does not rebuild was read")
				}
			}
		})
	}
}

// TestMigrationStoresSectionTextsOnce: an index whose sections hold their
// whole text is upgraded in place; every reader gives the same text, the
// texts the chunks cannot give back stay, and the section table shrinks.
func TestMigrationStoresSectionTextsOnce(t *testing.T) {
	before := slices.Index(migrations, sectionsInChunks)
	var rows []string
	var want []string
	for i, tc := range sectionCases {
		rows = append(rows, fmt.Sprintf(`INSERT INTO book(id, hash, slug, title, source_type, status, added_at) VALUES (%d, 'h%d', 'b%d', 'B', 'text', 'parsed', 0)`, i+1, i, i),
			fmt.Sprintf(`INSERT INTO chapter(book_id, idx, title) VALUES (%d, 0, 'C')`, i+1))
		k := 0
		for j, s := range tc.secs {
			rows = append(rows, fmt.Sprintf(`INSERT INTO section(book_id, chapter_idx, idx, title, first_chunk, chunk_count, text, summary) VALUES (%d, 0, %d, 'S', %d, %d, %s, 'sum')`,
				i+1, j, k, len(s.chunks), sqlString(s.text)))
			for _, c := range s.chunks {
				rows = append(rows, fmt.Sprintf(`INSERT INTO chunk(book_id, idx, chapter_idx, section_idx, heading, text, state) VALUES (%d, %d, 0, %d, 'B › C', %s, 'pending')`,
					i+1, k, j, sqlString(c)))
				k++
			}
			want = append(want, s.text)
		}
	}
	// Ingest puts chunks into FTS5 itself since migration 17.
	rows = append(rows, `INSERT INTO chunk_fts(chunk_fts) VALUES ('rebuild')`)
	path := filepath.Join(t.TempDir(), "g.db")
	held := func(db *sql.DB) int {
		var n int
		if err := db.QueryRow(`SELECT coalesce(sum(length(CAST(text AS BLOB))), 0) FROM section`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	old := olderIndexDB(t, path, before, rows...)
	heldBefore := held(old)
	old.Close()
	w, err := OpenWriter(contextBG, path, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	readAllSections := func(when string) {
		t.Helper()
		var got []string
		for i, tc := range sectionCases {
			got = append(got, sectionTexts(t, &w.DB, int64(i+1), len(tc.secs))...)
			// With a summary written, SectionsToSummarize gives nothing: the
			// texts are read as a rebuild keys the summaries.
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("section %d: %q %s, %q before", i, got[i], when, want[i])
			}
		}
	}
	// The upgrade leaves the sections as they were, for the writer to lay
	// out book by book; they read the same meanwhile.
	readAllSections("after the upgrade")
	if n, err := w.LayOutSections(contextBG); n != len(sectionCases) || err != nil {
		t.Fatalf("LayOutSections: %d books, %v; want %d", n, err, len(sectionCases))
	}
	readAllSections("laid out")
	if n, err := w.LayOutSections(contextBG); n != 0 || err != nil {
		t.Fatalf("LayOutSections again: %d books, %v", n, err)
	}
	var kept int
	if err := w.db.QueryRow(`SELECT count(*) FROM section WHERE from_chunks = 2`).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	wantKept := 0
	for _, tc := range sectionCases {
		for _, in := range tc.inChunks {
			if !in {
				wantKept++
			}
		}
	}
	if kept != wantKept {
		t.Errorf("%d sections keep their text, want %d", kept, wantKept)
	}
	if after := held(w.db); after >= heldBefore {
		t.Errorf("sections hold %d bytes of text after the upgrade, %d before", after, heldBefore)
	}
	if err := w.Check(contextBG); err != nil {
		t.Error(err)
	}
}

// sqlString quotes s as an SQL literal, its bytes as they are.
func sqlString(s string) string {
	return fmt.Sprintf("CAST(X'%x' AS TEXT)", s)
}

// TestRebuildKeepsSummariesOfSectionsInChunks: a rebuild carries a
// section's summary over when the old index held the section's text in
// its chunks, or in its row as an older grimoire did.
func TestRebuildKeepsSummariesOfSectionsInChunks(t *testing.T) {
	secs := sectionCases[3].secs
	secs = append(secs, sectionCases[9].secs...) // one held in its row
	for _, tc := range []struct {
		name  string
		older bool
	}{{"this grimoire's", false}, {"an older grimoire's", true}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.db")
			chapters, chunks := layOut("Book", secs)
			h := library.SumBytes([]byte("/lib/a.txt"))
			if tc.older {
				var rows []string
				rows = append(rows, fmt.Sprintf(`INSERT INTO book(id, hash, slug, title, source_type, status, added_at) VALUES (1, '%s', 'b', 'B', 'text', 'ready', 0)`, h),
					`INSERT INTO chapter(book_id, idx, title) VALUES (1, 0, 'Book')`)
				for _, s := range chapters[0].Sections {
					rows = append(rows, fmt.Sprintf(`INSERT INTO section(book_id, chapter_idx, idx, title, first_chunk, chunk_count, text, summary) VALUES (1, 0, %d, %s, %d, %d, %s, 'summary %d')`,
						s.Index, sqlString(s.Title), s.FirstChunk, s.ChunkCount, sqlString(s.Text), s.Index))
				}
				for _, k := range chunks {
					rows = append(rows, fmt.Sprintf(`INSERT INTO chunk(book_id, idx, chapter_idx, section_idx, heading, text) VALUES (1, %d, 0, %d, 'Book', %s)`, k.Index, k.SectionIndex, sqlString(k.Text)))
				}
				olderIndexDB(t, path, slices.Index(migrations, sectionsInChunks), rows...).Close()
			} else {
				w, err := OpenWriter(contextBG, path, "test")
				if err != nil {
					t.Fatal(err)
				}
				id := storeLaidOut(t, w, "/lib/a.txt", chapters, chunks)
				for i := range secs {
					if err := w.StoreSummary(contextBG, id, 0, i, fmt.Sprintf("summary %d", i)); err != nil {
						t.Fatal(err)
					}
				}
				if n := count(t, w, `SELECT count(*) FROM section WHERE from_chunks = 1`); n != 1 {
					t.Fatalf("%d sections in their chunks, want 1", n)
				}
				w.Close()
			}
			w, err := Rebuild(contextBG, path, "grimoire rebuild")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			id := storeLaidOut(t, w, "/lib/a.txt", chapters, chunks)
			for i := range secs {
				var summary sql.NullString
				if err := w.db.QueryRow(`SELECT summary FROM section WHERE book_id = ? AND idx = ?`, id, i).Scan(&summary); err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf("summary %d", i); summary.String != want {
					t.Errorf("section %d: summary %q, want %q", i, summary.String, want)
				}
			}
			rep, err := w.FinishRebuild(contextBG)
			if err != nil {
				t.Fatal(err)
			}
			if rep.SummariesReused != len(secs) {
				t.Errorf("%d summaries reused, want %d", rep.SummariesReused, len(secs))
			}
		})
	}
}

// FuzzSectionJoins: joins worked out for chunks cut anywhere from a text
// give the text back exactly, and joins of any values never make the
// rebuild panic.
func FuzzSectionJoins(f *testing.F) {
	f.Add("One two. Three four. Five six.", []byte{0, 8, 4, 16, 21, 9}, []byte{0, 3})
	f.Add("a\n\nb c", []byte{0, 1, 3, 1, 5, 1}, []byte{200, 1})
	f.Add("吾輩は猫である", []byte{0, 4, 2, 6}, []byte{})
	f.Fuzz(func(t *testing.T, text string, cuts, overlaps []byte) {
		var chunks []string
		for i := 0; i+1 < len(cuts); i += 2 {
			from := int(cuts[i]) % (len(text) + 1)
			to := min(len(text), from+int(cuts[i+1]))
			chunks = append(chunks, text[from:to])
		}
		if joins, ok := sectionJoins(text, chunks); ok {
			if got, err := joinChunks(chunks, joins); err != nil || got != text {
				t.Fatalf("joins %v give %q (%v), want %q", joins, got, err, text)
			}
		}
		joins := make([]join, len(chunks))
		for i := range joins {
			if i < len(overlaps) {
				joins[i].overlap = int(int8(overlaps[i]))
			}
			if i%2 == 1 {
				joins[i].gap = text[:len(text)/2]
			}
		}
		joinChunks(chunks, joins)
	})
}
