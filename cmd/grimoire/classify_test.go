package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClassifySurvivesKill9 kills `grimoire sync` with SIGKILL at points
// spread over its catching up with what an older grimoire stored: passages
// without roles or copy signatures, sections whose text is in their rows.
// Then it lets it finish: every chunk must have the role and signature,
// and every section the layout, a clean sync gives it, and Check must
// pass. Each kill leaves whole books classified and laid out, or none.
func TestClassifySurvivesKill9(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills real processes; slow")
	}
	lib := shelfLibrary(t, 48)
	ok(t, lib, "sync")
	db := filepath.Join(lib, ".grimoire", "grimoire.db")
	want := passageClasses(t, db)
	total := strings.Count(want, "\n")
	wantLayout := sectionLayout(t, db)

	// What an index made before chunks had roles, and sections their
	// layout, holds.
	execSQL(t, db, `UPDATE chunk SET role = NULL`)
	execSQL(t, db, `DELETE FROM chunk_signature`)
	if n := unclassified(t, db); n != total {
		t.Fatalf("%d of %d chunks unclassified after clearing them", n, total)
	}
	sections := unLayOut(t, db)

	trial := copyTree(t, lib)
	begin := time.Now()
	ok(t, trial, "sync")
	took := time.Since(begin)
	if got := passageClasses(t, filepath.Join(trial, ".grimoire", "grimoire.db")); got != want {
		t.Fatal("an uninterrupted sync classifies the chunks otherwise than a fresh ingest")
	}
	if got := sectionLayout(t, filepath.Join(trial, ".grimoire", "grimoire.db")); got != wantLayout {
		t.Fatal("an uninterrupted sync lays out the sections otherwise than a fresh ingest")
	}
	t.Logf("an uninterrupted sync classifies %d chunks and lays out %d sections in %v", total, sections, took.Round(time.Millisecond))

	midway := 0
	first := unclassified(t, db) + notLaidOut(t, db)
	for i := 1; i <= 9; i++ {
		left := unclassified(t, db) + notLaidOut(t, db)
		if left == 0 {
			break
		}
		p := start(t, lib, nil, "sync")
		killOnProgress(t, p, db, min(left, first*(10-i)/10))
		after := unclassified(t, db) + notLaidOut(t, db)
		if after > 0 && after < left {
			midway++
		}
		t.Logf("kill %d: %d chunks unclassified and sections not laid out before, %d after", i, left, after)
		if n := halfClassified(t, db); n > 0 {
			t.Errorf("kill %d left %d books with some chunks classified and some not", i, n)
		}
		if n := halfLaidOut(t, db); n > 0 {
			t.Errorf("kill %d left %d books with some sections laid out and some not", i, n)
		}
	}
	if midway == 0 {
		t.Fatal("no sync was killed while it classified")
	}
	ok(t, lib, "sync")
	integrity(t, lib)
	if got := passageClasses(t, db); got != want {
		t.Errorf("after %d kills while classifying, roles and signatures differ from a clean sync's:\n got:\n%s\nwant:\n%s", midway, head(got, 20), head(want, 20))
	}
	if got := sectionLayout(t, db); got != wantLayout {
		t.Errorf("after %d kills, the sections' layout differs from a clean sync's:\n got:\n%s\nwant:\n%s", midway, head(got, 20), head(wantLayout, 20))
	}
}

// killOnProgress SIGKILLs p as soon as fewer than below chunks and sections
// are still to catch up with, or lets it be if it ends first. It polls
// often: a kill timed from an earlier run's length missed the short
// window whenever the machine's load changed between the runs.
func killOnProgress(t *testing.T, p *proc, db string, below int) {
	t.Helper()
	conn := openDB(t, db)
	defer conn.Close()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.done:
			p.done <- err
			return
		default:
		}
		var n int
		if err := conn.QueryRow(`SELECT (SELECT count(*) FROM chunk k WHERE k.role IS NULL OR NOT EXISTS (SELECT 1 FROM chunk_signature g WHERE g.chunk_id = k.id))
 + (SELECT count(*) FROM section WHERE from_chunks = 0)`).Scan(&n); err == nil && n < below {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p.done <- nil
}

// sectionLayout lists every section's place, where its text is and the
// text its row holds, and every chunk's join to the text before it.
func sectionLayout(t *testing.T, db string) string {
	t.Helper()
	conn := openDB(t, db)
	defer conn.Close()
	var b strings.Builder
	for _, q := range []string{
		`SELECT b.hash, s.chapter_idx, s.idx, s.from_chunks, hex(s.text) FROM section s JOIN book b ON b.id = s.book_id ORDER BY 1, 2, 3`,
		`SELECT b.hash, k.idx, k.overlap, -1, hex(k.gap) FROM chunk k JOIN book b ON b.id = k.book_id ORDER BY 1, 2`,
	} {
		rows, err := conn.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var hash, text string
			var a, c, d int
			if err := rows.Scan(&hash, &a, &c, &d, &text); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %d %d %d %s\n", hash, a, c, d, text)
		}
		rows.Close()
	}
	return b.String()
}

// unLayOut puts each section's text back in its row, as an older grimoire
// stored it, and returns how many sections held theirs in their chunks.
func unLayOut(t *testing.T, db string) int {
	t.Helper()
	conn := openDB(t, db)
	defer conn.Close()
	type section struct{ book, chapter, idx, first, count int }
	var secs []section
	rows, err := conn.Query(`SELECT book_id, chapter_idx, idx, first_chunk, chunk_count FROM section WHERE from_chunks = 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s section
		if err := rows.Scan(&s.book, &s.chapter, &s.idx, &s.first, &s.count); err != nil {
			t.Fatal(err)
		}
		secs = append(secs, s)
	}
	rows.Close()
	for _, s := range secs {
		var text strings.Builder
		rows, err := conn.Query(`SELECT text, overlap, gap FROM chunk WHERE book_id = ? AND idx >= ? AND idx < ? ORDER BY idx`, s.book, s.first, s.first+s.count)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k, gap string
			var overlap int
			if err := rows.Scan(&k, &overlap, &gap); err != nil {
				t.Fatal(err)
			}
			text.WriteString(gap + k[overlap:])
		}
		rows.Close()
		if _, err := conn.Exec(`UPDATE section SET text = ? WHERE book_id = ? AND chapter_idx = ? AND idx = ?`, text.String(), s.book, s.chapter, s.idx); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{`UPDATE section SET from_chunks = 0`, `UPDATE chunk SET overlap = 0, gap = ''`} {
		if _, err := conn.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return len(secs)
}

func notLaidOut(t *testing.T, db string) int {
	t.Helper()
	conn := openDB(t, db)
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT count(*) FROM section WHERE from_chunks = 0`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// halfLaidOut counts the books some of whose sections are laid out and
// some not: a book is laid out in one transaction.
func halfLaidOut(t *testing.T, db string) int {
	t.Helper()
	conn := openDB(t, db)
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT count(*) FROM (SELECT book_id FROM section GROUP BY book_id
HAVING count(DISTINCT from_chunks = 0) > 1)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// passageClasses lists every chunk's book, place, role and signature.
func passageClasses(t *testing.T, db string) string {
	t.Helper()
	conn := openDB(t, db)
	defer conn.Close()
	rows, err := conn.Query(`SELECT b.hash, k.idx, coalesce(k.role, -1), coalesce(hex(g.signature), 'NULL')
FROM chunk k JOIN book b ON b.id = k.book_id LEFT JOIN chunk_signature g ON g.chunk_id = k.id ORDER BY b.hash, k.idx`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var hash, sig string
		var idx, role int
		if err := rows.Scan(&hash, &idx, &role, &sig); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %d %s\n", hash, idx, role, sig)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func unclassified(t *testing.T, db string) int {
	t.Helper()
	conn := openDB(t, db)
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT count(*) FROM chunk k WHERE k.role IS NULL OR NOT EXISTS (SELECT 1 FROM chunk_signature g WHERE g.chunk_id = k.id)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// halfClassified counts the books some of whose chunks are classified and
// some not: a book is classified in one transaction.
func halfClassified(t *testing.T, db string) int {
	t.Helper()
	conn := openDB(t, db)
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT count(*) FROM (SELECT book_id FROM chunk GROUP BY book_id
HAVING count(DISTINCT role IS NULL) > 1)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func execSQL(t *testing.T, db, stmt string) {
	t.Helper()
	conn := openDB(t, db)
	defer conn.Close()
	if _, err := conn.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}

// openDB opens an index as a writer killed part way left it; the first
// connection replays its write-ahead log.
func openDB(t *testing.T, db string) *sql.DB {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// head is the first n lines of s.
func head(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
