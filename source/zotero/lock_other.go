//go:build !unix

package zotero

// lockedByOther reports false where POSIX locks cannot be asked about
// without taking one: whether Zotero runs is then not known.
func lockedByOther(string) bool { return false }
