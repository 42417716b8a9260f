package index

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/vec8"
)

// TestMigrationRetitlesSplitSections checks that sections cut out of a long
// chapter by an older grimoire lose their "Section N — " number, in the
// outline and in their chunks' heading paths, and that nothing else does.
func TestMigrationRetitlesSplitSections(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	w := olderIndex(t, path, 9,
		`INSERT INTO book(id, hash, slug, title, source_type, status, added_at) VALUES (1, 'h', 'moby', 'Moby', 'epub', 'ready', 0)`,
		`INSERT INTO chapter(book_id, idx, title) VALUES (1, 0, 'Loomings')`,
		`INSERT INTO section(book_id, chapter_idx, idx, title, synthesized, text) VALUES
			(1, 0, 0, 'Section 1 — Call me Ishmael. Some years ago…', 1, ''),
			(1, 0, 1, 'Section 2 — “Whenever I find myself”…', 1, ''),
			(1, 0, 2, 'Section 3. Of whales', 0, '')`,
		`INSERT INTO chunk(book_id, idx, chapter_idx, section_idx, heading, text) VALUES
			(1, 0, 0, 0, 'Moby › Loomings › Section 1 — Call me Ishmael. Some years ago…', 'a'),
			(1, 1, 0, 1, 'Moby › Loomings › Section 2 — “Whenever I find myself”…', 'b'),
			(1, 2, 0, 2, 'Moby › Loomings › Section 3. Of whales', 'c')`,
	)
	chapters, err := w.Outline(ctx, 1)
	if err != nil || len(chapters) != 1 {
		t.Fatalf("outline: %+v, %v", chapters, err)
	}
	wantTitles := []string{"Call me Ishmael. Some years ago…", "“Whenever I find myself”…", "Section 3. Of whales"}
	for i, s := range chapters[0].Sections {
		if s.Title != wantTitles[i] {
			t.Errorf("section %d: %q, want %q", i, s.Title, wantTitles[i])
		}
	}
	chunks, err := w.ChunkRange(ctx, 1, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range chunks {
		if want := "Moby › Loomings › " + wantTitles[i]; k.Heading != want {
			t.Errorf("chunk %d: heading %q, want %q", i, k.Heading, want)
		}
	}
	// The full-text index follows the heading: the number is gone from it.
	var n int
	if err := w.db.QueryRowContext(ctx, `SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH 'heading:"section"'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d chunks have \"section\" in their heading, want 1 (%v)", n, err)
	}
}

// olderIndex makes an index at path as an older grimoire left it: the
// first n migrations applied, then rows (SQL statements) stored, at schema
// version n; and opens it with a writer, which upgrades it.
func olderIndex(t *testing.T, path string, n int, rows ...string) *Writer {
	t.Helper()
	olderIndexDB(t, path, n, rows...).Close()
	w, err := OpenWriter(context.Background(), path, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// olderIndexDB makes the index olderIndex does, and returns it open, not
// upgraded.
func olderIndexDB(t *testing.T, path string, n int, rows ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := runMigration(context.Background(), db, i+1); err != nil {
			t.Fatalf("migration %d: %v", i+1, err)
		}
	}
	for _, q := range append(rows, fmt.Sprintf(`PRAGMA user_version = %d`, n)) {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db
}

// TestMigrationIndexesBooksOnce: in an index made when a trigger put each
// chunk into FTS5, the chunks stored before stay searchable, and a book
// stored after the upgrade goes into FTS5 once, by the writer alone.
func TestMigrationIndexesBooksOnce(t *testing.T) {
	ctx := context.Background()
	before := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "DROP TRIGGER IF EXISTS chunk_fts_insert") })
	w := olderIndex(t, filepath.Join(t.TempDir(), "g.db"), before,
		`INSERT INTO book(id, hash, slug, title, source_type, status, added_at) VALUES (1, 'h', 'moby', 'Moby', 'text', 'ready', 0)`,
		`INSERT INTO chunk(book_id, idx, chapter_idx, section_idx, heading, text, state) VALUES
			(1, 0, 0, 0, 'Moby › Loomings', 'Call me Ishmael', 'embedded')`,
	)
	storeChunks(t, w, "Capybaras", []string{"the capybara walks", "the capybara swims"})
	if _, err := w.db.ExecContext(ctx, `INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Fatalf("FTS5 disagrees with the chunks: %v", err)
	}
	for word, want := range map[string]int{"ishmael": 1, "capybara": 2} {
		var n int
		if err := w.db.QueryRowContext(ctx, `SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH ?`, word).Scan(&n); err != nil || n != want {
			t.Errorf("%s: in %d chunks (%v), want %d", word, n, err, want)
		}
	}
}

// TestMigrationsAllOrNone: an upgrade that fails part way leaves the index
// as it was, so that no reader ever meets a schema half upgraded.
func TestMigrationsAllOrNone(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	postings := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "CREATE TABLE fts_posting") })
	// The index two migrations before the postings', with a table in the
	// way of theirs: the migration between would succeed on its own.
	for _, m := range migrations[:postings-1] {
		if _, err := db.ExecContext(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{`CREATE TABLE fts_posting (x)`, fmt.Sprintf(`PRAGMA user_version = %d`, postings-1)} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if w, err := OpenWriter(ctx, path, "test"); err == nil {
		w.Close()
		t.Fatal("an upgrade through a table in the way succeeded")
	}
	if v, err := userVersion(ctx, db); err != nil || v != postings-1 {
		t.Errorf("after a failed upgrade the index is at version %d (%v), want %d as it was", v, err, postings-1)
	}
}

// TestMigrationQuantizesVectors: the float32 vectors an older grimoire
// stored, in embedding and in embedding_next, come out of the upgrade as
// quantizing them gives, batch after batch, and keep their rows, packed
// in a quarter of the pages; a blob of no vector of the model's is left
// for Check to tell of.
func TestMigrationQuantizesVectors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		stamped bool
	}{{"stamped", true}, {"without stamps", false}} {
		t.Run(tc.name, func(t *testing.T) {
			const chunks = requantizeBatch + 7
			rng := rand.New(rand.NewSource(1))
			vector := func(dim int) []float32 {
				v := make([]float32, dim)
				for i := range v {
					v[i] = float32(rng.NormFloat64())
				}
				return v
			}
			rows := []string{`INSERT INTO book(id, hash, slug, title, source_type, status, added_at) VALUES (1, 'h', 'moby', 'Moby', 'text', 'parsed', 0)`}
			if tc.stamped {
				rows = append(rows,
					`INSERT INTO meta(key, value) VALUES ('embedding_model', '{"provider":"test","model":"a","dim":512}')`,
					`INSERT INTO meta(key, value) VALUES ('embedding_next', '{"provider":"test","model":"b","dim":4}')`)
			}
			current, next := map[int64][]float32{}, map[int64][]float32{}
			var chunkRows, vecRows, nextRows []string
			for id := int64(1); id <= chunks+1; id++ {
				chunkRows = append(chunkRows, fmt.Sprintf(`(%d, 1, %d, 0, 0, 'h', 't', 'embedded')`, id, id))
				if id > chunks {
					// Half a float too long: no vector, before or after.
					vecRows = append(vecRows, fmt.Sprintf(`(%d, %d, X'0102')`, id, id))
					continue
				}
				current[id] = vector(512)
				// Ids not in the chunks' order, as after a re-embedding.
				vecRows = append(vecRows, fmt.Sprintf(`(%d, %d, X'%x')`, chunks+1-id, id, float32Blob(current[id])))
				if id%3 == 0 {
					next[id] = vector(4)
					nextRows = append(nextRows, fmt.Sprintf(`(%d, X'%x')`, id, float32Blob(next[id])))
				}
			}
			rows = append(rows,
				`INSERT INTO chunk(id, book_id, idx, chapter_idx, section_idx, heading, text, state) VALUES `+strings.Join(chunkRows, ", "),
				`INSERT INTO chunk_fts(chunk_fts) VALUES ('rebuild')`,
				`INSERT INTO embedding(id, chunk_id, vec) VALUES `+strings.Join(vecRows, ", "),
				`INSERT INTO embedding_next(chunk_id, vec) VALUES `+strings.Join(nextRows, ", "))
			w := olderIndex(t, filepath.Join(t.TempDir(), "g.db"), 20, rows...)

			for table, want := range map[string]map[int64][]float32{"embedding": current, "embedding_next": next} {
				got := map[int64][]byte{}
				err := readAll(ctx, w.db, `SELECT chunk_id, vec FROM `+table, func(r *sql.Rows) error {
					var id int64
					var vec []byte
					err := r.Scan(&id, &vec)
					got[id] = vec
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				for id, v := range want {
					if w := vec8.Append(nil, v); !bytes.Equal(got[id], w) {
						t.Fatalf("%s, chunk %d: % x, want % x", table, id, got[id], w)
					}
				}
				if table == "embedding" && (len(got) != len(want)+1 || !bytes.Equal(got[chunks+1], []byte{1, 2})) {
					t.Errorf("embedding: %d rows, the odd one % x", len(got), got[chunks+1])
				}
			}
			var moved int
			if err := w.db.QueryRowContext(ctx, `SELECT count(*) FROM embedding WHERE id != ? - chunk_id`, chunks+1).Scan(&moved); err != nil || moved != 1 {
				t.Errorf("%d vectors changed rows (%v), want only the odd one apart", moved, err)
			}
			// Float32s took a page each.
			var pages int
			if err := w.db.QueryRowContext(ctx, `SELECT count(*) FROM dbstat WHERE name = 'embedding'`).Scan(&pages); err != nil || pages > chunks/4 {
				t.Errorf("the vectors take %d pages (%v), want a quarter of %d", pages, err, chunks)
			}
			err := w.Check(ctx)
			if tc.stamped && (err == nil || !strings.Contains(err.Error(), "embedding: 1 not 516 bytes long")) {
				t.Errorf("Check: %v, want the odd vector told of", err)
			}
			if !tc.stamped && err != nil {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

// float32Blob is a vector as grimoires before schema 22 stored it.
func float32Blob(v []float32) []byte {
	var b []byte
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}
