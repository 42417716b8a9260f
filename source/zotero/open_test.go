package zotero

import (
	"bufio"
	"context"
	"database/sql"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/source/zotero/zoterotest"
)

// lockHelperEnv names the data directory that TestLockHelper, run in a
// process of its own, locks.
const lockHelperEnv = "GRIMOIRE_ZOTERO_LOCK_HELPER"

// TestLockHelper is not a test: run by TestOpenLocked as a process of its
// own, it holds the database as a running Zotero does, says so on stdout,
// and lets go when its stdin closes. The lock must be another process's:
// POSIX locks are per process.
func TestLockHelper(t *testing.T) {
	dir := os.Getenv(lockHelperEnv)
	if dir == "" {
		t.Skip("the helper process of TestOpenLocked")
	}
	release := zoterotest.Lock(t, dir)
	defer release()
	os.Stdout.WriteString("locked\n")
	io.Copy(io.Discard, os.Stdin)
}

// TestOpenLocked reads a library whose database another process holds
// as Zotero does: from a copy, without waiting, saying it was locked.
func TestOpenLocked(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no POSIX locks to see")
	}
	dir := t.TempDir()
	zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{
		{Key: "ITEM0001", Type: "book", Fields: map[string]string{"title": "Held"}},
	}})
	if lib := openLib(t, dir, Options{}); lib.Read.Locked {
		t.Fatalf("Locked before any process held the database")
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "locked" {
				ready <- true
				io.Copy(io.Discard, stdout)
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the helper process ended without locking the database")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the helper process did not lock the database within 30 s")
	}

	// The lock is real: SQLite itself cannot read the database now.
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, DB))+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM items`).Scan(&n); err == nil {
		t.Errorf("SQLite read the database while the helper held it")
	}
	db.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	lib, err := Open(ctx, dir, Options{Scratch: t.TempDir()})
	if err != nil {
		t.Fatalf("Open while locked: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Open took %v while the database was locked: it waited", d)
	}
	if !lib.Read.Locked || lib.Read.From != FromDatabase {
		t.Errorf("Read = %+v, want from the database, locked", lib.Read)
	}
	if len(lib.Items) != 1 || lib.Items[0].Title != "Held" {
		t.Errorf("items %+v, want the one", lib.Items)
	}
	if s := lib.Read.String(); !strings.Contains(s, "Zotero running") {
		t.Errorf("Read.String() = %q, want it to say Zotero runs", s)
	}
}

// TestOpenChanging reads the backup when the database changes at every
// copy, and the database when it changes once.
func TestOpenChanging(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{
		{Key: "ITEM0001", Type: "book", Fields: map[string]string{"title": "Backed up"}},
	}})
	zoterotest.Backup(t, dir)
	zoterotest.Rename(t, dir, "ITEM0001", "Current")
	bakTime := time.Date(2026, 12, 1, 9, 0, 0, 0, time.Local)
	if err := os.Chtimes(filepath.Join(dir, Backup), bakTime, bakTime); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		changes int // copies of the database that see it change
		title   string
		from    Source
	}{
		{"always", copyAttempts, "Backed up", FromBackup},
		{"once", 1, "Current", FromDatabase},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changes := 0
			h := hooks{pause: time.Millisecond, copied: func(src string) {
				if filepath.Base(src) != DB || changes >= tc.changes {
					return
				}
				changes++
				when := time.Now().Add(time.Duration(changes) * time.Hour)
				if err := os.Chtimes(src, when, when); err != nil {
					t.Error(err)
				}
			}}
			lib, err := open(context.Background(), dir, Options{Scratch: t.TempDir()}, h)
			if err != nil {
				t.Fatal(err)
			}
			if lib.Read.From != tc.from || len(lib.Items) != 1 || lib.Items[0].Title != tc.title {
				t.Fatalf("read %+v with %+v, want %v and title %q", lib.Read, lib.Items, tc.from, tc.title)
			}
			if tc.from == FromBackup {
				if want := "zotero.sqlite kept changing while it was copied"; lib.Read.Why != want {
					t.Errorf("Why = %q, want %q", lib.Read.Why, want)
				}
				if !lib.Read.ModTime.Equal(bakTime) {
					t.Errorf("ModTime = %v, want the backup's, %v", lib.Read.ModTime, bakTime)
				}
				if want := "zotero.sqlite.bak of 2026-12-01 09:00 (zotero.sqlite kept changing while it was copied)"; lib.Read.String() != want {
					t.Errorf("String() = %q, want %q", lib.Read.String(), want)
				}
			}
		})
	}
}

// TestOpenDamaged reads a database file of random bytes: an error naming
// the file, or the backup when there is one.
func TestOpenDamaged(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	junk := make([]byte, 16<<10)
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	build := func(t *testing.T, backup bool) string {
		dir := t.TempDir()
		zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{{Key: "ITEM0001", Type: "book", Fields: map[string]string{"title": "Saved"}}}})
		if backup {
			zoterotest.Backup(t, dir)
		}
		return dir
	}
	t.Run("no backup", func(t *testing.T) {
		t.Parallel()
		dir := build(t, false)
		file(t, dir, DB, string(junk))
		_, err := Open(context.Background(), dir, Options{Scratch: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, DB)+":") || !strings.Contains(err.Error(), "not a database") {
			t.Errorf("error %v, want one naming %s and saying it is no database", err, DB)
		}
	})
	t.Run("backup", func(t *testing.T) {
		t.Parallel()
		dir := build(t, true)
		file(t, dir, DB, string(junk))
		lib := openLib(t, dir, Options{})
		if lib.Read.From != FromBackup || !strings.HasPrefix(lib.Read.Why, "zotero.sqlite: does not read as SQLite") || len(lib.Items) != 1 {
			t.Errorf("read %+v, %d items; want the backup's item, saying why", lib.Read, len(lib.Items))
		}
	})
	t.Run("damaged backup too", func(t *testing.T) {
		t.Parallel()
		dir := build(t, false)
		file(t, dir, DB, string(junk))
		file(t, dir, Backup, string(junk[:4096]))
		_, err := Open(context.Background(), dir, Options{Scratch: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, DB)+":") || !strings.Contains(err.Error(), filepath.Join(dir, Backup)+":") {
			t.Errorf("error %v, want one naming both files", err)
		}
	})
	t.Run("not Zotero's", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		db, err := sql.Open("sqlite", filepath.Join(dir, DB))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE items (itemID INTEGER PRIMARY KEY)`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		_, err = Open(context.Background(), dir, Options{Scratch: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "not a Zotero database: no table itemTypes") {
			t.Errorf("error %v, want one naming the table missing", err)
		}
	})
	t.Run("no scratch folder", func(t *testing.T) {
		t.Parallel()
		dir := build(t, true)
		_, err := Open(context.Background(), dir, Options{Scratch: filepath.Join(t.TempDir(), "missing")})
		if err == nil || !strings.Contains(err.Error(), "scratch folder") || strings.Contains(err.Error(), Backup) {
			t.Errorf("error %v, want one about the scratch folder, the backup not tried", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		_, err := Open(context.Background(), t.TempDir(), Options{})
		if err == nil || !strings.Contains(err.Error(), DB) {
			t.Errorf("error %v, want one naming %s", err, DB)
		}
	})
}

// TestOpenHotJournal reads a database whose last transaction was cut
// short: its journal, copied with it, rolls back in the copy, and the
// files themselves are left as they were.
func TestOpenHotJournal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{{Key: "ITEM0001", Type: "book", Fields: map[string]string{"title": "Committed"}}}})
	// Make a hot journal: a transaction written to the file but not
	// committed, as a process killed in the middle leaves it. The
	// database and its journal are copied aside while the writer holds
	// them, then put back once it is gone.
	p := filepath.Join(dir, DB)
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(p)+"?_pragma=cache_size(1)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE itemDataValues SET value = 'Uncommitted' WHERE value = 'Committed'`,
		// Enough pages changed that SQLite spills them to the database
		// file before the commit.
		`CREATE TABLE filler (x)`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
			INSERT INTO filler SELECT hex(randomblob(1000)) FROM n`,
	} {
		if _, err := tx.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	main, err1 := os.ReadFile(p)
	journal, err2 := os.ReadFile(p + "-journal")
	tx.Rollback()
	db.Close()
	if err1 != nil || err2 != nil || !strings.Contains(string(main), "Uncommitted") {
		t.Fatalf("no hot journal made (%v, %v)", err1, err2)
	}
	// Without its journal, the database is not as committed: a page of
	// the transaction's is in it.
	alone := t.TempDir()
	file(t, alone, DB, string(main))
	if lib, err := Open(context.Background(), alone, Options{Scratch: t.TempDir()}); err == nil && len(lib.Items) == 1 && lib.Items[0].Title == "Committed" {
		t.Fatal("the database reads as committed without its journal: the test tests nothing")
	}
	file(t, dir, DB, string(main))
	file(t, dir, DB+"-journal", string(journal))
	lib := openLib(t, dir, Options{})
	if len(lib.Items) != 1 || lib.Items[0].Title != "Committed" {
		t.Errorf("items %+v, want the committed title", lib.Items)
	}
	if got, _ := os.ReadFile(p + "-journal"); string(got) != string(journal) {
		t.Error("the journal was changed")
	}
	if got, _ := os.ReadFile(p); string(got) != string(main) {
		t.Error("the database was changed")
	}
}

// TestOpenWAL reads a database in write-ahead-log mode whose last
// transactions are still only in its log.
func TestOpenWAL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{{Key: "ITEM0001", Type: "book", Fields: map[string]string{"title": "Before"}}}})
	p := filepath.Join(dir, DB)
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(p)+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`UPDATE itemDataValues SET value = 'In the log' WHERE value = 'Before'`); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no write-ahead log: %v", err)
	}
	// The connection stays open, as Zotero's does, so that the log is
	// not checkpointed into the database. (Open's look at the file drops
	// this process's own locks on it: no matter for this test.)
	lib := openLib(t, dir, Options{})
	if len(lib.Items) != 1 || lib.Items[0].Title != "In the log" {
		t.Errorf("items %+v, want the title in the log", lib.Items)
	}
}

func TestReadString(t *testing.T) {
	t.Parallel()
	when := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		r    Read
		want string
	}{
		{Read{From: FromDatabase, ModTime: when}, "zotero.sqlite"},
		{Read{From: FromDatabase, Locked: true, ModTime: when}, "zotero.sqlite (Zotero running: a copy taken while it held the database)"},
		{Read{From: FromBackup, ModTime: when, Why: "zotero.sqlite kept changing while it was copied"}, "zotero.sqlite.bak of 2026-12-01 09:00 (zotero.sqlite kept changing while it was copied)"},
		{Read{From: FromBackup, Locked: true, ModTime: when}, "zotero.sqlite.bak of 2026-12-01 09:00"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.r, got, tc.want)
		}
	}
}
