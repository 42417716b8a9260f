package retrieve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/vec8"
	"github.com/grimoire-search/grimoire/library"
)

func TestMatchExpr(t *testing.T) {
	tests := []struct{ in, want string }{
		{"hello world", `"hello" OR "world"`},
		{"Hello hello HELLO", `"hello"`},
		{`c++ "unbalanced`, `"c" OR "unbalanced"`},
		{"title:fog NEAR(a b) AND NOT x*", `"title" OR "fog" OR "near" OR "a" OR "b" OR "and" OR "not" OR "x"`},
		{"château", `"château"`},
		{"世界人権", `"世界人権"`},
		{"!!! ---", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := MatchExpr(tc.in); got != tc.want {
			t.Errorf("MatchExpr(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if n := strings.Count(MatchExpr(strings.Repeat("w", 1)+" "+wordsN(500)), " OR "); n != maxTerms-1 {
		t.Errorf("%d terms, want the cap of %d", n+1, maxTerms)
	}
}

func wordsN(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(" w")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteByte(byte('a' + i%26))
		b.WriteByte(byte('a' + i/26%26))
	}
	return b.String()
}

// fakeEmbedder maps known texts to fixed vectors; anything else to a vector
// near none of them.
type fakeEmbedder map[string][]float32

func (f fakeEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	if v, ok := f[text]; ok {
		return v, nil
	}
	if strings.IndexFunc(text, unicode.IsLetter) < 0 {
		return make([]float32, 4), nil // no features, like the built-in embedder
	}
	return []float32{0, 0, 0, 1}, nil
}

type book struct {
	title, author, typ string
	chunks             []string
	vecs               [][]float32
	// chapters, when set, titles each chunk's chapter (a chapter of one
	// section, titled alike); else the book is one chapter titled as it.
	chapters []string
}

// newIndex builds an index with ready books, each chunk with its vector.
func newIndex(t testing.TB, books []book) *index.Writer {
	t.Helper()
	ctx := context.Background()
	w, err := index.OpenWriter(ctx, filepath.Join(t.TempDir(), "g.db"), "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	for i, b := range books {
		path := filepath.Join("/lib", b.title+".md")
		h := library.SumBytes([]byte(b.title))
		if err := w.Update(ctx, func(tx *index.Tx) error {
			_, err := tx.PutFile(ctx, library.File{Path: path, Root: "/lib", Hash: h, SourceType: b.typ}, library.Hash{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		pending, err := w.BooksToIngest(ctx)
		if err != nil || len(pending) != 1 {
			t.Fatalf("book %d: %v %v", i, pending, err)
		}
		id := pending[0].ID
		var chunks []library.Chunk
		var ch []library.Chapter
		for j, text := range b.chunks {
			title := b.title
			if b.chapters != nil {
				title = b.chapters[j]
			}
			if len(ch) == 0 || ch[len(ch)-1].Title != title {
				ch = append(ch, library.Chapter{Index: len(ch), Title: title, Sections: []library.Section{{ChapterIndex: len(ch), Title: title, FirstChunk: j}}})
			}
			c := &ch[len(ch)-1]
			c.Sections[0].Text = strings.TrimPrefix(c.Sections[0].Text+"\n\n"+text, "\n\n")
			c.Sections[0].ChunkCount++
			chunks = append(chunks, library.Chunk{Index: j, ChapterIndex: c.Index, Heading: title, Text: text, State: library.ChunkContextualized})
		}
		authors := []string{b.author}
		if err := w.StoreParsed(ctx, id, index.BookMeta{Title: b.title, Authors: authors, SourceType: b.typ}, ch, chunks); err != nil {
			t.Fatal(err)
		}
		todo, _ := w.ChunksToEmbed(ctx, id, 100)
		ids := make([]int64, len(todo))
		for j, k := range todo {
			ids[j] = k.ID
		}
		if err := w.StoreEmbeddings(ctx, ids, b.vecs); err != nil {
			t.Fatal(err)
		}
		if _, err := w.FinishBook(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func unit(v ...float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

func smallShelf() []book {
	return []book{
		{"Owls", "Ann Birder", "markdown", []string{"Owls hunt mice at night.", "Owls have silent feathers."}, [][]float32{unit(1, 0, 0, 0), unit(1, 0.1, 0, 0)}, nil},
		{"Bees", "Bob Keeper", "text", []string{"Bees make honey from nectar.", "A hive has one queen."}, [][]float32{unit(0, 1, 0, 0), unit(0, 1, 0.1, 0)}, nil},
		{"Nocturnal", "Cy Night", "markdown", []string{"Creatures of the dark: bats and moths."}, [][]float32{unit(0.9, 0, 0.1, 0)}, nil},
	}
}

func search(t *testing.T, s *Searcher, q Query) []Hit {
	t.Helper()
	hits, err := s.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func titles(hits []Hit) string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Book.Title)
	}
	return strings.Join(out, ",")
}

func TestArmsAndFusion(t *testing.T) {
	w := newIndex(t, smallShelf())
	emb := fakeEmbedder{"creatures of the night": unit(1, 0, 0.05, 0)}
	s := New(&w.DB, emb, Options{Dim: 4})

	// Full text alone: only the chunk with the words.
	hits := search(t, s, Query{Text: "honey nectar", Mode: FTS})
	if titles(hits) != "Bees" || hits[0].FTSRank != 1 || hits[0].VectorRank != 0 {
		t.Fatalf("fts: %s %+v", titles(hits), hits)
	}
	// Vectors alone find what shares no word with the query.
	hits = search(t, s, Query{Text: "creatures of the night", Mode: Vector, Limit: 3})
	if len(hits) != 3 || hits[0].Book.Title != "Owls" || hits[0].VectorRank != 1 {
		t.Fatalf("vector: %s", titles(hits))
	}
	// Hybrid: the chunk both arms rank high comes first.
	hits = search(t, s, Query{Text: "creatures of the night", Mode: Hybrid, Limit: 5})
	if hits[0].FTSRank == 0 || hits[0].VectorRank == 0 {
		t.Fatalf("hybrid: %s %+v", titles(hits), hits[0])
	}
	for _, h := range hits[1:] {
		if h.Score > hits[0].Score {
			t.Errorf("hits not in score order: %s", titles(hits))
		}
	}
	// Scores are RRF: 1/(k+rank) per arm.
	want := 1/(60+float64(hits[0].FTSRank)) + 1/(60+float64(hits[0].VectorRank))
	if math.Abs(hits[0].Score-want) > 1e-12 {
		t.Errorf("score %v, want %v", hits[0].Score, want)
	}
	// Every hit carries its citation data.
	if hits[0].Book.Slug == "" || len(hits[0].Book.Paths) == 0 || hits[0].ChapterTitle == "" {
		t.Errorf("citation incomplete: %+v", hits[0])
	}
}

func TestFiltersApplyToBothArms(t *testing.T) {
	w := newIndex(t, smallShelf())
	emb := fakeEmbedder{"owls": unit(1, 0, 0, 0)}
	s := New(&w.DB, emb, Options{Dim: 4})
	for _, q := range []Query{
		{Text: "owls", Type: "text", Limit: 10},
		{Text: "owls", Author: "keeper", Limit: 10},
		{Text: "owls", Book: "bees", Limit: 10},
	} {
		for _, mode := range []string{FTS, Vector, Hybrid} {
			q.Mode = mode
			for _, h := range search(t, s, q) {
				if h.Book.Title != "Bees" {
					t.Errorf("%s %+v: hit from %s", mode, q, h.Book.Title)
				}
			}
		}
	}
	if _, err := s.Search(context.Background(), Query{Text: "owls", Book: "nope"}); fault.CodeOf(err) != fault.NotFound {
		t.Errorf("unknown book: %v", err)
	}
}

func TestPhrasingsAreFused(t *testing.T) {
	w := newIndex(t, smallShelf())
	s := New(&w.DB, nil, Options{Mode: FTS})
	hits := search(t, s, Query{Text: "honey", Phrasings: []string{"silent feathers"}})
	got := titles(hits)
	if !strings.Contains(got, "Bees") || !strings.Contains(got, "Owls") {
		t.Fatalf("fused phrasings: %s", got)
	}
}

func TestBadQueries(t *testing.T) {
	w := newIndex(t, smallShelf())
	s := New(&w.DB, fakeEmbedder{}, Options{Dim: 4})
	for _, q := range []Query{
		{Text: ""},
		{Text: "   "},
		{Text: "owls", Limit: -1},
		{Text: "owls", Limit: MaxLimit + 1},
		{Text: strings.Repeat("x", MaxQueryRunes+1)},
		{Text: "owls", Mode: "semantic"},
	} {
		if _, err := s.Search(context.Background(), q); fault.CodeOf(err) != fault.Invalid {
			t.Errorf("%+v: %v", q, err)
		}
	}
	// Punctuation only is not an error: there is just nothing to match.
	if hits := search(t, s, Query{Text: "?!"}); len(hits) != 0 {
		t.Errorf("punctuation matched %s", titles(hits))
	}
}

func TestVectorIndexTopKAndRefresh(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var books []book
	for i := range 30 {
		b := book{title: "b" + string(rune('a'+i%26)) + string(rune('a'+i/26)), author: "x", typ: "text"}
		for range 20 {
			b.chunks = append(b.chunks, "chunk text")
			v := make([]float32, 8)
			for k := range v {
				v[k] = float32(rng.NormFloat64())
			}
			b.vecs = append(b.vecs, unit(v...))
		}
		books = append(books, b)
	}
	w := newIndex(t, books)
	var vi vectorIndex
	ctx := context.Background()
	if err := vi.refresh(ctx, &w.DB, 8, ""); err != nil {
		t.Fatal(err)
	}
	if vi.len() != 600 {
		t.Fatalf("%d vectors loaded", vi.len())
	}
	q := unit(1, 2, 3, 4, 5, 6, 7, 8)
	got := vi.search(q, func(int64) bool { return true }, 25)
	var all []float32
	for _, b := range books {
		for _, v := range b.vecs {
			all = append(all, dot(q, v))
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] > all[j] })
	for i, s := range got {
		if math.Abs(float64(s.score-all[i])) > 0.02 {
			t.Fatalf("rank %d: %v, want about %v", i, s.score, all[i])
		}
	}
	// New rows are appended; a prune makes the next refresh reload.
	gen, _, _ := w.VectorGeneration(ctx)
	if err := w.Update(ctx, func(tx *index.Tx) error {
		if err := tx.RemoveFile(ctx, "/lib/baa.md"); err != nil {
			return err
		}
		_, err := tx.Prune(ctx)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if g, _, _ := w.VectorGeneration(ctx); g == gen {
		t.Fatal("prune did not change the vector generation")
	}
	if err := vi.refresh(ctx, &w.DB, 8, ""); err != nil {
		t.Fatal(err)
	}
	if vi.len() != 580 {
		t.Errorf("%d vectors after pruning a 20-chunk book", vi.len())
	}
}

// dot is the exact float inner product, the reference for the quantized
// scan.
func dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestQuantizedRecall checks that 8-bit vectors find what float vectors
// find: recall@50 of the quantized scan, which the vector arm returns as
// it is, against the exact one.
func TestQuantizedRecall(t *testing.T) {
	const n, dim, k = 20000, 512, 50
	rng := rand.New(rand.NewSource(3))
	// Clustered, like embeddings: 200 centres plus noise.
	centres := make([][]float32, 200)
	for i := range centres {
		c := make([]float32, dim)
		for j := range c {
			c[j] = float32(rng.NormFloat64())
		}
		centres[i] = unit(c...)
	}
	var vi vectorIndex
	vi.dim = dim
	exact := make([][]float32, n)
	for i := range n {
		c := centres[rng.Intn(len(centres))]
		v := make([]float32, dim)
		for j := range v {
			v[j] = c[j] + float32(rng.NormFloat64()*0.03)
		}
		v = unit(v...)
		exact[i] = v
		q := make([]int8, dim)
		vi.scales = append(vi.scales, vec8.Quantize(q, v))
		vi.vecs = append(vi.vecs, q...)
		vi.chunks = append(vi.chunks, int64(i))
		vi.books = append(vi.books, 1)
	}
	total := 0.0
	for range 20 {
		c := centres[rng.Intn(len(centres))]
		q := make([]float32, dim)
		for j := range q {
			q[j] = c[j] + float32(rng.NormFloat64()*0.03)
		}
		q = unit(q...)
		type sc struct {
			id int64
			s  float32
		}
		var all []sc
		for i, v := range exact {
			all = append(all, sc{int64(i), dot(q, v)})
		}
		sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
		want := map[int64]bool{}
		for _, a := range all[:k] {
			want[a.id] = true
		}
		hit := 0
		for _, g := range vi.search(q, func(int64) bool { return true }, k) {
			if want[g.chunk] {
				hit++
			}
		}
		total += float64(hit) / k
	}
	if recall := total / 20; recall < 0.97 {
		t.Errorf("recall@%d of the 8-bit scan: %.3f", k, recall)
	} else {
		t.Logf("recall@%d against float32 of the 8-bit scan: %.3f", k, recall)
	}
}

func TestDot8(t *testing.T) {
	q := []float32{1, -2, 0.5, 3, 4}
	d := []int8{1, 2, -4, 127, -128}
	want := float32(1*1 + -2*2 + 0.5*-4 + 3*127 + 4*-128)
	if got := dot8(q, d); got != want {
		t.Errorf("dot8 = %v, want %v", got, want)
	}
}

func FuzzSearch(f *testing.F) {
	for _, s := range []string{"owls", `"unbalanced`, "a AND (b OR", "NEAR(x y, 3)", "col:term", "*", "^owls", "世界", "\x00\xff", strings.Repeat("é", 500)} {
		f.Add(s)
	}
	w := newIndex(f, smallShelf())
	rrf := New(&w.DB, fakeEmbedder{}, Options{Dim: 4})
	rerank := New(&w.DB, fakeEmbedder{}, Options{Dim: 4, Fusion: Rerank, FTSWeight: 1, VectorWeight: 0.01})
	f.Fuzz(func(t *testing.T, q string) {
		for _, s := range []*Searcher{rrf, rerank} {
			for _, mode := range []string{Hybrid, FTS, Vector} {
				_, err := s.Search(context.Background(), Query{Text: q, Phrasings: []string{q + " honey"}, Mode: mode})
				if err != nil && fault.CodeOf(err) != fault.Invalid {
					t.Fatalf("%s %s, query %q: %v", s.opts.Fusion, mode, q, err)
				}
			}
		}
	})
}

func TestCoverageAndNoMatch(t *testing.T) {
	w := newIndex(t, smallShelf())
	s := New(&w.DB, nil, Options{Mode: FTS})
	hits := search(t, s, Query{Text: "Owls hunt mice at night"})
	if len(hits) == 0 || hits[0].Coverage < 0.99 || NoMatch(hits) {
		t.Fatalf("exact sentence: %+v", hits)
	}
	// Stems count: "hunting" holds for "hunt"? No: "hunting" is in the
	// question, "hunt" in the passage; a shared stem of 5 letters.
	hits = search(t, s, Query{Text: "owls hunting mice"})
	if len(hits) == 0 || hits[0].Coverage < 0.99 {
		t.Errorf("inflected question: coverage %v", hits[0].Coverage)
	}
	hits = search(t, s, Query{Text: "quantum chromodynamics of owls in gluon plasma"})
	if !NoMatch(hits) {
		t.Errorf("unrelated question: coverage %v", hits[0].Coverage)
	}
}

// TestNoMatchReadsWholePassages: a question word far into a passage is
// held (it was not past the first 64 distinct words), and the verdict does
// not depend on the limit asked for.
func TestNoMatchReadsWholePassages(t *testing.T) {
	var long []string
	for i := range 120 {
		long = append(long, fmt.Sprintf("filler%d", i))
	}
	passage := strings.Join(long, " ") + " and then the Cheshire Cat appeared on a branch."
	lib := append(smallShelf(), book{"Alice", "", "text", []string{passage}, [][]float32{unit(0, 0, 1, 0)}, nil})
	w := newIndex(t, lib)
	s := New(&w.DB, nil, Options{Mode: FTS})
	for _, limit := range []int{1, 3, 10} {
		hits := search(t, s, Query{Text: "where does the Cheshire Cat appear?", Limit: limit})
		if len(hits) == 0 || hits[0].Coverage < 0.5 || NoMatch(hits) {
			t.Fatalf("limit %d: %+v", limit, hits)
		}
	}
	// Porter stems "als" to "al" and "are" to "ar": passages that say the
	// words count though the stem is shorter than three letters.
	lib = append(lib, book{"Neurology", "", "text", []string{"Patients with ALS are treated with riluzole."}, [][]float32{unit(0, 0, 1, 0)}, nil})
	w = newIndex(t, lib)
	s = New(&w.DB, nil, Options{Mode: FTS})
	if hits := search(t, s, Query{Text: "ALS", Limit: 3}); len(hits) == 0 || hits[0].Coverage < 0.99 || NoMatch(hits) {
		t.Errorf("a two-letter stem: %+v", hits)
	}
	for _, limit := range []int{1, 10} {
		hits := search(t, s, Query{Text: "how do I bake sourdough bread with owls?", Limit: limit})
		if !NoMatch(hits) {
			t.Errorf("limit %d: a question on words the library lacks: no no-match (coverage %v)", limit, hits[0].Coverage)
		}
	}
}

func TestRerankFindsOtherWordForms(t *testing.T) {
	// Both chunks match only "charts" for full text ("tidal" is not
	// "tide" to the stemmer) and are as long: BM25 ties them. Sub-words
	// see that one says the question's other word in another form.
	lib := append(smallShelf(),
		book{"Sea", "", "markdown", []string{"Sea charts of the ocean."}, [][]float32{unit(0, 1, 0, 0)}, nil},
		book{"Harbour", "", "markdown", []string{"Tidal charts of the harbour."}, [][]float32{unit(0, 1, 0, 0)}, nil},
		book{"Wind", "", "markdown", []string{"Gales blow in winter.", "Calm comes in summer.", "Fog rolls in at dawn."}, [][]float32{unit(0, 0, 1, 0), unit(0, 0, 1, 0), unit(0, 0, 1, 0)}, nil},
	)
	w := newIndex(t, lib)
	for _, emb := range []QueryEmbedder{fakeEmbedder{}, nil} {
		s := New(&w.DB, emb, Options{Dim: 4, Fusion: Rerank, FTSWeight: 1, VectorWeight: 0.01})
		hits := search(t, s, Query{Text: "tide charts", Mode: FTS})
		if titles(hits) != "Sea,Harbour" {
			t.Fatalf("fts: %s", titles(hits))
		}
		hits = search(t, s, Query{Text: "tide charts", Mode: Hybrid, Limit: 2})
		if titles(hits) != "Harbour,Sea" {
			t.Fatalf("embedder %v: rerank: %s", emb != nil, titles(hits))
		}
		// The hit keeps its place in BM25's order and says what moved it.
		if hits[0].FTSRank != 2 || hits[0].SubwordScore <= hits[1].SubwordScore {
			t.Errorf("scores: %+v", hits)
		}
		// Rank fusion leaves BM25's order alone.
		s = New(&w.DB, emb, Options{Dim: 4, Fusion: RRF, FTSWeight: 1, VectorWeight: 0.01})
		if hits := search(t, s, Query{Text: "tide charts", Limit: 2}); titles(hits) != "Sea,Harbour" {
			t.Errorf("rrf: %s", titles(hits))
		}
	}
}

func TestCheckLimit(t *testing.T) {
	tests := []struct {
		limit, most, want int
		invalid           bool
	}{
		{0, MaxLimit, DefaultLimit, false},
		{1, MaxLimit, 1, false},
		{MaxLimit, MaxLimit, MaxLimit, false},
		{MaxLimit + 1, MaxLimit, 0, true},
		{-1, MaxLimit, 0, true},
		{50, 50, 50, false},
		{51, 50, 0, true},
	}
	for _, tc := range tests {
		got, err := CheckLimit(tc.limit, tc.most)
		if got != tc.want || (err != nil) != tc.invalid || (err != nil && fault.CodeOf(err) != fault.Invalid) {
			t.Errorf("CheckLimit(%d, %d) = %d, %v", tc.limit, tc.most, got, err)
		}
	}
}

func TestPageNote(t *testing.T) {
	p := func(n int) *int { return &n }
	tests := []struct {
		start, end *int
		want       string
	}{
		{nil, nil, ""},
		{p(3), nil, " (p. 3)"},
		{p(3), p(3), " (p. 3)"},
		{p(3), p(5), " (pp. 3–5)"},
	}
	for _, tc := range tests {
		if got := PageNote(" ", tc.start, tc.end); got != tc.want {
			t.Errorf("PageNote(%v, %v) = %q, want %q", tc.start, tc.end, got, tc.want)
		}
	}
}

func TestBadQueryErrors(t *testing.T) {
	for _, q := range []Query{{Text: "  "}, {Text: strings.Repeat("x", MaxQueryRunes+1)}, {Text: "a", Phrasings: []string{"b", "c", "d", "e", "f", "g", "h", "i"}}} {
		_, err := phrasingsOf(q)
		if !errors.Is(err, ErrBadQuery) || fault.CodeOf(err) != fault.Invalid {
			t.Errorf("phrasingsOf(%.20q…): %v, want a bad query with code Invalid", q.Text, err)
		}
	}
	if p, err := phrasingsOf(Query{Text: "owls"}); err != nil || len(p) != 1 {
		t.Errorf("a plain query: %v %v", p, err)
	}
}

// A server answers while its vectors load for the first time, from full
// text, rather than waiting for the load (seconds on a large library).
func TestSearchDoesNotWaitForFirstLoad(t *testing.T) {
	w := newIndex(t, smallShelf())
	s := New(&w.DB, fakeEmbedder{"honey nectar": unit(0, 1, 0, 0)}, Options{Dim: 4})
	// A first load under way: the flag set, the slab's lock held.
	s.vecs.loading.Store(true)
	s.vecs.mu.Lock()
	defer s.vecs.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan []Hit, 1)
	go func() {
		hits, err := s.Search(ctx, Query{Text: "honey nectar", Mode: Hybrid})
		if err != nil {
			t.Error(err)
		}
		done <- hits
	}()
	select {
	case hits := <-done:
		if titles(hits) != "Bees" || hits[0].VectorRank != 0 {
			t.Errorf("while the vectors load: %s %+v", titles(hits), hits)
		}
	case <-ctx.Done():
		t.Fatal("the search waited for the vectors' first load")
	}
}
