package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMigrationSurvivesKill9 kills a process that upgrades an index (its
// vectors quantized, its chunks measured) at moments spread over the
// upgrade: each time, the index is
// at its old version or its new one, never between, and the upgrade that
// finally completes leaves what an upgrade never interrupted leaves.
func TestMigrationSurvivesKill9(t *testing.T) {
	if path := os.Getenv("GRIMOIRE_TEST_MIGRATE"); path != "" {
		w, err := OpenWriter(context.Background(), path, "test")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w.Close()
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("builds an index of 4,800 chunks")
	}
	before := slices.Index(migrations, sectionsInChunks)
	dir := t.TempDir()
	old := filepath.Join(dir, "old.db")
	olderWithVectors(t, old, before, 24, 200)

	clean := filepath.Join(dir, "clean.db")
	copyFile(t, old, clean)
	cw, err := OpenWriter(context.Background(), clean, "test")
	if err != nil {
		t.Fatal(err)
	}
	want := indexDump(t, &cw.DB)
	// The upgrade quantizes and measures; the writer lays out the
	// sections afterwards, book by book.
	var moved, quantized, measured int
	if err := cw.db.QueryRow(`SELECT (SELECT count(*) FROM section WHERE from_chunks = 1),
	(SELECT count(*) FROM embedding WHERE length(vec) = 260), (SELECT count(*) FROM chunk WHERE length > 0)`).Scan(&moved, &quantized, &measured); err != nil {
		t.Fatal(err)
	}
	if moved != 0 || quantized != 24*200 || measured != 24*200 {
		t.Fatalf("a clean upgrade moved %d sections, quantized %d vectors, measured %d chunks", moved, quantized, measured)
	}
	cw.Close()

	killed := filepath.Join(dir, "killed.db")
	copyFile(t, old, killed)
	upgrade := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMigrationSurvivesKill9$")
		cmd.Env = append(os.Environ(), "GRIMOIRE_TEST_MIGRATE="+killed)
		return cmd
	}
	start := time.Now()
	if err := upgrade().Run(); err != nil {
		t.Fatalf("an upgrade of a copy: %v", err)
	}
	took := time.Since(start)
	copyFile(t, old, killed)
	for _, f := range []string{"-wal", "-shm"} {
		os.Remove(killed + f)
	}
	kills := 0
	for i := 1; i <= 8; i++ {
		cmd := upgrade()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(took * time.Duration(i) / 10)
		cmd.Process.Kill()
		cmd.Wait()
		v := versionOf(t, killed)
		if v == len(migrations) {
			break
		}
		if v != before {
			t.Fatalf("killed upgrade left version %d, want %d or %d", v, before, len(migrations))
		}
		kills++
	}
	w, err := OpenWriter(context.Background(), killed, "test")
	if err != nil {
		t.Fatalf("after %d kills: %v", kills, err)
	}
	defer w.Close()
	if got := indexDump(t, &w.DB); got != want {
		t.Errorf("after %d kills the upgraded index differs from an upgrade never interrupted", kills)
	}
	t.Logf("upgrade of %v, killed %d times", took.Round(time.Millisecond), kills)
}

// olderWithVectors makes an index at version n of books books of chunks
// chunks each: sections their chunks give back, float32 vectors of 256
// dimensions, as grimoires of that version stored them.
func olderWithVectors(t *testing.T, path string, n, books, chunks int) {
	t.Helper()
	db := olderIndexDB(t, path, n,
		`INSERT INTO meta(key, value) VALUES ('embedding_model', '{"provider":"test","model":"m","dim":256}')`)
	defer db.Close()
	rng := rand.New(rand.NewSource(7))
	words := strings.Fields("whale ship captain harpoon sea voyage island storm sailor rope deck mast night dawn white")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	id := 0
	for b := 1; b <= books; b++ {
		exec := func(q string, args ...any) {
			if _, err := tx.Exec(q, args...); err != nil {
				t.Fatal(err)
			}
		}
		exec(`INSERT INTO book(id, hash, slug, title, source_type, status, added_at) VALUES (?, ?, ?, ?, 'text', 'ready', 0)`,
			b, fmt.Sprintf("h%d", b), fmt.Sprintf("book-%d", b), fmt.Sprintf("Book %d", b))
		exec(`INSERT INTO chapter(book_id, idx, title) VALUES (?, 0, 'One')`, b)
		var texts []string
		for range chunks {
			ws := make([]string, 60)
			for i := range ws {
				ws[i] = words[rng.Intn(len(words))]
			}
			texts = append(texts, strings.Join(ws, " "))
		}
		// Each chunk after the first repeats the last words of the one
		// before, as chunking overlaps them.
		section := texts[0]
		for k := 1; k < len(texts); k++ {
			tail := texts[k-1][strings.LastIndexByte(texts[k-1][:len(texts[k-1])-20], ' ')+1:]
			texts[k] = tail + " " + texts[k]
			section += texts[k][len(tail):]
		}
		exec(`INSERT INTO section(book_id, chapter_idx, idx, title, first_chunk, chunk_count, text) VALUES (?, 0, 0, 'One', 0, ?, ?)`, b, len(texts), section)
		for k, text := range texts {
			id++
			exec(`INSERT INTO chunk(id, book_id, idx, chapter_idx, section_idx, heading, text, state, role) VALUES (?, ?, ?, 0, 0, 'Book › One', ?, 'embedded', 1)`, id, b, k, text)
			vec := make([]byte, 0, 4*256)
			for range 256 {
				vec = binary.LittleEndian.AppendUint32(vec, math.Float32bits(float32(rng.NormFloat64())))
			}
			exec(`INSERT INTO embedding(chunk_id, vec) VALUES (?, ?)`, id, vec)
		}
	}
	if _, err := tx.Exec(`INSERT INTO chunk_fts(chunk_fts) VALUES ('rebuild')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// indexDump renders what the upgrades write: sections, chunks with their
// lengths and joins, vectors and totals.
func indexDump(t *testing.T, d *DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT book_id, chapter_idx, idx, from_chunks, text FROM section ORDER BY 1, 2, 3`,
		`SELECT id, length, overlap, gap FROM chunk ORDER BY id`,
		`SELECT chunk_id, hex(vec) FROM embedding ORDER BY chunk_id`,
		`SELECT chunks, tokens FROM text_totals`,
	} {
		err := readAll(context.Background(), d.db, q, func(r *sql.Rows) error {
			cols, _ := r.Columns()
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := r.Scan(ptrs...); err != nil {
				return err
			}
			fmt.Fprintln(&b, vals...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, book := range []int64{1, 7} {
		s, _, err := d.Section(context.Background(), book, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, s.Text)
	}
	return b.String()
}

func versionOf(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v, err := userVersion(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
