// Package shingle says when two passages hold the same text, whatever
// their quotation marks, line breaks and accents: it cuts a text into its
// shingles, the hashes of its runs of three consecutive words, and keeps a
// book's smallest ones as a sketch of all of them, by which two books that
// share text find each other.
package shingle

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Of returns the distinct hashes of text's runs of three consecutive
// words, sorted. A word is a run of letters and digits, folded
// to lower case and without diacritics ("Natásha" is "natasha", however
// the accent is encoded), as the full-text index folds them; each Han,
// Hiragana or Katakana character is a word of its own, since those
// scripts do not separate words with spaces.
func Of(text string) []uint64 {
	out := make([]uint64, 0, len(text)/4+8) // words average five letters and a space
	each(text, func(x uint64) { out = append(out, x) })
	slices.Sort(out)
	return slices.Compact(out)
}

// each calls fn with the hash of each run of three words of text, in
// order, repeats included.
func each(text string, fn func(uint64)) {
	// a and b are the hashes of the two words before; each position gets
	// its own odd multiplier, so that "a b c" and "b a c" differ.
	var a, b uint64
	words := 0
	emit := func(c uint64) {
		if words++; words >= 3 {
			fn(mix(a*0x9e3779b97f4a7c15 ^ b*0xc2b2ae3d27d4eb4f ^ c))
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

// Shared counts the values two sorted lists of shingles (as Of returns
// them, or any values sorted) have in common, a value repeated in both
// counted as often as the fewer repeats.
func Shared[S ~[]T, T cmp.Ordered](a, b S) int {
	n := 0
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			a = a[1:]
		case a[0] > b[0]:
			b = b[1:]
		default:
			n++
			a, b = a[1:], b[1:]
		}
	}
	return n
}

// SketchSize is how many shingles a sketch keeps.
const SketchSize = 128

// A Sketch keeps the SketchSize smallest distinct shingles of the texts
// added to it. Two books' sketches share about as large a part of their
// values as the books share of their shingles (their Jaccard similarity):
// editions of one text nearly all, books that only share common phrases
// ("one of the") a few.
type Sketch struct {
	// heap is a max-heap of the smallest shingles seen, at most
	// SketchSize.
	heap []uint64
}

// Add adds shingles, as Of returns them.
func (s *Sketch) Add(shingles []uint64) {
	for _, x := range shingles {
		s.add(x)
	}
}

// AddText adds the shingles of text, and returns how many it has, repeats
// included. It is Add(Of(text)) without sorting them.
func (s *Sketch) AddText(text string) int {
	n := 0
	each(text, func(x uint64) {
		n++
		s.add(x)
	})
	return n
}

func (s *Sketch) add(x uint64) {
	if len(s.heap) == SketchSize && x >= s.heap[0] || slices.Contains(s.heap, x) {
		return
	}
	if len(s.heap) < SketchSize {
		s.heap = append(s.heap, x)
		s.up(len(s.heap) - 1)
		return
	}
	s.heap[0] = x
	s.down(0)
}

func (s *Sketch) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if s.heap[p] >= s.heap[i] {
			return
		}
		s.heap[p], s.heap[i] = s.heap[i], s.heap[p]
		i = p
	}
}

func (s *Sketch) down(i int) {
	for {
		l, big := 2*i+1, i
		if l < len(s.heap) && s.heap[l] > s.heap[big] {
			big = l
		}
		if r := l + 1; r < len(s.heap) && s.heap[r] > s.heap[big] {
			big = r
		}
		if big == i {
			return
		}
		s.heap[i], s.heap[big] = s.heap[big], s.heap[i]
		i = big
	}
}

// Values returns the sketch's shingles, sorted.
func (s *Sketch) Values() []uint64 {
	out := slices.Clone(s.heap)
	slices.Sort(out)
	return out
}

// Resemblance estimates the share of shingles two books have in common
// (their Jaccard similarity) from their sketches' sorted values: the share
// of the smallest SketchSize values of both that each holds.
func Resemblance(a, b []uint64) float64 {
	seen, both := 0, 0
	for seen < SketchSize && (len(a) > 0 || len(b) > 0) {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0] < b[0]:
			a = a[1:]
		case len(a) == 0 || b[0] < a[0]:
			b = b[1:]
		default:
			both++
			a, b = a[1:], b[1:]
		}
		seen++
	}
	if seen == 0 {
		return 0
	}
	return float64(both) / float64(seen)
}
