package index

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/index/fulltext"
	"github.com/grimoire-search/grimoire/library"
)

// TestLengthsMeasuredByMigration: an index made before chunks had lengths
// gets them, and totals that are FTS5's own, so that BM25 scores stay
// what they were.
func TestLengthsMeasuredByMigration(t *testing.T) {
	ctx := context.Background()
	before := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "CREATE TABLE text_totals") })
	w := olderIndex(t, filepath.Join(t.TempDir(), "g.db"), before,
		`INSERT INTO book(id, hash, slug, title, source_type, status, added_at) VALUES (1, '`+library.SumBytes([]byte("moby")).String()+`', 'moby', 'Moby', 'text', 'ready', 0)`,
		`INSERT INTO chunk(book_id, idx, chapter_idx, section_idx, heading, context, text, state) VALUES
			(1, 0, 0, 0, 'Moby › Loomings', '', 'Call me Ishmael; the whale, the white whale', 'embedded'),
			(1, 1, 0, 1, 'Moby › The Carpet-Bag', 'Ishmael sets out', 'a whaling voyage out of New Bedford', 'embedded'),
			(1, 2, 0, 2, 'Moby › The Spouter-Inn', '', 'Crème brûlée, naïve café: 日本語のテキスト', 'pending')`,
		`INSERT INTO chunk_fts(rowid, heading, context, text) SELECT id, heading, context, text FROM chunk`,
	)
	want := map[int64]int{}
	rows, err := w.db.QueryContext(ctx, `SELECT id, heading, context, text FROM chunk`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var h, c, x string
		if err := rows.Scan(&id, &h, &c, &x); err != nil {
			t.Fatal(err)
		}
		want[id] = fulltext.Length(h, c, x)
	}
	rows.Close()
	ids := make([]int64, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	lib, err := w.ReadLibrary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := w.HitsOf(ctx, ids, false)
	if err != nil || len(hits) != 3 {
		t.Fatalf("lengths %v, %v", hits, err)
	}
	for _, h := range hits {
		if n := want[h.ID]; h.Length != n || n == 0 {
			t.Errorf("chunk %d: length %d, want %d", h.ID, h.Length, n)
		}
	}
	chunks, avg := lib.Chunks, lib.AvgLen()
	ftsChunks, ftsAvg := ftsAverages(t, &w.DB)
	if chunks != ftsChunks || avg != ftsAvg {
		t.Errorf("totals: %d chunks of %v tokens on average; FTS5 counts %d of %v", chunks, avg, ftsChunks, ftsAvg)
	}
	if err := w.checkLengths(ctx); err != nil {
		t.Error(err)
	}
}

// TestLengthsFollowTheChunks: the totals follow the chunks as books come
// and go and contexts are written, and stay FTS5's.
func TestLengthsFollowTheChunks(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	a := storeChunks(t, w, "Alpha", []string{"the white whale", "a harpooneer and a bed", "Call me Ishmael"})
	storeChunks(t, w, "Beta", []string{"Crème brûlée, naïve café", "日本語のテキスト and more words here"})
	check := func(when string) {
		t.Helper()
		snap, err := w.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ftsChunks, ftsAvg := ftsAverages(t, &w.DB); snap.Chunks != ftsChunks || snap.AvgLen() != ftsAvg {
			t.Errorf("%s: %d chunks of %v tokens on average; FTS5 counts %d of %v", when, snap.Chunks, snap.AvgLen(), ftsChunks, ftsAvg)
		}
		if err := w.Check(ctx); err != nil {
			t.Errorf("%s: %v", when, err)
		}
	}
	check("after two books")
	var pending int64
	if err := w.db.QueryRowContext(ctx, `SELECT min(id) FROM chunk WHERE book_id = ?`, a.ID).Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if _, err := w.exec(ctx, `UPDATE chunk SET state = 'pending' WHERE id = ?`, pending); err != nil {
		t.Fatal(err)
	}
	if err := w.StoreContext(ctx, pending, "The first chapter, in which Ishmael goes to sea"); err != nil {
		t.Fatal(err)
	}
	check("after a context")
	if _, err := w.DeleteBook(ctx, a.Slug); err != nil {
		t.Fatal(err)
	}
	check("after a delete")
}

// ftsAverages reads FTS5's averages record: its count of rows and their
// average length, all columns together.
func ftsAverages(t *testing.T, d *DB) (int64, float64) {
	t.Helper()
	var rec []byte
	if err := d.db.QueryRow(`SELECT block FROM chunk_fts_data WHERE id = 1`).Scan(&rec); err != nil {
		t.Fatal(err)
	}
	n, rec := fulltext.Varint(rec)
	var tokens uint64
	for len(rec) > 0 {
		var c uint64
		c, rec = fulltext.Varint(rec)
		tokens += c
	}
	if n == 0 {
		return 0, 0
	}
	return int64(n), float64(tokens) / float64(n)
}
