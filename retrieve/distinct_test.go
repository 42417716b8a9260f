package retrieve

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/passage"
	"github.com/grimoire-search/grimoire/internal/shingle"
)

// The passage about the croquet game, as the Gutenberg text and an
// abridged edition word it.
const (
	croquetFull     = `The players all played at once without waiting for turns, quarrelling all the while, and fighting for the hedgehogs; and in a very short time the Queen was in a furious passion, and went stamping about, and shouting 'Off with his head!' or 'Off with her head!' about once in a minute. Alice began to feel very uneasy: to be sure, she had not as yet had any dispute with the Queen, but she knew that it might happen any minute, 'and then,' thought she, 'what would become of me? They're dreadfully fond of beheading people here; the great wonder is, that there's any one left alive!'`
	croquetAbridged = `The players all played at once, without waiting for turns, quarrelling all the while and fighting for the hedgehogs; and in a very short time, the Queen was in a furious passion and went stamping about and shouting, "Off with his head!" or "Off with her head!" about once in a minute. "They're dreadfully fond of beheading people here," thought Alice; "the great wonder is that there's anyone left alive!"`
	pigAndPepper    = `So she set the little creature down, and felt quite relieved to see it trot away quietly into the wood. 'If it had grown up,' she said to herself, 'it would have made a dreadfully ugly child: but it makes rather a handsome pig, I think.' And she began thinking over other children she knew, who might do very well as pigs.`
)

func hitOf(id, book int64, text string) Hit {
	var h Hit
	h.ID, h.BookID, h.Text = id, book, text
	h.Signature = passage.SignatureOf(text)
	return h
}

func at(h Hit, index int) Hit {
	h.Index = index
	return h
}

func titled(h Hit, title string) Hit {
	h.Book.Title = title
	return h
}

// siblings returns two passages of 160 words that share their first 72,
// as two studies by one group share their methods.
func siblings() (string, string) {
	var a, b []string
	for i := range 20 {
		for j := range 8 {
			a = append(a, fmt.Sprintf("a%d_%d", i, j))
			if i < 9 {
				b = append(b, fmt.Sprintf("a%d_%d", i, j))
			} else {
				b = append(b, fmt.Sprintf("b%d_%d", i, j))
			}
		}
	}
	return strings.Join(a, " "), strings.Join(b, " ")
}

// TestDistinctEditionsOfOneTitle: editions of one work fold at a lower
// share than texts of different titles.
func TestDistinctEditionsOfOneTitle(t *testing.T) {
	a, b := siblings()
	shA, shB := shingle.Of(a), shingle.Of(b)
	if share := sameShare(shingle.Shared(shA, shB), len(shA), len(shB)); share < editionShare || share >= sameTextShare {
		t.Fatalf("the siblings share %.2f: the test needs a share between the two thresholds", share)
	}
	for _, tc := range []struct {
		titleA, titleB string
		folded         bool
	}{
		{"Alice's Adventures in Wonderland", "ALICE’S ADVENTURES IN WONDERLAND", true},
		{"Mediterranean diet and sexual function in women", "Mediterranean diet and erectile function", false},
		{"", "", false},
	} {
		d := newDistinct(10)
		d.add(titled(hitOf(1, 10, a), tc.titleA))
		d.add(titled(hitOf(2, 20, b), tc.titleB))
		if folded := len(d.hits) == 1; folded != tc.folded {
			t.Errorf("%q and %q: folded = %v, want %v", tc.titleA, tc.titleB, folded, tc.folded)
		}
	}
}

func TestDistinctFolds(t *testing.T) {
	// half keeps every other sentence of the full passage.
	sentences := strings.SplitAfter(croquetFull, ";")
	half := strings.Join(sentences[:len(sentences)/2], " ")
	type want struct {
		id     int64
		alsoIn []int64
	}
	tests := []struct {
		name  string
		limit int
		cands []Hit
		want  []want
	}{
		{"editions fold into the best", 10,
			[]Hit{hitOf(1, 10, croquetAbridged), hitOf(2, 20, croquetFull), hitOf(3, 30, croquetFull), hitOf(4, 20, pigAndPepper)},
			[]want{{1, []int64{2, 3}}, {4, nil}}},
		{"a book's neighbouring passages never fold", 10,
			[]Hit{at(hitOf(1, 10, croquetFull), 4), at(hitOf(2, 10, croquetFull), 5)},
			[]want{{1, nil}, {2, nil}}},
		{"a book that says a passage twice is one hit", 10,
			[]Hit{at(hitOf(1, 10, croquetFull), 4), at(hitOf(2, 10, croquetFull), 40), at(hitOf(3, 10, croquetFull), 80)},
			[]want{{1, []int64{2}}}},
		{"a book's passages that only look alike stay apart", 10,
			[]Hit{at(hitOf(1, 10, croquetFull), 4), at(hitOf(2, 10, half), 40)},
			[]want{{1, nil}, {2, nil}}},
		{"a book is listed once", 10,
			[]Hit{hitOf(1, 10, croquetFull), hitOf(2, 20, croquetFull), hitOf(3, 20, croquetAbridged)},
			[]want{{1, []int64{2}}}},
		{"half a passage is the same text", 10,
			[]Hit{hitOf(1, 10, croquetFull), hitOf(2, 20, half)},
			[]want{{1, []int64{2}}}},
		{"other text stays", 10,
			[]Hit{hitOf(1, 10, croquetFull), hitOf(2, 20, pigAndPepper), hitOf(3, 30, pigAndPepper)},
			[]want{{1, nil}, {2, []int64{3}}}},
		{"a short line shared is not the same passage", 10,
			[]Hit{hitOf(1, 10, "Off with her head, said the Queen."), hitOf(2, 20, "Off with her head, said the Queen.")},
			[]want{{1, nil}, {2, nil}}},
		{"full: copies still fold, new passages are left out", 1,
			[]Hit{hitOf(1, 10, croquetFull), hitOf(2, 20, pigAndPepper), hitOf(3, 30, croquetAbridged)},
			[]want{{1, []int64{3}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newDistinct(tc.limit)
			for _, c := range tc.cands {
				d.add(c)
			}
			var got []want
			for _, h := range d.hits {
				w := want{id: h.ID}
				for _, o := range h.AlsoIn {
					w.alsoIn = append(w.alsoIn, o.ID)
				}
				got = append(got, w)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDistinctPicksTheClosest folds a passage that resembles two kept hits
// into the one it shares most with.
func TestDistinctPicksTheClosest(t *testing.T) {
	sentences := strings.SplitAfter(croquetFull, ";")
	half := strings.Join(sentences[:len(sentences)/2], " ")
	d := newDistinct(10)
	d.add(hitOf(1, 10, croquetFull))
	d.add(hitOf(2, 20, pigAndPepper))
	d.add(hitOf(3, 30, half+" "+pigAndPepper))
	if len(d.hits) != 2 || len(d.hits[0].AlsoIn) != 0 || len(d.hits[1].AlsoIn) != 1 || d.hits[1].AlsoIn[0].ID != 3 {
		t.Errorf("hits %+v", d.hits)
	}
}

// editions is a library of four editions of one book, each holding the
// same four passages with its own punctuation and case.
func editions() []book {
	passages := []string{croquetFull, pigAndPepper,
		`The Caterpillar and Alice looked at each other for some time in silence: at last the Caterpillar took the hookah out of its mouth, and addressed her in a languid, sleepy voice, and asked who she was, as the lantern swung above them.`,
		`There was a table set out under a tree in front of the house, and the March Hare and the Hatter were having tea at it: a Dormouse was sitting between them, fast asleep, under a paper lantern hung from a branch.`}
	var out []book
	for e := range 4 {
		b := book{title: fmt.Sprintf("Alice, edition %d", e+1), typ: "markdown"}
		for i, p := range passages {
			switch e {
			case 1:
				p = strings.ToUpper(p)
			case 2:
				p = strings.NewReplacer("'", "’", ",", "", ";", ".").Replace(p)
			case 3:
				p = strings.ReplaceAll(p, " ", "\n")
			}
			// Every passage holds the query's word, some more often.
			p += strings.Repeat(" lantern", 1+i)
			b.chunks = append(b.chunks, p)
			b.vecs = append(b.vecs, unit(1, float32(i), float32(e), 0))
		}
		out = append(out, b)
	}
	return out
}

func TestSearchReturnsDistinctPassages(t *testing.T) {
	w := newIndex(t, editions())
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"a pool deep enough", Options{Mode: FTS}},
		// Four copies of each passage: a pool of 3 finds the distinct
		// ones only by going deeper.
		{"a shallow pool", Options{Mode: FTS, CandidatePool: 3}},
		{"rerank", Options{Mode: Hybrid, Fusion: Rerank, FTSWeight: 1, VectorWeight: 0.01, Dim: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(&w.DB, fakeEmbedder{}, tc.opts)
			hits := search(t, s, Query{Text: "lantern", Limit: 3})
			if len(hits) != 3 {
				t.Fatalf("%d hits, want 3 distinct passages: %s", len(hits), titles(hits))
			}
			seen := map[int]bool{}
			for _, h := range hits {
				if seen[h.Index] {
					t.Errorf("passage %d twice", h.Index)
				}
				seen[h.Index] = true
				places := map[int64]bool{h.BookID: true}
				for _, o := range h.AlsoIn {
					if places[o.BookID] || o.Index != h.Index || o.Book.Slug == "" || len(o.Book.Paths) == 0 {
						t.Errorf("passage %d also in %+v", h.Index, o)
					}
					places[o.BookID] = true
				}
				// A shallow pool may not reach every copy of the last.
				if len(places) != 4 && tc.opts.CandidatePool == 0 {
					t.Errorf("passage %d: %d editions of 4", h.Index, len(places))
				}
			}
			// The kept hit is the best copy, and its copies' scores do not
			// add to its own: 1/(k+1) for the first of one arm's ranking.
			if tc.opts.Mode == FTS && (hits[0].FTSRank != 1 || hits[0].Score != 1/(60+1.0)) {
				t.Errorf("first hit: rank %d, score %v", hits[0].FTSRank, hits[0].Score)
			}
		})
	}
}

// TestSearchKeepsItsPrefix checks that going deeper only adds hits: the
// places of those a shallow pool found stay.
func TestSearchKeepsItsPrefix(t *testing.T) {
	w := newIndex(t, editions())
	deep := search(t, New(&w.DB, nil, Options{Mode: FTS}), Query{Text: "lantern", Limit: 4})
	shallow := search(t, New(&w.DB, nil, Options{Mode: FTS, CandidatePool: 2}), Query{Text: "lantern", Limit: 4})
	if len(deep) != 4 || len(shallow) == 0 {
		t.Fatalf("deep %d hits, shallow %d", len(deep), len(shallow))
	}
	for i := range shallow {
		if shallow[i].ID != deep[i].ID {
			t.Errorf("hit %d: %d from a shallow pool, %d from a deep one", i, shallow[i].ID, deep[i].ID)
		}
	}
}

func TestHitViewElsewhere(t *testing.T) {
	w := newIndex(t, editions())
	lib := &Library{DB: &w.DB, Searcher: New(&w.DB, nil, Options{Mode: FTS})}
	found, err := lib.Search(t.Context(), Query{Text: "hookah caterpillar", Limit: 1})
	views := found.Hits
	if err != nil || len(views) != 1 {
		t.Fatalf("%v %+v", err, views)
	}
	v := views[0]
	if len(v.AlsoIn) != 3 {
		t.Fatalf("also in %+v", v.AlsoIn)
	}
	for i, e := range v.Elsewhere() {
		p := v.AlsoIn[i]
		if e.Book != p.Book || e.Path != p.Path || e.Citation != p.Citation || e.ChunkIndex != p.ChunkIndex ||
			e.Text != v.Text || e.Score != v.Score || len(e.AlsoIn) != 0 {
			t.Errorf("elsewhere %d: %+v from %+v", i, e, p)
		}
		if e.Book == v.Book || !strings.Contains(e.Citation, "edition") {
			t.Errorf("elsewhere %d cites %q of %s", i, e.Citation, e.Book)
		}
	}
	// Without copies, also_in is an empty list, not null.
	other := newIndex(t, smallShelf())
	found, err = (&Library{DB: &other.DB, Searcher: New(&other.DB, nil, Options{Mode: FTS})}).Search(t.Context(), Query{Text: "honey nectar"})
	views = found.Hits
	if err != nil || len(views) != 1 || views[0].AlsoIn == nil || len(views[0].AlsoIn) != 0 {
		t.Errorf("%v %+v", err, views)
	}
}

// BenchmarkDistinct measures folding a search's candidates: 30 passages of
// 250 words for 10 hits, every third a copy of an earlier one.
func BenchmarkDistinct(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	var cands []Hit
	for i := range 30 {
		ws := make([]string, 250)
		for j := range ws {
			ws[j] = "w" + strconv.Itoa(rng.Intn(5000))
		}
		text := strings.Join(ws, " ")
		if i%3 == 2 {
			text = cands[i-1].Text
		}
		cands = append(cands, hitOf(int64(i), int64(i), text))
	}
	b.ReportAllocs()
	for b.Loop() {
		d := newDistinct(10)
		for _, c := range cands {
			d.add(c)
		}
	}
}
