//go:build unix

package zotero

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/grimoire-search/grimoire/source/zotero/zoterotest"
)

// TestOpenRefusesOddCompanions: a journal, log or backup beside the
// database that is a FIFO or a link (out of the data directory) is never
// opened: a FIFO would block the read for ever, and a link would have a
// file from elsewhere read as the database's. Open fails naming it, or
// reads the backup.
func TestOpenRefusesOddCompanions(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(outside, []byte("not a journal"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file string
		make       func(p string) error
		backup     bool // the backup is read instead
	}{
		{"a FIFO for a journal", DB + "-journal", func(p string) error { return unix.Mkfifo(p, 0o644) }, false},
		{"a link for a write-ahead log", DB + "-wal", func(p string) error { return os.Symlink(outside, p) }, false},
		{"a FIFO for a journal, with a backup", DB + "-journal", func(p string) error { return unix.Mkfifo(p, 0o644) }, true},
		{"a FIFO for the backup", Backup, func(p string) error { return unix.Mkfifo(p, 0o644) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			zoterotest.Build(t, dir, zoterotest.Library{Items: []zoterotest.Item{
				{Key: "ITEM0001", Type: "book", Fields: map[string]string{"title": "Odd"}},
			}})
			if tc.backup {
				zoterotest.Backup(t, dir)
			}
			odd := filepath.Join(dir, tc.file)
			if err := tc.make(odd); err != nil {
				t.Fatal(err)
			}
			if tc.file == Backup {
				// The database cannot be read, so that the backup is tried.
				if err := os.WriteFile(filepath.Join(dir, DB), []byte("damaged"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			type result struct {
				lib *Library
				err error
			}
			done := make(chan result, 1)
			go func() {
				lib, err := Open(context.Background(), dir, Options{Scratch: t.TempDir()})
				done <- result{lib, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("Open blocked on %s", tc.file)
			}
			switch {
			case tc.backup && (r.err != nil || r.lib.Read.From != FromBackup):
				t.Errorf("Open: %v; want the backup read", r.err)
			case !tc.backup && (r.err == nil || !strings.Contains(r.err.Error(), odd)):
				t.Errorf("Open: %v; want an error naming %s", r.err, odd)
			}
		})
	}
}
