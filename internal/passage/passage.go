// Package passage tells what a passage of a book is for (its Role: what it
// says, or a table of contents, a cover, a byline, a page number pointing
// elsewhere) and what text it holds (its Signature, by which copies of it
// are found). Both are worked out once, when a book is stored, and kept
// with its chunks; a search reads them.
package passage

// Role is what a passage is for. The zero Role is none: a passage not
// classified yet.
type Role int8

const (
	// Content says something of its own.
	Content Role = 1
	// Contents lists what is where: a table of contents, an index, a list
	// of figures or of a book's divisions, a list of pages with dot
	// leaders.
	Contents Role = 2
	// Bare adds no words of its own to the titles it stands under: a
	// cover ("Cover Image"), a byline ("by Lewis Carroll"), a page number
	// ("192"), a heading alone.
	Bare Role = 3
)

// Valid reports whether r is one of the roles above.
func (r Role) Valid() bool { return r == Content || r == Contents || r == Bare }

// PointsElsewhere reports whether a passage of role r only points
// elsewhere, so that a search ranks it after every passage that says
// something.
func (r Role) PointsElsewhere() bool { return r == Contents || r == Bare }

func (r Role) String() string {
	switch r {
	case Content:
		return "content"
	case Contents:
		return "contents"
	case Bare:
		return "bare"
	}
	return "unclassified"
}

// Passage is what Classify reads of a passage: its text, the titles it
// stands under, and whether it is its book's only one.
type Passage struct {
	Text         string
	ChapterTitle string
	SectionTitle string
	BookTitle    string
	Authors      []string
	// Only is true when the passage is its book's only one (its first,
	// with no second after it): a note whose whole text is its title is
	// what it says.
	Only bool
}

// Classify returns p's role.
func Classify(p Passage) Role {
	switch {
	case listsUnder(p.ChapterTitle, p.Text), listsUnder(p.SectionTitle, p.Text),
		listsPages(p.Text), listsDivisions(p.Text):
		return Contents
	case saysLittle(p) && !p.Only:
		return Bare
	}
	return Content
}
