package subtree

import (
	"path/filepath"
	"testing"
)

func TestContains(t *testing.T) {
	cases := []struct {
		p, root string
		want    bool
	}{
		{"/lib", "/lib", true},
		{"/lib/a", "/lib", true},
		{"/lib2/a", "/lib", false},
		{"/li", "/lib", false},
		{"/a", "/", true},
	}
	for _, c := range cases {
		if got := Contains(filepath.FromSlash(c.root), filepath.FromSlash(c.p)); got != c.want {
			t.Errorf("Contains(%q, %q) = %v", c.root, c.p, got)
		}
	}
}

func TestRootOf(t *testing.T) {
	roots := []string{filepath.FromSlash("/books"), filepath.FromSlash("/papers"), filepath.FromSlash("/books/old")}
	cases := []struct{ p, want string }{
		{"/books/a.pdf", "/books"},
		{"/books/old/b.pdf", "/books"}, // the first root that holds it
		{"/papers", "/papers"},
		{"/papers2/c.pdf", ""},
		{"/bookshelf/d.pdf", ""},
	}
	for _, c := range cases {
		want := c.want
		if want != "" {
			want = filepath.FromSlash(want)
		}
		p := filepath.FromSlash(c.p)
		if got := RootOf(p, roots); got != want {
			t.Errorf("RootOf(%q) = %q, want %q", c.p, got, want)
		}
		if InAny(p, roots) != (want != "") {
			t.Errorf("InAny(%q) = %v", c.p, !(want != ""))
		}
	}
}
