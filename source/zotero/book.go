package zotero

// What an item read as one book is called where the walk, the parser and
// the search meet.
const (
	// Type is the source type of a Zotero item read as one book.
	Type = "zotero"
	// BookMagic starts the bytes of a Zotero item read as one book: a
	// line of JSON that describes the item follows, then each of its
	// attachments' bytes in turn.
	BookMagic = "grimoire-zotero 1\n"
	// NotesChapter is the title of the chapter that holds the user's
	// own notes and annotations of an item, after its attachments' text.
	NotesChapter = "Your notes and highlights in Zotero"
)
