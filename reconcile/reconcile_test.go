package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/library"
)

// testFormats takes .txt and .md files for books.
type testFormats struct{}

func (testFormats) TypeOf(p string) string {
	switch filepath.Ext(p) {
	case ".txt":
		return "text"
	case ".md":
		return "markdown"
	}
	return ""
}

type fixture struct {
	t    *testing.T
	root string
	w    *index.Writer
	opts Options
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := filepath.Join(t.TempDir(), "lib")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := index.OpenWriter(context.Background(), filepath.Join(t.TempDir(), "g.db"), "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &fixture{t: t, root: root, w: w, opts: Options{Roots: []string{root}, Formats: testFormats{}, RacyWindow: time.Millisecond}}
}

// write creates a file with an mtime safely in the past, so that racy-mtime
// handling does not slow the test.
func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Add(time.Duration(len(content)) * time.Millisecond)
	if err := os.Chtimes(p, old, old); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) run() Result {
	f.t.Helper()
	r, err := Run(context.Background(), f.w, f.opts)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

func (f *fixture) books() int {
	f.t.Helper()
	s, err := f.w.Status(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return s.Books
}

func expect(t *testing.T, got Result, want library.Counters) {
	t.Helper()
	if got.Counters != want {
		t.Errorf("counters:\n got %+v\nwant %+v", got.Counters, want)
	}
}

func TestScenario(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "alpha")
	f.write("b.md", "# beta")
	f.write("sub/c.txt", "gamma")
	f.write("notes.pdf.part", "partial download")
	f.write(".hidden.txt", "hidden")
	f.write(".grimoire/x.txt", "the index folder")
	f.write("image.png", "not a book")
	f.write("~$lock.txt", "office lock")
	os.Symlink(filepath.Join(f.root, "a.txt"), filepath.Join(f.root, "link.txt"))

	expect(t, f.run(), library.Counters{Scanned: 3, Hashed: 3, New: 3})
	if f.books() != 3 {
		t.Fatalf("%d books", f.books())
	}

	t.Run("no-op resync reads nothing", func(t *testing.T) {
		expect(t, f.run(), library.Counters{Scanned: 3})
	})
	t.Run("move is a move", func(t *testing.T) {
		os.MkdirAll(filepath.Join(f.root, "moved"), 0o755)
		if err := os.Rename(filepath.Join(f.root, "a.txt"), filepath.Join(f.root, "moved", "a2.txt")); err != nil {
			t.Fatal(err)
		}
		expect(t, f.run(), library.Counters{Scanned: 3, Moved: 1})
		if f.books() != 3 {
			t.Errorf("%d books after a move", f.books())
		}
	})
	t.Run("copy adds a path, not a book", func(t *testing.T) {
		f.write("copy-of-b.md", "# beta")
		expect(t, f.run(), library.Counters{Scanned: 4, Hashed: 1, Copied: 1})
		if f.books() != 3 {
			t.Errorf("%d books after a copy", f.books())
		}
	})
	t.Run("edit makes a new book", func(t *testing.T) {
		f.write("sub/c.txt", "gamma, edited")
		// The old version is not ready (nothing was ingested here), so
		// it does not wait for the new one.
		expect(t, f.run(), library.Counters{Scanned: 4, Hashed: 1, Changed: 1, Pruned: 1})
	})
	t.Run("removal prunes", func(t *testing.T) {
		os.Remove(filepath.Join(f.root, "sub", "c.txt"))
		expect(t, f.run(), library.Counters{Scanned: 3, Removed: 1, Pruned: 1})
		if f.books() != 2 {
			t.Errorf("%d books after removal", f.books())
		}
	})
	t.Run("delete and create pair up as a move", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join(f.root, "b.md"))
		os.Remove(filepath.Join(f.root, "b.md"))
		os.WriteFile(filepath.Join(f.root, "b-renamed.md"), data, 0o644) // a new inode
		old := time.Now().Add(-time.Hour)
		os.Chtimes(filepath.Join(f.root, "b-renamed.md"), old, old)
		expect(t, f.run(), library.Counters{Scanned: 3, Hashed: 1, Moved: 1})
	})
	t.Run("missing root prunes nothing", func(t *testing.T) {
		hidden := f.root + ".unmounted"
		if err := os.Rename(f.root, hidden); err != nil {
			t.Fatal(err)
		}
		defer os.Rename(hidden, f.root)
		r := f.run()
		expect(t, r, library.Counters{})
		if len(r.Failures) != 1 || !strings.Contains(r.Failures[0].Error, "missing") {
			t.Errorf("failures = %+v", r.Failures)
		}
		if f.books() != 2 {
			t.Errorf("%d books while the root is missing", f.books())
		}
	})
	t.Run("root back, nothing changed", func(t *testing.T) {
		expect(t, f.run(), library.Counters{Scanned: 3})
	})
	t.Run("root removed from the configuration holds its files", func(t *testing.T) {
		other := t.TempDir()
		opts := f.opts
		f.opts.Roots = []string{other}
		defer func() { f.opts = opts }()
		r := f.run()
		if r.Removed != 0 || r.Held != 3 || r.Pruned != 0 {
			t.Errorf("counters %+v", r.Counters)
		}
		if len(r.Holds) != 1 || r.Holds[0].Root != f.root || !strings.Contains(r.Holds[0].Reason, "no longer a library folder") {
			t.Errorf("holds %+v", r.Holds)
		}
		f.opts.Prune = true
		r = f.run()
		if r.Removed != 3 || r.Pruned != 2 {
			t.Errorf("with Prune: counters %+v", r.Counters)
		}
		if holds, _ := f.w.Holds(context.Background()); len(holds) != 0 {
			t.Errorf("holds left after a prune: %+v", holds)
		}
	})
}

func TestUnreadableFolderPrunesNothing(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("permissions do not stop root")
	}
	f := newFixture(t)
	f.write("locked/a.txt", "alpha")
	f.write("b.txt", "beta")
	f.run()
	locked := filepath.Join(f.root, "locked")
	os.Chmod(locked, 0)
	defer os.Chmod(locked, 0o755)
	r := f.run()
	if r.Removed != 0 || r.Pruned != 0 || len(r.Failures) != 1 {
		t.Errorf("unreadable folder: %+v %+v", r.Counters, r.Failures)
	}
}

func TestSizeLimitIsReported(t *testing.T) {
	f := newFixture(t)
	f.write("big.txt", strings.Repeat("x", 2048))
	f.write("small.txt", "x")
	f.opts.MaxFileSize = 1024
	r := f.run()
	if r.Skipped != 1 || r.New != 1 {
		t.Errorf("counters %+v", r.Counters)
	}
	if len(r.Failures) != 1 || !strings.Contains(r.Failures[0].Error, "size limit") || !strings.Contains(r.Failures[0].Error, "max_file_size_mb") {
		t.Fatalf("failures %+v", r.Failures)
	}
	s, _ := f.w.Status(context.Background())
	if len(s.Failures) != 1 || !strings.HasSuffix(s.Failures[0].Path, "big.txt") {
		t.Errorf("status failures %+v", s.Failures)
	}
	f.opts.MaxFileSize = 0
	f.run()
	s, _ = f.w.Status(context.Background())
	if len(s.Failures) != 0 {
		t.Errorf("issue not cleared once the file is indexed: %+v", s.Failures)
	}
}

func TestRacyFileIsHashedAgain(t *testing.T) {
	f := newFixture(t)
	p := filepath.Join(f.root, "a.txt")
	os.WriteFile(p, []byte("one"), 0o644)
	f.opts.RacyWindow = 300 * time.Millisecond
	start := time.Now()
	f.run()
	if time.Since(start) < 250*time.Millisecond {
		t.Error("a file written just now was read before its mtime was safely old")
	}
	// The row was verified after the window: the next pass trusts it.
	expect(t, f.run(), library.Counters{Scanned: 1})
}

func TestPathsScope(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "alpha")
	f.write("dir/b.txt", "beta")
	f.run()
	f.write("dir/c.txt", "gamma")
	os.Remove(filepath.Join(f.root, "a.txt"))
	r, err := Paths(context.Background(), f.w, f.opts, []string{filepath.Join(f.root, "dir")})
	if err != nil {
		t.Fatal(err)
	}
	// a.txt is out of scope: not removed by this pass.
	expect(t, r, library.Counters{Scanned: 2, Hashed: 1, New: 1})
	r, err = Paths(context.Background(), f.w, f.opts, []string{filepath.Join(f.root, "a.txt")})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, r, library.Counters{Removed: 1, Pruned: 1})
}

func TestIgnored(t *testing.T) {
	for name, want := range map[string]bool{
		"book.pdf": false, "Alice.txt": false, ".DS_Store": true, ".grimoire": true,
		"x.pdf.part": true, "x.crdownload": true, "~$report.docx": true, "notes.md~": true,
		"#notes.md#": true, "a.swp": true, "a.TMP": true,
	} {
		if got := Ignored(name); got != want {
			t.Errorf("Ignored(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestExtensionNamesTheKindOfAFile(t *testing.T) {
	cases := []struct{ name, want string }{
		{"comic.cbz", ".cbz"},
		{"SCAN.DJV", ".djv"},
		{"archive.tar.gz", ".gz"},
		{"LICENSE", ""},
		{"notes.v2 final", ""},
		{"trailing.", ""},
		{"photo.jpeg-large", ".jpeg-large"},
		{"карта.джву", ".джву"},
	}
	for _, tc := range cases {
		if got := extension(tc.name); got != tc.want {
			t.Errorf("extension(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
