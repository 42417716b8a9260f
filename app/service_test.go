package app

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/handoff"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
)

// testFront is a front that keeps what the service tells it.
type testFront struct {
	mu     sync.Mutex
	notes  []string
	handed []index.LockHolder
	// relayed is the progress steps relayed to requesters.
	relayed []string
}

func (f *testFront) CheckFolders(context.Context) error { return nil }

func (f *testFront) Note(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notes = append(f.notes, msg)
}

func (f *testFront) HandingOver(h index.LockHolder) (func(handoff.Event), func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handed = append(f.handed, h)
	return nil, func() {}
}

func (f *testFront) Relay(*handoff.Reporter) Progress { return relay{f} }

type relay struct{ f *testFront }

func (r relay) Counted(step string, done, total int, noun string) { r.add(step) }
func (r relay) Ingest(p ingest.Progress)                          { r.add("ingest " + p.Book) }

func (r relay) add(step string) {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.f.relayed = append(r.f.relayed, step)
}

// TestNoteUpgrade: an operation that opens the writer on an index an older
// grimoire wrote says first that it upgrades it, and says nothing on an
// index that is current or not there yet. (Moved from the command's tests,
// assertions unchanged.)
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
		f := &testFront{}
		New(Settings{DBPath: tc.db}, nil, f).noteUpgrade(t.Context())
		said := strings.Join(f.notes, "\n")
		if got := strings.Contains(said, "upgrading the index "+tc.db); got != tc.note {
			t.Errorf("%s: %q", tc.name, said)
		}
	}
}

// TestHandedSyncIsChecked: a sync handed to the watcher with a kind no
// command sends, or a scope outside its library, is Invalid before the
// watch loop hears of it. (Moved from the command's tests, assertions
// unchanged.)
func TestHandedSyncIsChecked(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	s := New(Settings{Library: []string{lib}}, nil, &testFront{})
	tests := []struct {
		name string
		args SyncArgs
		bad  bool
	}{
		{name: "a sync of a file in the library", args: SyncArgs{Kind: "sync", Library: []string{lib}, Scope: []string{filepath.Join(lib, "a.md")}}},
		{name: "an unknown kind", args: SyncArgs{Kind: "purge", Library: []string{lib}}, bad: true},
		{name: "a scope outside the library", args: SyncArgs{Kind: "sync", Library: []string{lib}, Scope: []string{filepath.Dir(lib)}}, bad: true},
		{name: "a relative scope", args: SyncArgs{Kind: "sync", Library: []string{lib}, Scope: []string{"a.md"}}, bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := handoff.NewRequest(opSync, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = s.loopWork(req, nil, "grimoire watch", nil)
			if tc.bad != (fault.CodeOf(err) == fault.Invalid) || !tc.bad && err != nil {
				t.Errorf("error %v (code %v), bad %v", err, fault.CodeOf(err), tc.bad)
			}
		})
	}
}
