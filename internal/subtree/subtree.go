// Package subtree answers whether a path lies in a folder's tree, the one
// rule by which every part of grimoire tells library paths apart. It imports
// nothing of grimoire's, so that index and watcher, which depend on no other
// package of ours, can use it too.
package subtree

import (
	"path/filepath"
	"strings"
)

// Contains reports whether p is root or lies below it. Both are clean
// absolute paths; root may be a volume root ("/", `C:\`), the one clean
// path that ends in a separator.
func Contains(root, p string) bool {
	if !strings.HasPrefix(p, root) {
		return false
	}
	if len(p) == len(root) || strings.HasSuffix(root, string(filepath.Separator)) {
		return true
	}
	return p[len(root)] == filepath.Separator
}

// RootOf returns the first of roots that contains p, or "".
func RootOf(p string, roots []string) string {
	for _, r := range roots {
		if Contains(r, p) {
			return r
		}
	}
	return ""
}

// InAny reports whether one of roots contains p.
func InAny(p string, roots []string) bool { return RootOf(p, roots) != "" }
