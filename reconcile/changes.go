package reconcile

import "github.com/grimoire-search/grimoire/library"

// ChangeKind is what a pass did about a path.
type ChangeKind uint8

const (
	// Moved: Path holds the content that From held, and From is gone.
	Moved ChangeKind = iota + 1
	// Copied: Path holds content the library already has as Book.
	Copied
	// Excluded: Path holds content the user deleted from the index; it
	// stays out.
	Excluded
	// Removed: Path is gone. Book is set when its book went with it
	// (no other file holds it).
	Removed
	// Held: the removal of Files files under the folder Path is held back
	// for want of evidence, for Reason.
	Held
	// Skipped: Path could not be taken (too large, unreadable, gone
	// from a folder that cannot be read), for Reason.
	Skipped
	// Alternate: Path is another format of a calibre entry whose book
	// another file gives; Reason names the format taken.
	Alternate
)

// Change is one thing a pass did or met, for a caller that tells the user
// as it happens (watch). New and changed content is not among them: it is
// queued for ingest, which tells of it when the book is ready.
type Change struct {
	Kind ChangeKind
	Path string
	// From is the path a moved file was at.
	From string
	// Book is the book of a copy, or the book a removal took with it; only
	// its slug, title and (for a copy) paths are filled.
	Book   *library.Book
	Files  int
	Reason string
}

// removedBooks fills in the book each removal took with it, from the
// books a pass pruned and the content each removed path held.
func removedBooks(changes []Change, gone []library.Book, hashOf map[string]library.Hash) {
	if len(gone) == 0 {
		return
	}
	byHash := make(map[library.Hash]*library.Book, len(gone))
	for i := range gone {
		byHash[gone[i].Hash] = &gone[i]
	}
	for i, ch := range changes {
		if ch.Kind == Removed {
			changes[i].Book = byHash[hashOf[ch.Path]]
		}
	}
}
