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

// BookHeader is what the database says of an item, as the line of JSON
// after BookMagic holds it: the book the item is read as changes when any
// of it does.
type BookHeader struct {
	Key         string           `json:"key"`
	ItemType    string           `json:"item_type"`
	Title       string           `json:"title"`
	Creators    []string         `json:"creators,omitempty"`
	Date        string           `json:"date,omitempty"`
	Publication string           `json:"publication,omitempty"`
	Publisher   string           `json:"publisher,omitempty"`
	DOI         string           `json:"doi,omitempty"`
	ISBN        string           `json:"isbn,omitempty"`
	URL         string           `json:"url,omitempty"`
	Abstract    string           `json:"abstract,omitempty"`
	Language    string           `json:"language,omitempty"`
	Tags        []string         `json:"tags,omitempty"`
	Collections []string         `json:"collections,omitempty"`
	Attachments []BookAttachment `json:"attachments"`
	Notes       []BookNote       `json:"notes,omitempty"`
	Annotations []BookAnnotation `json:"annotations,omitempty"`
}

// BookAttachment is an attachment whose file follows the header, Size
// bytes of it, in the header's order.
type BookAttachment struct {
	Key   string `json:"key"`
	Title string `json:"title,omitempty"`
	// Type is the format's type, as the walk named it.
	Type string `json:"type"`
	Name string `json:"name"`
	Size int64  `json:"size"`
}

// BookNote is a child note, as text.
type BookNote struct {
	Title string `json:"title,omitempty"`
	Text  string `json:"text"`
}

// BookAnnotation is an annotation made on one of the attachments.
type BookAnnotation struct {
	Attachment string `json:"attachment"`
	Kind       string `json:"kind"`
	Text       string `json:"text,omitempty"`
	Comment    string `json:"comment,omitempty"`
	PageLabel  string `json:"page_label,omitempty"`
	PageIndex  int    `json:"page_index"`
}
