package index

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/passage"
	"github.com/grimoire-search/grimoire/library"
)

// classified is what the index holds of a chunk's classification.
type classified struct {
	Index     int
	Role      passage.Role
	Signature passage.Signature
}

// classifiedChunks returns the role and copy signature of each chunk of
// book id, in order; a chunk not classified has role 0.
func classifiedChunks(t *testing.T, w *Writer, id int64) []classified {
	t.Helper()
	rows, err := w.db.QueryContext(context.Background(), `SELECT k.idx, coalesce(k.role, 0), g.signature FROM chunk k LEFT JOIN chunk_signature g ON g.chunk_id = k.id WHERE k.book_id = ? ORDER BY k.idx`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []classified
	for rows.Next() {
		var c classified
		var sig []byte
		if err := rows.Scan(&c.Index, &c.Role, &sig); err != nil {
			t.Fatal(err)
		}
		if sig != nil {
			if c.Signature, err = passage.DecodeSignature(sig); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A guide's cover, its table of contents and a passage of it.
var guideTexts = []string{
	"Cover Image",
	"1 Basics ........ 3 2 Tenets ........ 7 3 Deployments ........ 12",
	"Zero trust moves defenses from static, network-based perimeters to users, assets, and resources, one request at a time.",
}

// TestMigrationClassifiesOlderChunks: the chunks of an index made before
// chunks had roles get the roles and copy signatures a fresh ingest gives
// them, from the next writer, and Check fails until they have.
func TestMigrationClassifiesOlderChunks(t *testing.T) {
	ctx := context.Background()
	fresh := mustOpenWriter(t)
	b := storeChunks(t, fresh, "Zero Trust Guide", guideTexts)
	want := classifiedChunks(t, fresh, b.ID)
	roles := make([]passage.Role, len(want))
	for i, c := range want {
		roles[i] = c.Role
	}
	if !slices.Equal(roles, []passage.Role{passage.Bare, passage.Contents, passage.Content}) {
		t.Fatalf("a fresh ingest gives roles %v", roles)
	}

	before := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "ADD COLUMN role") })
	stmts := []string{
		fmt.Sprintf(`INSERT INTO book(id, hash, slug, title, source_type, status, added_at) VALUES (1, '%s', 'guide', 'Zero Trust Guide', 'text', 'ready', 0)`, b.Hash),
		`INSERT INTO chapter(book_id, idx, title) VALUES (1, 0, 'One')`,
	}
	for i, text := range guideTexts {
		stmts = append(stmts,
			fmt.Sprintf(`INSERT INTO section(book_id, chapter_idx, idx, title, text) VALUES (1, 0, %d, 'Part %d', '%s')`, i, i, text),
			fmt.Sprintf(`INSERT INTO chunk(book_id, idx, chapter_idx, section_idx, heading, text, state) VALUES (1, %d, 0, %d, 'Zero Trust Guide › Part %d', '%s', 'embedded')`, i, i, i, text))
	}
	old := olderIndex(t, filepath.Join(t.TempDir(), "g.db"), before, stmts...)
	for _, c := range classifiedChunks(t, old, 1) {
		if c.Role != 0 || c.Signature != nil {
			t.Fatalf("chunk %d is classified before any writer classified it: %+v", c.Index, c)
		}
	}
	if err := old.checkRoles(ctx); err == nil {
		t.Error("Check passes an index whose chunks are not classified")
	}
	// A search meanwhile sees the roles the chunks will have.
	hits, err := old.HitsOf(ctx, []int64{1, 2, 3}, false)
	if err != nil || len(hits) != len(want) {
		t.Fatalf("hits: %d, %v", len(hits), err)
	}
	for i, h := range hits {
		if h.Role != want[i].Role || !slices.Equal(h.Signature, want[i].Signature) {
			t.Errorf("unclassified hit %d: role %v, %d shingles; want %v, %d", i, h.Role, len(h.Signature), want[i].Role, len(want[i].Signature))
		}
	}

	n, err := old.Classify(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Classify: %d books, %v; want 1", n, err)
	}
	got := classifiedChunks(t, old, 1)
	if len(got) != len(want) {
		t.Fatalf("%d chunks, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Role != want[i].Role || !slices.Equal(got[i].Signature, want[i].Signature) {
			t.Errorf("chunk %d: role %v, %d shingles; a fresh ingest gives %v, %d", i, got[i].Role, len(got[i].Signature), want[i].Role, len(want[i].Signature))
		}
	}
	if err := old.checkRoles(ctx); err != nil {
		t.Error(err)
	}
	if n, err := old.Classify(ctx); err != nil || n != 0 {
		t.Errorf("Classify again: %d books, %v; want none", n, err)
	}
}

// TestCatalogReclassifies: a passage that names its book's authors says
// nothing of its own once a catalogue gives the book those authors.
func TestCatalogReclassifies(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	b := storeChunks(t, w, "Alice", []string{"by Lewis Carroll", "Alice was beginning to get very tired of sitting by her sister on the bank."})
	if got := classifiedChunks(t, w, b.ID)[0].Role; got != passage.Content {
		t.Fatalf("byline of a book without authors: %v, want %v", got, passage.Content)
	}
	if err := w.Update(ctx, func(tx *Tx) error {
		_, err := tx.SetCatalog(ctx, b.Hash, library.CatalogEntry{Authors: []string{"Lewis Carroll"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := classifiedChunks(t, w, b.ID)[0].Role; got != passage.Bare {
		t.Errorf("byline once the catalogue names its author: %v, want %v", got, passage.Bare)
	}
}
