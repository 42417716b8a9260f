package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/grimoire-search/grimoire/library"
)

func (f *fixture) paths() []string {
	f.t.Helper()
	files, err := f.w.Files(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for p := range files {
		rel, _ := filepath.Rel(f.root, p)
		out = append(out, filepath.ToSlash(rel))
	}
	slices.Sort(out)
	return out
}

// A calibre entry's formats are one book: the walk takes the preferred
// one, and a watcher's batch that names one format judges the entry again.
func TestCalibreEntryTakesOneFormat(t *testing.T) {
	f := newFixture(t)
	f.opts.CalibrePrefer = []string{"markdown", "text"}
	var told []Change
	f.opts.Changed = func(c Change) { told = append(told, c) }
	f.write("cal/metadata.db", "")
	f.write("cal/Ann/Book (1)/metadata.opf", "<package/>")
	f.write("cal/Ann/Book (1)/book.txt", "the text")
	f.write("cal/Ann/Book (1)/cover.jpg", "jpeg")
	f.write("plain/metadata.opf", "<package/>") // no calibre library above
	f.write("plain/a.txt", "a")
	f.write("plain/a.md", "# a")

	expect(t, f.run(), library.Counters{Scanned: 3, Hashed: 3, New: 3})
	if got, want := f.paths(), []string{"cal/Ann/Book (1)/book.txt", "plain/a.md", "plain/a.txt"}; !slices.Equal(got, want) {
		t.Fatalf("paths %q, want %q", got, want)
	}

	t.Run("a preferred format added under watch replaces the other", func(t *testing.T) {
		told = nil
		f.write("cal/Ann/Book (1)/book.md", "# the markdown")
		r, err := Paths(context.Background(), f.w, f.opts, []string{filepath.Join(f.root, "cal/Ann/Book (1)/book.md")})
		if err != nil {
			t.Fatal(err)
		}
		expect(t, r, library.Counters{Scanned: 1, Hashed: 1, New: 1, Removed: 1, Pruned: 1, Skipped: 1})
		if got, want := f.paths(), []string{"cal/Ann/Book (1)/book.md", "plain/a.md", "plain/a.txt"}; !slices.Equal(got, want) {
			t.Errorf("paths %q, want %q", got, want)
		}
		alt := slices.IndexFunc(told, func(c Change) bool { return c.Kind == Alternate })
		if alt < 0 || told[alt].Path != filepath.Join(f.root, "cal/Ann/Book (1)/book.txt") || told[alt].Reason != "calibre entry: MARKDOWN taken instead" {
			t.Errorf("told %+v", told)
		}
	})
	t.Run("a full pass agrees", func(t *testing.T) {
		expect(t, f.run(), library.Counters{Scanned: 3, Skipped: 1})
	})
}

// The format taken removed from an entry (calibre's "remove format"), the
// one passed over becomes the entry's book without waiting for a rescan.
func TestCalibreFormatRemoved(t *testing.T) {
	f := newFixture(t)
	f.opts.CalibrePrefer = []string{"markdown", "text"}
	f.write("cal/metadata.db", "")
	f.write("cal/Ann/Book (1)/metadata.opf", "<package/>")
	f.write("cal/Ann/Book (1)/book.txt", "the text")
	f.write("cal/Ann/Book (1)/book.md", "# the markdown")
	f.run()
	gone := filepath.Join(f.root, "cal/Ann/Book (1)/book.md")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	r, err := Paths(context.Background(), f.w, f.opts, []string{gone})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, r, library.Counters{Scanned: 1, Hashed: 1, New: 1, Removed: 1, Pruned: 1})
	if got, want := f.paths(), []string{"cal/Ann/Book (1)/book.txt"}; !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
}
