// Package calibre tells a calibre library's entries apart: a folder that
// holds a metadata.opf, below a folder that holds calibre's metadata.db.
// calibre keeps each book in a folder of its own with every format it has
// of it; grimoire takes one of them, the one the user prefers.
package calibre

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

const (
	// OPF is the name of the file calibre describes an entry's book in.
	OPF = "metadata.opf"
	// DB is the name of a calibre library's database, at its root.
	DB = "metadata.db"
)

// DefaultPrefer returns the order of formats to take from an entry when
// the configuration names none: the formats that keep a book's structure
// and text best first.
func DefaultPrefer() []string {
	return []string{"epub", "azw3", "mobi", "fb2", "docx", "odt", "htmlz", "html", "rtf", "pdf", "markdown", "text"}
}

// Entry reports whether dir is a calibre entry: it holds a metadata.opf
// and a folder above it, up to root, holds a metadata.db. Links are not
// followed.
func Entry(dir, root string) bool {
	if !regular(filepath.Join(dir, OPF)) {
		return false
	}
	return LibraryOf(dir, root) != ""
}

// LibraryOf returns the folder above dir, up to root, that holds a
// metadata.db, or "". dir must lie below root.
func LibraryOf(dir, root string) string {
	root, dir = filepath.Clean(root), filepath.Clean(dir)
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return ""
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if regular(filepath.Join(d, DB)) {
			return d
		}
		if d == root || len(d) <= len(root) {
			return ""
		}
	}
}

func regular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Choose returns the path among paths to take as the entry's book: the
// first of the types in prefer, then any other type, the name deciding
// between files of one rank. typeOf gives a path's type. It returns ""
// for no paths.
func Choose(paths []string, typeOf func(string) string, prefer []string) string {
	rank := func(p string) int {
		if i := slices.Index(prefer, strings.ToLower(typeOf(p))); i >= 0 {
			return i
		}
		return len(prefer)
	}
	best := ""
	for _, p := range paths {
		if best == "" || rank(p) < rank(best) || (rank(p) == rank(best) && p < best) {
			best = p
		}
	}
	return best
}
