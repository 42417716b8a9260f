package retrieve

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A library often holds one text more than once: editions of a novel, a
// copy with other front matter, the same licence at the end of many
// files. Such a passage is one hit, found in the book where it scored
// best, listing the others (Hit.AlsoIn); a search returns limit distinct
// passages.
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
	// heads maps each shingle of the kept hits to the first of its
	// owners, a list through owners: one map entry and one list cell per
	// shingle and hit, rather than a slice each. sizes counts each kept
	// hit's shingles.
	heads  map[uint64]int32
	owners []owner
	sizes  []int
	// titles holds each kept hit's book title, folded (titleKey).
	titles []string
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
	sh := shingles(h.Text)
	title := titleKey(h.Book.Title)
	if i := d.sameAs(h.BookID, title, sh); i >= 0 {
		k := &d.hits[i]
		for _, o := range k.AlsoIn {
			if o.BookID == h.BookID {
				return
			}
		}
		k.AlsoIn = append(k.AlsoIn, h.Hit)
		return
	}
	if d.full() {
		return
	}
	if len(d.heads) == 0 {
		// Passages are alike in length: room for every hit's shingles.
		d.heads = make(map[uint64]int32, d.limit*len(sh))
	}
	i := int32(len(d.hits))
	d.hits = append(d.hits, h)
	d.sizes = append(d.sizes, len(sh))
	d.titles = append(d.titles, title)
	for _, x := range sh {
		next, ok := d.heads[x]
		if !ok {
			next = -1
		}
		d.heads[x] = int32(len(d.owners))
		d.owners = append(d.owners, owner{i, next})
	}
}

// sameAs returns the kept hit of another book than book (titled title,
// folded) that shares the largest share of shingles with sh, if that share
// makes it the same text; else -1.
func (d *distinct) sameAs(book int64, title string, sh []uint64) int {
	if len(d.hits) == 0 || len(sh) == 0 {
		return -1
	}
	shared := make([]int, len(d.hits))
	for _, x := range sh {
		at, ok := d.heads[x]
		for ok && at >= 0 {
			shared[d.owners[at].hit]++
			at = d.owners[at].next
		}
	}
	best, bestShare := -1, 0.0
	for i, n := range shared {
		if n == 0 || d.hits[i].BookID == book {
			continue
		}
		share := float64(n) / float64(max(min(len(sh), d.sizes[i]), shingleFloor))
		need := sameTextShare
		if title != "" && d.titles[i] == title {
			need = editionShare
		}
		if share >= need && share > bestShare {
			best, bestShare = i, share
		}
	}
	return best
}

// shingles returns the distinct hashes of text's runs of three consecutive
// words, sorted. A word is a run of letters and digits, folded
// to lower case and without diacritics ("Natásha" is "natasha", however
// the accent is encoded), as the full-text index folds them; each Han,
// Hiragana or Katakana character is a word of its own, since those
// scripts do not separate words with spaces.
func shingles(text string) []uint64 {
	out := make([]uint64, 0, len(text)/4+8) // words average five letters and a space
	// a and b are the hashes of the two words before; each position gets
	// its own odd multiplier, so that "a b c" and "b a c" differ.
	var a, b uint64
	words := 0
	emit := func(c uint64) {
		if words++; words >= 3 {
			out = append(out, mix(a*0x9e3779b97f4a7c15^b*0xc2b2ae3d27d4eb4f^c))
		}
		a, b = b, c
	}
	w, inWord := uint64(fnvOffset), false
	var buf [utf8.UTFMax]byte
	var nfd []byte
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
				w, inWord = (w^uint64(r))*fnvPrime, true
				continue
			}
		case unicode.IsMark(r):
			continue
		case r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
			if inWord {
				emit(w)
				w, inWord = fnvOffset, false
			}
			emit(fnv(fnvOffset, buf[:utf8.EncodeRune(buf[:], r)]))
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			// Decomposed, the letter's accents are marks, which are left out.
			nfd = norm.NFD.Append(nfd[:0], buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))]...)
			for i := 0; i < len(nfd); {
				c, n := utf8.DecodeRune(nfd[i:])
				if !unicode.IsMark(c) {
					w = fnv(w, nfd[i:i+n])
				}
				i += n
			}
			inWord = true
			continue
		}
		if inWord {
			emit(w)
			w, inWord = fnvOffset, false
		}
	}
	if inWord {
		emit(w)
	}
	slices.Sort(out)
	return slices.Compact(out)
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

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

// mix is SplitMix64's finalizer: it spreads the bits of a shingle's words
// over the whole hash.
func mix(x uint64) uint64 {
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
