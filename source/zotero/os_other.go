//go:build !unix

package zotero

// ownFlags: a file is opened as it is where there are no FIFOs to block
// on, and a link is refused by the look that comes first.
const ownFlags = 0

// lockedByOther reports false where POSIX locks cannot be asked about
// without taking one: whether Zotero runs is then not known.
func lockedByOther(string) bool { return false }
