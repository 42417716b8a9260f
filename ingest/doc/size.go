package doc

import "errors"

// MaxText is the most text a book may hold, in bytes of UTF-8: its blocks
// and titles together. War and Peace holds 3.3 MB, and the largest single
// volumes (a complete Bible, a processor's manual of thousands of pages)
// a few times that; 64 MB leaves room for twenty War and Peaces. A file
// that holds more inflated to it (a zip of repeated text, a footnote cited
// a million times) and would take gigabytes to index.
const MaxText = 64 << 20

// ErrTooLarge reports a book whose text passes MaxText. It is the book's
// fault, as a damaged file is: the same bytes fail the same way, and are
// not read again until they change.
var ErrTooLarge = errors.New("too large")

// CheckText returns a Failure of kind ErrTooLarge when n bytes of text
// are more than a book may hold, else nil. Parsers call it as their text
// grows, so that a bomb fails before it is all in memory.
func CheckText(n int64) error {
	if n <= MaxText {
		return nil
	}
	return Failf(ErrTooLarge, "too large: the book holds more than %d MB of text, more than any real book (a file that inflates to so much is taken for a bomb)", MaxText>>20)
}

// TextSize returns the bytes of text the document holds: its titles and
// its blocks.
func (d *Document) TextSize() int64 {
	n := int64(len(d.Title))
	for _, c := range d.Chapters {
		n += int64(len(c.Title))
		for _, s := range c.Sections {
			n += int64(len(s.Title))
			for _, b := range s.Blocks {
				n += int64(len(b.Text))
			}
		}
	}
	return n
}
