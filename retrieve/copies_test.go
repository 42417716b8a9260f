package retrieve

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// guideBooks are two editions of one guide: one whose headings name it
// (its title is in every chunk's heading), one whose headings do not, and
// a third book of other text. Every passage of the guide says "pure".
func guideBooks() []book {
	rng := rand.New(rand.NewPCG(7, 8))
	var text, other []string
	for i := range 60 {
		w := make([]string, 60)
		for j := range w {
			w[j] = fmt.Sprintf("g%d", rng.IntN(5000))
		}
		w[i%len(w)] = "pure"
		text = append(text, strings.Join(w, " "))
		for j := range w {
			w[j] = fmt.Sprintf("o%d", rng.IntN(5000))
		}
		other = append(other, strings.Join(w, " ")+" pure")
	}
	vecs := make([][]float32, len(text))
	for i := range vecs {
		vecs[i] = unit(1, 0)
	}
	return []book{
		{title: "Professor Frisby's Guide", typ: "docx", chunks: text, vecs: vecs},
		{title: "mostly adequate", typ: "markdown", chunks: text, vecs: vecs},
		{title: "Other", typ: "markdown", chunks: other, vecs: vecs},
	}
}

// TestSearchListsCopiesTheCandidatesMissed: a question that names the
// guide finds the edition whose headings name it; the candidates, all of
// that edition, miss the other one, which the hits list all the same.
func TestSearchListsCopiesTheCandidatesMissed(t *testing.T) {
	w := newIndex(t, guideBooks())
	for _, mode := range []string{FTS, Hybrid} {
		s := New(&w.DB, nil, Options{Mode: mode})
		hits := search(t, s, Query{Text: "pure, according to Professor Frisby's guide", Limit: 5})
		if len(hits) != 5 {
			t.Fatalf("%s: %d hits", mode, len(hits))
		}
		for _, h := range hits {
			if h.Book.Title != "Professor Frisby's Guide" {
				t.Errorf("%s: a hit from %q", mode, h.Book.Title)
			}
			if len(h.AlsoIn) != 1 || h.AlsoIn[0].Book.Title != "mostly adequate" || h.AlsoIn[0].Index != h.Index || h.AlsoIn[0].Text != h.Text {
				t.Errorf("%s: passage %d also in %+v", mode, h.Index, h.AlsoIn)
			}
		}
	}
	// A filter that leaves the other edition out leaves it out of also_in.
	s := New(&w.DB, nil, Options{Mode: FTS})
	hits := search(t, s, Query{Text: "pure, according to Professor Frisby's guide", Limit: 3, Type: "docx"})
	for _, h := range hits {
		if len(h.AlsoIn) != 0 {
			t.Errorf("filtered to DOCX: passage %d also in %s", h.Index, h.AlsoIn[0].Book.Title)
		}
	}
}

// TestCopyLookupsAreBounded: with many editions that the candidates miss,
// a search looks in at most copyLookups of them.
func TestCopyLookupsAreBounded(t *testing.T) {
	books := guideBooks()[:2]
	for i := range 6 {
		b := books[1]
		b.title = fmt.Sprintf("mostly adequate, copy %d", i)
		books = append(books, b)
	}
	w := newIndex(t, books)
	hits := search(t, New(&w.DB, nil, Options{Mode: FTS}), Query{Text: "pure, according to Professor Frisby's guide", Limit: 4})
	listed := 0
	for _, h := range hits {
		listed += len(h.AlsoIn)
	}
	if listed != copyLookups {
		t.Errorf("%d places listed, want %d (one per lookup)", listed, copyLookups)
	}
	if len(hits[0].AlsoIn) != 7 {
		t.Errorf("the first hit lists %d of the 7 other editions", len(hits[0].AlsoIn))
	}
}

func TestLongestWords(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", ""},
		{"a b cd", ""},
		{"The Referential transparency of pure functions; the PURE ones", "transparency referential functions pure"},
	} {
		if got := strings.Join(longestWords(tc.text, 4), " "); got != tc.want {
			t.Errorf("longestWords(%q) = %s, want %s", tc.text, got, tc.want)
		}
	}
}
