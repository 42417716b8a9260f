package reconcile

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/grimoire-search/grimoire/library"
)

// TestEmptyFileIsNoBook checks that a 0-byte file is skipped and said to
// be empty, and becomes a book once it has content.
func TestEmptyFileIsNoBook(t *testing.T) {
	f := newFixture(t)
	f.write("empty.md", "")
	f.write("empty.txt", "")
	f.write("a.md", "# A")
	r := f.run()
	expect(t, r, library.Counters{Scanned: 1, Hashed: 1, New: 1, Skipped: 2})
	if len(r.Failures) != 2 || r.Failures[0].Error != emptyReason {
		t.Errorf("failures %+v", r.Failures)
	}
	s, err := f.w.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Failures) != 2 || s.Failures[0].Error != emptyReason || s.Books != 1 {
		t.Errorf("status: %d books, failures %+v", s.Books, s.Failures)
	}

	f.write("empty.md", "# Now with text")
	expect(t, f.run(), library.Counters{Scanned: 2, Hashed: 1, New: 1, Skipped: 1})
	s, _ = f.w.Status(context.Background())
	if len(s.Failures) != 1 || filepath.Base(s.Failures[0].Path) != "empty.txt" {
		t.Errorf("status failures once the file has text: %+v", s.Failures)
	}

	// Emptied: the path holds no book any more.
	f.write("empty.md", "")
	expect(t, f.run(), library.Counters{Scanned: 1, Removed: 1, Pruned: 1, Skipped: 2})
}
