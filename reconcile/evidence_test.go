package reconcile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/library"
)

// TestRemovalsNeedEvidence drives the rules that hold removals back: each
// case indexes a library, changes it, and checks what a pass removes.
func TestRemovalsNeedEvidence(t *testing.T) {
	tests := []struct {
		name   string
		files  int
		change func(f *fixture)
		// held is the number of removals held back (0: all applied),
		// reason a word of the hold's reason.
		removed, held int
		reason        string
	}{
		{name: "a few files deleted", files: 20, removed: 3,
			change: func(f *fixture) { f.remove(0, 3) }},
		{name: "less than half deleted", files: 30, removed: 14,
			change: func(f *fixture) { f.remove(0, 14) }},
		{name: "a handful deleted from a small library", files: 12, removed: 10,
			change: func(f *fixture) { f.remove(0, 10) }},
		{name: "more than half and more than a handful", files: 20, held: 11, reason: "11 of its 20 files are gone at once",
			change: func(f *fixture) { f.remove(0, 11) }},
		{name: "folder emptied", files: 3, held: 3, reason: "empty",
			change: func(f *fixture) { f.remove(0, 3) }},
		{name: "folder replaced by another", files: 4, held: 2, reason: "replaced",
			change: func(f *fixture) {
				os.Rename(f.root, f.root+".old")
				f.t.Cleanup(func() { os.RemoveAll(f.root + ".old") })
				for i := 2; i < 4; i++ {
					f.write(fmt.Sprintf("book%02d.txt", i), fmt.Sprintf("text of book %d", i))
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for i := range tc.files {
				f.write(fmt.Sprintf("book%02d.txt", i), fmt.Sprintf("text of book %d", i))
			}
			f.run()
			tc.change(f)
			r := f.run()
			if r.Removed != tc.removed || r.Held != tc.held || r.Pruned != tc.removed {
				t.Fatalf("counters %+v, want %d removed and pruned, %d held", r.Counters, tc.removed, tc.held)
			}
			holds, err := f.w.Holds(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tc.held == 0 {
				if len(holds) != 0 || len(r.Holds) != 0 {
					t.Errorf("holds %+v", holds)
				}
				return
			}
			if len(holds) != 1 || holds[0].Root != f.root || holds[0].Files != tc.held || !strings.Contains(holds[0].Reason, tc.reason) {
				t.Fatalf("holds %+v, want %d files under %s because %q", holds, tc.held, f.root, tc.reason)
			}
			// The same pass again holds the same, and keeps when it began.
			r = f.run()
			again, _ := f.w.Holds(context.Background())
			if r.Held != tc.held || len(again) != 1 || !again[0].Since.Equal(holds[0].Since) {
				t.Errorf("second pass: %+v, holds %+v", r.Counters, again)
			}
			if f.books() != tc.files {
				t.Errorf("%d books, want all %d kept", f.books(), tc.files)
			}
			// An explicit prune applies the removals and trusts the folder.
			f.opts.Prune = true
			r = f.run()
			f.opts.Prune = false
			if r.Removed != tc.held || r.Held != 0 {
				t.Errorf("prune: %+v", r.Counters)
			}
			if holds, _ := f.w.Holds(context.Background()); len(holds) != 0 {
				t.Errorf("holds after prune: %+v", holds)
			}
			settled(t, f.run())
		})
	}
}

// TestHeldFilesComingBackClearTheHold: a drive that is back, or files
// restored, end the hold without a prune.
func TestHeldFilesComingBackClearTheHold(t *testing.T) {
	f := newFixture(t)
	for i := range 3 {
		f.write(fmt.Sprintf("book%02d.txt", i), fmt.Sprintf("text of book %d", i))
	}
	f.run()
	aside := f.root + ".aside"
	if err := os.Rename(f.root, aside); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(f.root, 0o755)
	if r := f.run(); r.Held != 3 {
		t.Fatalf("empty replacement folder: %+v", r.Counters)
	}
	os.Remove(f.root)
	os.Rename(aside, f.root)
	settled(t, f.run())
	if holds, _ := f.w.Holds(context.Background()); len(holds) != 0 {
		t.Errorf("holds once the folder is back: %+v", holds)
	}
}

// TestPathsHoldMassRemoval: the watcher's batches follow the same rules.
func TestPathsHoldMassRemoval(t *testing.T) {
	f := newFixture(t)
	for i := range 20 {
		f.write(fmt.Sprintf("d/book%02d.txt", i), fmt.Sprintf("text of book %d", i))
	}
	f.write("keep.txt", "kept")
	f.run()
	os.RemoveAll(filepath.Join(f.root, "d"))
	r, err := Paths(context.Background(), f.w, f.opts, []string{filepath.Join(f.root, "d")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Removed != 0 || r.Held != 20 || len(r.Holds) != 1 {
		t.Fatalf("batch removing 20 of 21 files: %+v %+v", r.Counters, r.Holds)
	}
	r, err = Paths(context.Background(), f.w, f.opts, []string{filepath.Join(f.root, "keep.txt")})
	if err != nil {
		t.Fatal(err)
	}
	if holds, _ := f.w.Holds(context.Background()); len(holds) != 1 {
		t.Errorf("a partial pass cleared the hold: %+v", holds)
	}
}

// TestPathsThroughLinks: a path that reaches through a link in the library
// names no file of it.
func TestPathsThroughLinks(t *testing.T) {
	f := newFixture(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside text"), 0o644)
	f.write("a.txt", "alpha")
	if err := os.Symlink(outside, filepath.Join(f.root, "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink(f.root, filepath.Join(f.root, "self"))
	f.run()
	r, err := Paths(context.Background(), f.w, f.opts, []string{
		filepath.Join(f.root, "link", "secret.txt"),
		filepath.Join(f.root, "self", "a.txt"),
		filepath.Join(f.root, "self", "self", "a.txt"),
	})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, r, library.Counters{})
	files, _ := f.w.Files(context.Background())
	if len(files) != 1 {
		t.Errorf("files %v", files)
	}
}

// remove deletes the fixture's books from..to-1, as written by the cases.
func (f *fixture) remove(from, to int) {
	f.t.Helper()
	for i := from; i < to; i++ {
		if err := os.Remove(filepath.Join(f.root, fmt.Sprintf("book%02d.txt", i))); err != nil {
			f.t.Fatal(err)
		}
	}
}

// settled checks that a pass found nothing to do.
func settled(t *testing.T, r Result) {
	t.Helper()
	c := r.Counters
	if c.New+c.Changed+c.Moved+c.Copied+c.Removed+c.Held+c.Pruned != 0 || len(r.Holds) != 0 {
		t.Errorf("a pass over a settled library did something: %+v %+v", c, r.Holds)
	}
}
