package retrieve

import (
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/passage"
	"github.com/grimoire-search/grimoire/internal/shingle"
)

// A library often holds one text more than once: editions of a novel, a
// copy with other front matter, the same licence at the end of many
// files; a book may too (a notice in every chapter). Such a passage is
// one hit, found where it scored best, listing the other books, or the
// other place in its own, that hold it (Hit.AlsoIn); a search returns
// limit distinct passages.
//
// Two passages of different books are the same text when they share
// enough of the word 3-grams (shingles) of the shorter one, counted over
// at least shingleFloor of them: editionShare for books of the same title
// (editions of one work), sameTextShare for others (a novel and an
// anthology that holds it, a licence many files carry). Words are compared
// folded to lower case, without accents or punctuation, so quotation
// marks, dashes and line breaks that differ between editions do not
// count; shingles, rather than whole texts, because editions cut their
// chunks at other places, and abridged ones drop sentences.
//
// Measured on the three Alice editions of the corpus (Gutenberg text and
// EPUB, and an abridged EPUB with its own wording and broken words) beside
// the 52 other books of the corpus that grimoire reads (8,634 chunks in
// all), per pair of chunks from different books: the corresponding
// passages of the two full editions share 0.9 to 1.0, and never less than
// 0.5 where their chunks are cut elsewhere; those of the abridged edition
// 0.3 to 1.0, four in five 0.4 or more (the Cheshire Cat's, 0.48).
// Passages of different works never share between 0.35 and 0.5, and above
// 0.5 only text that is indeed the same (the Gutenberg licence, a Creative
// Commons notice, a glossary quoting a definition). On SciFact no two
// abstracts share 0.4; on NFCorpus, one pair of differently titled
// abstracts shares 0.99, and four pairs of sibling studies (one group's
// two trials, with the same methods) share 0.40 to 0.48: different works,
// which the higher share for other titles keeps apart.
const (
	editionShare  = 0.4
	sameTextShare = 0.5
	// sameBookShare is the share of the longer passage's shingles that
	// makes two passages of one book the same text: a book that says a
	// thing twice (a notice in every chapter, a document bound in twice)
	// says it word for word, where passages alike in form (a law's
	// amendments, two proofs) differ in a word of every few, and a
	// passage that quotes another holds more.
	sameBookShare = 0.9
	// shingleFloor keeps short passages apart: a line of dialogue ("I
	// don't know that, Stubb") shares half its few shingles with many
	// pages of other books.
	shingleFloor = 30
)

// distinct gathers a search's hits, best first, folding each candidate that
// holds the same text as a hit of another book into that hit.
type distinct struct {
	limit int
	hits  []Hit
	// seen holds every candidate already taken from a ranking (kept,
	// folded in, or gone from the index), which a deeper ranking skips.
	seen map[int64]bool
	// heads maps each value of the kept hits' copy signatures to the
	// first of its owners, a list through owners: one map entry and one
	// list cell per value and hit, rather than a slice each. sigs holds
	// each kept hit's signature, and shingles its shingles, worked out
	// from its text when first compared (nil until then).
	heads    map[uint16]int32
	owners   []owner
	sigs     []passage.Signature
	shingles [][]uint64
	byText   map[string][]uint64
	// titles holds each kept hit's book title, folded (titleKey).
	titles []string
	// aside holds the candidates that only point elsewhere, in ranking
	// order, for the places no other passage takes (see pointsElsewhere).
	aside []Hit
	// handed counts the candidates loaded and handed over, which sizes
	// the next batch by how many each hit took.
	handed int
}

// owner is a kept hit that holds a shingle, and the next one that does
// (-1 at the end).
type owner struct{ hit, next int32 }

func newDistinct(limit int) *distinct {
	return &distinct{limit: limit, seen: make(map[int64]bool)}
}

func (d *distinct) full() bool { return len(d.hits) >= d.limit }

// add takes the next candidate, in ranking order. It becomes a hit of its
// own while there is room, or is listed in AlsoIn of the kept hit of
// another book that holds the same text (once per book: a passage that
// straddles two chunks of an edition is still one place). A candidate of
// neither kind, when the hits are full, is left out.
func (d *distinct) add(h Hit) {
	sh := h.Signature
	title := titleKey(h.Book.Title)
	i, exact := d.sameAs(h.Hit, title, sh)
	if i >= 0 {
		if k := &d.hits[i]; !listed(k.AlsoIn, h.BookID) {
			k.AlsoIn = append(k.AlsoIn, h.Hit)
		}
		return
	}
	if d.full() {
		return
	}
	if len(d.heads) == 0 {
		// Passages are alike in length: room for every hit's shingles.
		d.heads = make(map[uint16]int32, d.limit*len(sh))
	}
	k := int32(len(d.hits))
	d.hits = append(d.hits, h)
	d.sigs = append(d.sigs, sh)
	d.shingles = append(d.shingles, exact)
	d.titles = append(d.titles, title)
	for j, x := range sh {
		if j > 0 && sh[j-1] == x {
			continue // one owner per value
		}
		next, ok := d.heads[x]
		if !ok {
			next = -1
		}
		d.heads[x] = int32(len(d.owners))
		d.owners = append(d.owners, owner{k, next})
	}
}

// addAside adds the candidates set aside, in ranking order, to the room
// the others left.
func (d *distinct) addAside() {
	for _, h := range d.aside {
		d.add(h)
	}
	d.aside = nil
}

// sameAs returns the kept hit that shares the largest share of shingles
// with h (of a book titled title, folded, and copy signature sh), if that
// share makes it the same text; else -1. It also returns h's shingles when
// it worked them out (nil when no kept hit came near).
//
// The signatures bound the shingles each kept hit shares with h; only the
// hits whose bound could make them the same text are compared by their
// shingles.
func (d *distinct) sameAs(h index.Hit, title string, sh passage.Signature) (int, []uint64) {
	if len(d.hits) == 0 || len(sh) == 0 {
		return -1, nil
	}
	atMost := make([]int, len(d.hits))
	for _, x := range sh {
		at, ok := d.heads[x]
		for ok && at >= 0 {
			atMost[d.owners[at].hit]++
			at = d.owners[at].next
		}
	}
	var exact []uint64
	best, bestShare := -1, 0.0
	for i, n := range atMost {
		if n == 0 {
			continue
		}
		if share, need := d.share(h, title, len(sh), i, n); share < need || share <= bestShare {
			continue
		}
		if exact == nil {
			exact = d.shinglesOfText(h.Text)
		}
		if share, need := d.share(h, title, len(sh), i, shingle.Shared(exact, d.shinglesOf(i))); share >= need && share > bestShare {
			best, bestShare = i, share
		}
	}
	return best, exact
}

// shinglesOf returns kept hit i's shingles.
func (d *distinct) shinglesOf(i int) []uint64 {
	if d.shingles[i] == nil {
		d.shingles[i] = d.shinglesOfText(d.hits[i].Text)
	}
	return d.shingles[i]
}

// shinglesOfText returns text's shingles, worked out once for all the
// copies of a passage that hold it word for word.
func (d *distinct) shinglesOfText(text string) []uint64 {
	sh, ok := d.byText[text]
	if !ok {
		sh = shingle.Of(text)
		if d.byText == nil {
			d.byText = make(map[string][]uint64)
		}
		d.byText[text] = sh
	}
	return sh
}

// share returns the share of shingles that h (of a book titled title, of
// size shingles) and kept hit i have in common when they share shared of
// them, and the share that makes them the same text (above 1 where they
// cannot be).
func (d *distinct) share(h index.Hit, title string, size, i, shared int) (share, need float64) {
	share = sameShare(shared, size, len(d.sigs[i]))
	need = neededShare(title, d.titles[i])
	if k := d.hits[i]; k.BookID == h.BookID {
		// Passages next to each other share the overlap that
		// chunking repeats, not their text.
		if k.Index-h.Index <= 1 && h.Index-k.Index <= 1 {
			return 0, 2
		}
		// Both passages whole: a book may quote itself.
		share = float64(shared) / float64(max(size, len(d.sigs[i]), shingleFloor))
		need = sameBookShare
	}
	return share, need
}

// sameShare is the share of shingles two passages of a and b shingles,
// shared of them, have in common: of the shorter one's, and of at least
// shingleFloor.
func sameShare(shared, a, b int) float64 {
	return float64(shared) / float64(max(min(a, b), shingleFloor))
}

// neededShare is the share of shingles that makes two passages of books
// titled a and b (folded) the same text.
func neededShare(a, b string) float64 {
	if a != "" && a == b {
		return editionShare
	}
	return sameTextShare
}

// listed reports whether book is among places.
func listed(places []index.Hit, book int64) bool {
	for _, p := range places {
		if p.BookID == book {
			return true
		}
	}
	return false
}

// titleKey folds a title for comparing editions: its words, lower case,
// one space apart ("Alice's Adventures in Wonderland" and "ALICE’S
// ADVENTURES IN WONDERLAND" are one title).
func titleKey(title string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}
