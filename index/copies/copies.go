// Package copies holds what tells the index which books hold the same
// text, and where a passage's copy may be in another book: a book's
// sketch and the share of each other's text two resembling books hold,
// and a passage's copy candidates from its rarest words' lists. The
// index stores what it works out; this package decides.
package copies

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/grimoire-search/grimoire/index/fulltext"
	"github.com/grimoire-search/grimoire/internal/shingle"
)

// Resemblance is the least resemblance of two books' sketches that makes
// them share text. Measured on the corpus's 64 books (2,016 pairs): the
// editions of one text resemble each other 0.96–1.0, the abridged Alice
// the full one 0.29–0.30, four scanned pages of NIST SP 800-207 the whole
// document 0.125; books that share no passage, 0.047 at most (common
// phrases).
const Resemblance = 0.1

// MinShingles: books of fewer shingles (a few passages: an abstract, a
// note) get an empty sketch. Their smallest shingles would be most of
// their text, common phrases too ("in this study"), which every such
// book's sketch then holds: a library of 5,000 abstracts took twice as
// long to index, finding them. Their copies score alike anyway.
const MinShingles = 4 * shingle.SketchSize

// ValueBooks bounds the books read for each value of a new sketch: a value
// most books hold (a phrase every book uses) says little, and books that
// share text share many values.
const ValueBooks = 32

// NeedValues is how many values two sketches share at least when they
// resemble each other by Resemblance: those both books hold among the
// smallest shingle.SketchSize.
func NeedValues() int { return int(math.Ceil(Resemblance * shingle.SketchSize)) }

// Sketch is a book's text being sketched: its sketch, and how many
// shingles it has.
type Sketch struct {
	shingle.Sketch
	N int
}

// Add sketches more of the book's text.
func (s *Sketch) Add(text string) { s.N += s.AddText(text) }

// Values returns the sketch's values, sorted, or none for a book of too
// few shingles to tell (MinShingles).
func (s *Sketch) Values() []uint64 {
	if s.N < MinShingles {
		return nil
	}
	return s.Sketch.Values()
}

// Shares returns, for a book of n shingles whose sketch is values and
// another of m shingles whose sketch is theirs, the share of the other's
// text the book holds and the share of its own the other holds; ok is
// false when they do not resemble each other by Resemblance.
func Shares(values []uint64, n int, theirs []uint64, m int) (held, holds float64, ok bool) {
	j := shingle.Resemblance(values, theirs)
	if j < Resemblance {
		return 0, 0, false
	}
	// The shingles both hold, from the share of all they hold between
	// them.
	both := j * float64(n+m) / (1 + j)
	return min(1, both/float64(m)), min(1, both/float64(n)), true
}

// Terms returns the index terms of words, lower case words as a search's
// are, each once.
func Terms(words []string) []string {
	var terms []string
	for _, w := range words {
		fulltext.EachToken(w, func(tok string) {
			if t := fulltext.Term(tok); t != "" && !slices.Contains(terms, t) {
				terms = append(terms, t)
			}
		})
	}
	return terms
}

// TermList is a term's list in one book, and how many of its chunks hold
// the term.
type TermList struct {
	Chunks int
	Data   []byte
}

// Candidates returns the chunks of a book that hold, in their text, the
// most of the rarest (in the book) rarest of terms, at most limit of them,
// most first (ties by id), from the book's lists of them (lists: the book
// holds a term it has a list of): the rarest words tell a passage best.
func Candidates(terms []string, lists map[string]TermList, rarest, limit int) ([]int64, error) {
	var held []string
	for _, t := range terms {
		if _, ok := lists[t]; ok {
			held = append(held, t)
		}
	}
	slices.SortFunc(held, func(a, b string) int {
		return cmp.Or(cmp.Compare(lists[a].Chunks, lists[b].Chunks), strings.Compare(a, b))
	})
	count := make(map[int64]float64)
	var touched []int64
	for _, t := range held[:min(rarest, len(held))] {
		err := fulltext.EachPosting(lists[t].Data, func(p fulltext.Posting) {
			if p.TF[2] == 0 {
				return // in a heading or context only
			}
			if _, ok := count[p.Chunk]; !ok {
				touched = append(touched, p.Chunk)
			}
			count[p.Chunk]++
		})
		if err != nil {
			return nil, fmt.Errorf("term %q: %w", t, err)
		}
	}
	var out []int64
	for _, h := range fulltext.Best(touched, nil, func(c int64) float64 { return count[c] }, limit) {
		out = append(out, h.ChunkID)
	}
	return out, nil
}
