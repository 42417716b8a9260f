package retrieve

import "github.com/grimoire-search/grimoire/index"

// Some passages only point elsewhere: a table of contents, a list of
// figures, an index, a cover, a title page, a printed page number that an
// EPUB keeps as a section of its own. They hold a book's most telling
// words (every chapter's title, the author's name) in a few characters, so
// they score well for any question about the book, and answer none: asked
// "What is zero trust?", NIST SP 800-207's table of contents took eight of
// the ten places. A search ranks them after every other passage it finds,
// so they appear only when nothing else does. Which they are is worked out
// when a book is stored (package passage, which holds the rules) and read
// with each hit.

// pointsElsewhere reports whether h only points elsewhere (see above).
func pointsElsewhere(h index.Hit) bool { return h.Role.PointsElsewhere() }
