package main

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/index"
)

// TestNoteUpgrade: a command that opens the writer on an index an older
// grimoire wrote says first that it upgrades it, and says nothing on an
// index that is current or not there yet.
func TestNoteUpgrade(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	current := filepath.Join(dir, "current.db")
	w, err := index.OpenWriter(t.Context(), current, "test")
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	older := filepath.Join(dir, "older.db")
	db, err := sql.Open("sqlite", older)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA user_version = 5`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, tc := range []struct {
		name, db string
		note     bool
	}{
		{"no index yet", filepath.Join(dir, "none.db"), false},
		{"current", current, false},
		{"older", older, true},
	} {
		var stderr bytes.Buffer
		a := &app{stderr: &stderr, cfg: &Config{DBPath: tc.db}}
		a.noteUpgrade(t.Context())
		if got := strings.Contains(stderr.String(), "upgrading the index "+tc.db); got != tc.note {
			t.Errorf("%s: %q", tc.name, stderr.String())
		}
	}
}
