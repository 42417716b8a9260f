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

// TestClassifySurvivesKill9 kills `grimoire sync` with SIGKILL at moments
// spread over its classifying of passages an older grimoire stored
// without roles or copy signatures, then lets it finish: every chunk must
// have the role and signature a clean sync gives it, and Check must pass.
// Each kill leaves whole books classified, or none.
func TestClassifySurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real processes; slow")
	}
	lib := shelfLibrary(t, 48)
	ok(t, lib, "sync")
	db := filepath.Join(lib, ".grimoire", "grimoire.db")
	want := passageClasses(t, db)
	total := strings.Count(want, "\n")

	// What an index made before chunks had roles holds.
	execSQL(t, db, `UPDATE chunk SET role = NULL`)
	execSQL(t, db, `DELETE FROM chunk_signature`)
	if n := unclassified(t, db); n != total {
		t.Fatalf("%d of %d chunks unclassified after clearing them", n, total)
	}

	trial := copyTree(t, lib)
	begin := time.Now()
	ok(t, trial, "sync")
	took := time.Since(begin)
	if got := passageClasses(t, filepath.Join(trial, ".grimoire", "grimoire.db")); got != want {
		t.Fatal("an uninterrupted sync classifies the chunks otherwise than a fresh ingest")
	}
	t.Logf("an uninterrupted sync classifies %d chunks in %v", total, took.Round(time.Millisecond))

	midway := 0
	for i := 1; i <= 9; i++ {
		left := unclassified(t, db)
		if left == 0 {
			break
		}
		p := start(t, lib, nil, "sync")
		time.Sleep(took * time.Duration(i) / 10)
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		p.done <- nil
		after := unclassified(t, db)
		if after > 0 && after < left {
			midway++
		}
		t.Logf("kill %d: %d chunks unclassified before, %d after", i, left, after)
		if n := halfClassified(t, db); n > 0 {
			t.Errorf("kill %d left %d books with some chunks classified and some not", i, n)
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
