package reconcile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChangedTellsWhatAPassDid runs passes over a library and checks what
// Options.Changed is told: moves with where from, copies and removals
// with their books, files skipped.
func TestChangedTellsWhatAPassDid(t *testing.T) {
	f := newFixture(t)
	var got []string
	f.opts.MaxFileSize = 100
	f.opts.Changed = func(c Change) { got = append(got, describe(f.root, c)) }
	f.write("a.txt", "alpha")
	f.write("b.txt", "bravo")
	f.write("c.txt", "charlie")
	steps := []struct {
		name string
		act  func()
		want []string
	}{
		{"new files are ingest's to tell", func() {}, nil},
		{"a move, a copy, a removal", func() {
			os.MkdirAll(filepath.Join(f.root, "sub"), 0o755)
			os.Rename(filepath.Join(f.root, "a.txt"), filepath.Join(f.root, "sub", "a.txt"))
			f.write("b-copy.txt", "bravo")
			os.Remove(filepath.Join(f.root, "c.txt"))
		}, []string{"moved a.txt -> sub/a.txt", "copied b-copy.txt of b [b-copy.txt b.txt]", "removed c.txt with c"}},
		{"a removal whose book another file holds", func() {
			os.Remove(filepath.Join(f.root, "b.txt"))
		}, []string{"removed b.txt"}},
		{"a file too large", func() {
			f.write("big.txt", strings.Repeat("x", 200))
		}, []string{"skipped big.txt"}},
		{"a file too large is told of again on the next pass", func() {}, []string{"skipped big.txt"}},
		{"removals held for want of evidence", func() {
			for i := range 12 {
				f.write(fmt.Sprintf("many/%02d.txt", i), fmt.Sprintf("many %d", i))
			}
			f.run()
			got = nil
			os.RemoveAll(filepath.Join(f.root, "many"))
		}, []string{"held 12 under " + f.root, "skipped big.txt"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			got = nil
			s.act()
			f.run()
			slices.Sort(got)
			want := slices.Clone(s.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("told %q, want %q", got, want)
			}
		})
	}
}

// describe writes a change short, with paths relative to root.
func describe(root string, c Change) string {
	rel := func(p string) string {
		r, _ := filepath.Rel(root, p)
		return filepath.ToSlash(r)
	}
	switch c.Kind {
	case Moved:
		return fmt.Sprintf("moved %s -> %s", rel(c.From), rel(c.Path))
	case Copied:
		var paths []string
		for _, p := range c.Book.Paths {
			paths = append(paths, rel(p))
		}
		return fmt.Sprintf("copied %s of %s %v", rel(c.Path), c.Book.Title, paths)
	case Removed:
		if c.Book != nil {
			return fmt.Sprintf("removed %s with %s", rel(c.Path), c.Book.Title)
		}
		return "removed " + rel(c.Path)
	case Skipped:
		return "skipped " + rel(c.Path)
	case Held:
		return fmt.Sprintf("held %d under %s", c.Files, c.Path)
	case Excluded:
		return "excluded " + rel(c.Path)
	}
	return "?"
}
