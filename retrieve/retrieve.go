// Package retrieve answers searches over the index: a full-text arm (FTS5
// BM25) and a vector arm (brute force over an in-memory slab) run with the
// same filters, and weighted reciprocal rank fusion merges their rankings,
// and those of several phrasings of one question. Every hit carries its
// citation. The package only reads.
package retrieve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/index/fulltext"
	"github.com/grimoire-search/grimoire/internal/passage"
	"github.com/grimoire-search/grimoire/subword"
)

// Modes of retrieval.
const (
	Hybrid = "hybrid"
	FTS    = "fts"
	Vector = "vector"
)

// QueryEmbedder embeds search queries.
type QueryEmbedder interface {
	// EmbedQuery returns the unit-length vector of a query, of the same
	// model and dimension as the stored vectors.
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Options tune retrieval. Zero values take the defaults.
type Options struct {
	// Mode is Hybrid, FTS or Vector; default Hybrid.
	Mode string
	// RRFK is reciprocal rank fusion's k; default 60.
	RRFK float64
	// CandidatePool is how many candidates each arm returns; default 50.
	CandidatePool int
	// FTSWeight and VectorWeight weigh each arm's ranks in the fusion.
	FTSWeight, VectorWeight float64
	// Columns weighs the BM25 columns.
	Columns index.FTSWeights
	// Fusion is how hybrid search merges the arms: RRF (the default) or
	// Rerank; Auto is for Open to settle.
	Fusion string
	// Dim is the embedder's vector length.
	Dim int
	// Reranker, when set, re-scores the fusion's best CandidatePool hits
	// and orders the results by its scores; nil keeps the fusion's order.
	Reranker PassageReranker
	// Logger is told when the reranker fails; nil discards.
	Logger *slog.Logger
	// SourceTypes are the types a book can have, as the format registry
	// names them: a type filter outside them is refused, naming them. Nil
	// checks nothing (retrieve does not know the parsers).
	SourceTypes []string
}

// DefaultOptions returns what New takes for the options left at zero.
// grimoire.toml starts from ConfigDefaults.
func DefaultOptions() Options {
	return Options{
		Mode: Hybrid, RRFK: 60, CandidatePool: 50,
		FTSWeight: 1, VectorWeight: 1,
		Columns: index.FTSWeights{Heading: 3, Context: 1, Text: 1},
	}
}

func (o Options) normalized() Options {
	d := DefaultOptions()
	if o.Mode == "" {
		o.Mode = d.Mode
	}
	if o.RRFK <= 0 {
		o.RRFK = d.RRFK
	}
	if o.CandidatePool <= 0 {
		o.CandidatePool = d.CandidatePool
	}
	if o.FTSWeight == 0 && o.VectorWeight == 0 {
		o.FTSWeight, o.VectorWeight = d.FTSWeight, d.VectorWeight
	}
	if o.Columns == (index.FTSWeights{}) {
		o.Columns = d.Columns
	}
	if o.Fusion == "" {
		o.Fusion = RRF
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Query is one search.
type Query struct {
	// Text is the question; Phrasings are further ways of asking it, fused
	// with it.
	Text      string
	Phrasings []string
	// Filters: a book slug, part of an author's name, a source type, and
	// an absolute path: a book file, or a folder the book has a file in.
	// Filters that select no book are an error that says which.
	Book, Author, Type, Path string
	// Tag and Series select the books a calibre library tags so, or puts
	// in a series whose name holds Series.
	Tag, Series string
	// Collection and ItemType select the items of a Zotero library that
	// a collection (or its sub-collections) holds, or of an item type.
	Collection, ItemType string
	// Limit is the number of hits; 0 is DefaultLimit, at most MaxLimit.
	Limit int
	// Mode overrides Options.Mode when set.
	Mode string
	// textOnly: in hybrid search, when full text finds too few passages,
	// the vector arm does not fill the places it leaves (see runArms).
	// Its places come after every passage full text finds, and a
	// one-off process would spend more on loading the vectors than on
	// the rest of the search.
	textOnly bool
}

// Limits on the number of hits one search returns.
const (
	DefaultLimit = 10
	MaxLimit     = 100
)

// CheckLimit returns the number of hits a search asking for limit returns
// (DefaultLimit for 0), or an Invalid error when limit is outside 1 to
// most. Front ends that return hits to a model pass a most below MaxLimit.
func CheckLimit(limit, most int) (int, error) {
	switch {
	case limit == 0:
		return DefaultLimit, nil
	case limit < 0 || limit > most:
		return 0, fault.Errorf(fault.Invalid, "limit must be between 1 and %d (got %d)", most, limit)
	}
	return limit, nil
}

// MaxQueryRunes is the longest query text accepted; longer text is refused,
// not cut silently.
const MaxQueryRunes = 4000

// Hit is one search result with its citation and scores.
type Hit struct {
	index.Hit
	// Score is the fused score, or the reranker's relevance (RerankScore)
	// when the search was reranked; higher is better. Fused scores compare
	// hits of one search, not across searches.
	Score float64
	// FTSRank and VectorRank are 1-based ranks in each arm (0: not found
	// by that arm); FTSScore is BM25 (higher is better), VectorScore cosine.
	FTSRank     int
	VectorRank  int
	FTSScore    float64
	VectorScore float64
	// SubwordScore is the sub-word similarity a reranked hit was scored
	// with (0–1; 0 when not reranked).
	SubwordScore float64
	// Coverage is the share (0–1) of the question's distinctive words that
	// the passage holds, the question being Query.Text, not its further
	// phrasings; see NoMatch.
	Coverage float64
	// AlsoIn are the other books that hold the same passage (other
	// editions, copies), each once, in ranking order, and the other place
	// of the hit's own book that says it word for word; their scores do
	// not add to this hit's.
	AlsoIn []index.Hit
	// NoMatch is the search's verdict, the same on every hit: none of its
	// best passages covers the question (see NoMatch).
	NoMatch bool
	// Missing are the question's words that no book of the library holds
	// (see missingWords), the same on every hit.
	Missing []string
	// heldWords is the weight of the question's terms the passage holds,
	// counted in words the library never uses (the rarest there are):
	// what the prompt hook's gate reads besides the share.
	heldWords float64
	// Reranked says the reranker scored the hit: RerankScore is the
	// relevance it gave, on its server's scale, and RerankProbability
	// that as a probability (0–1); see rerank.Score. Unlike fused scores
	// they compare hits across searches, with one reranker.
	Reranked          bool
	RerankScore       float64
	RerankProbability float64
}

// Searcher runs searches. Safe for concurrent use.
type Searcher struct {
	db    *index.DB
	store store
	emb   QueryEmbedder
	opts  Options
	vecs  vectorIndex

	// feats and rarity serve the Rerank fusion.
	feats  *subword.Extractor
	rarity *subword.Rarity

	// What searches share of the library until the index changes (see
	// library): its state, the books each filter selects, the words of
	// the books' titles and authors; and, where the books' postings are
	// not all written yet, the terms' counts.
	libMu   sync.Mutex
	lib     *index.LibraryState
	filters map[index.BookFilter]map[int64]bool
	names   map[string]bool
	df      map[string]int
}

// New returns a searcher over db. emb may be nil when only full-text search
// is wanted.
func New(db *index.DB, emb QueryEmbedder, opts Options) *Searcher {
	feats := subword.NewExtractor()
	return &Searcher{db: db, store: db, emb: emb, opts: opts.normalized(), feats: feats, rarity: subword.NewRarity(feats)}
}

// Prepare loads the vectors into memory (or the ones added since the last
// call), so that the first search does not pay for it.
func (s *Searcher) Prepare(ctx context.Context) error {
	if s.emb == nil || s.opts.Dim == 0 {
		return nil
	}
	return s.vecs.refresh(ctx, s.db, s.opts.Dim, "")
}

// Search runs q.
func (s *Searcher) Search(ctx context.Context, q Query) (hits []Hit, err error) {
	err = s.withState(ctx, func(ctx context.Context) (err error) {
		hits, err = s.search(ctx, q)
		return err
	})
	return hits, err
}

func (s *Searcher) search(ctx context.Context, q Query) ([]Hit, error) {
	r, err := s.settle(ctx, q)
	if err != nil {
		return nil, err
	}
	// The verdict reads the best noMatchDepth hits whatever the limit.
	d := newDistinct(max(r.limit, noMatchDepth))
	for round := 1; ; round++ {
		arm, vecLists, err := s.runArms(ctx, r)
		if err != nil {
			return nil, err
		}
		ftsLists := make([][]index.FTSHit, len(arm))
		for i, l := range arm {
			ftsLists[i] = l.hits
		}
		if err := s.prefetch(ctx, r, d, round > 1, arm, vecLists); err != nil {
			return nil, err
		}
		if err := s.topUpAll(ctx, r, arm, ftsLists); err != nil {
			return nil, err
		}
		reranked := make(map[int64]rerankScores)
		if r.mode == Hybrid && s.opts.Fusion == Rerank {
			if err := s.rerankAll(ctx, r, ftsLists, reranked); err != nil {
				return nil, err
			}
		}
		fused := s.fuse(ftsLists, vecLists, reranked)
		if s.opts.Reranker != nil {
			if err := s.crossRerank(ctx, r, fused); err != nil {
				return nil, err
			}
		}
		// Another round only for the hits asked for: the verdict reads
		// what the first one found beyond them. Before it, one batch:
		// what the next round reads holds what this one leaves.
		another := round < maxRounds && cutShort(r.pool, ftsLists, vecLists)
		if err := s.load(ctx, r, fused, d, another); err != nil {
			return nil, err
		}
		if !another || len(d.hits) >= r.limit {
			if another {
				if err := s.load(ctx, r, fused, d, false); err != nil {
					return nil, err
				}
			}
			break
		}
		// Passages held by several books took the places: ask the arms
		// for more candidates. The hits found so far keep their places.
		r.pool *= poolGrowth
	}
	d.addAside()
	if err := s.completeCopies(ctx, r, d, r.limit); err != nil {
		return nil, err
	}
	out := d.hits
	if err := s.judge(ctx, r.phrasings[0], out); err != nil {
		return nil, err
	}
	return out[:min(len(out), r.limit)], nil
}

// maxRounds bounds how often a search asks its arms again for a deeper pool
// when duplicates left it short of limit distinct hits, and poolGrowth is
// how much deeper the next round's pool is: one round more, four times as
// deep, reads in one batch what the copies of sixty editions leave.
const (
	maxRounds  = 2
	poolGrowth = 4
)

// cutShort reports whether an arm stopped at the pool, so that a deeper
// pool would find more candidates.
func cutShort(pool int, ftsLists [][]index.FTSHit, vecLists [][]scored) bool {
	for _, l := range ftsLists {
		if len(l) >= pool {
			return true
		}
	}
	for _, l := range vecLists {
		if len(l) >= pool {
			return true
		}
	}
	return false
}

// request is a query checked and settled, as the arms run it.
type request struct {
	mode string
	// vectors: the vector arm can run. Without an embedder, hybrid search
	// is full text (re-scored by sub-words when the fusion is Rerank).
	vectors bool
	// textOnly is Query's.
	textOnly  bool
	limit     int
	phrasings []string
	filter    index.BookFilter
	// pool is how many candidates each arm returns.
	pool int
	// queryVecs give each phrasing's query vector, embedded once for
	// whichever of the vector arm and the rerank asks first.
	queryVecs []func() ([]float32, error)
	// texts are the chunks this search has read, for its phases to share.
	texts *textCache
}

// textCache holds the passages one search has loaded (with their texts,
// citations and vectors), so that each is read once: scoreCommon, the
// rerank, the cross-encoder and the hits look at the same candidates.
// Not safe for concurrent use.
type textCache struct {
	store store
	lib   *index.LibraryState
	// vectors says the passages' vectors are read with them: the
	// server's slab holds them otherwise (see vectorOf).
	vectors bool
	m       map[int64]index.Hit
	// gone are the ids asked for that the index no longer holds, or
	// whose book is not ready.
	gone map[int64]bool
}

// get returns the passages of ids (and of others read before), reading
// those not read yet in one question; a chunk that no longer exists is
// absent.
func (c *textCache) get(ctx context.Context, ids []int64) (map[int64]index.Hit, error) {
	if c.m == nil {
		c.m, c.gone = make(map[int64]index.Hit), make(map[int64]bool)
	}
	var missing []int64
	for _, id := range ids {
		if _, ok := c.m[id]; !ok && !c.gone[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return c.m, nil
	}
	got, err := c.store.HitsOf(ctx, missing, c.vectors)
	if err != nil {
		return nil, err
	}
	for _, h := range got {
		c.m[h.ID] = h
	}
	for _, id := range missing {
		if _, ok := c.m[id]; !ok {
			c.gone[id] = true
		}
	}
	return c.m, nil
}

// settle checks q against the searcher's options and settles what the
// arms run with.
func (s *Searcher) settle(ctx context.Context, q Query) (request, error) {
	st, err := s.state(ctx)
	if err != nil {
		return request{}, err
	}
	r := request{mode: q.Mode, vectors: s.emb != nil && s.opts.Dim > 0, textOnly: q.textOnly, limit: q.Limit,
		texts: &textCache{store: s.store, lib: st.lib, vectors: true}}
	if r.mode == "" {
		r.mode = s.opts.Mode
	}
	if !validMode(r.mode) {
		return r, fault.Errorf(fault.Invalid, "unknown search mode %q (want hybrid, fts or vector)", r.mode)
	}
	if r.mode == Vector && !r.vectors {
		return r, fault.Errorf(fault.Invalid, "vector search needs an embedder")
	}
	limit, err := CheckLimit(r.limit, MaxLimit)
	if err != nil {
		return r, err
	}
	r.limit = limit
	if r.phrasings, err = phrasingsOf(q); err != nil {
		return r, err
	}
	typ, err := checkType(q.Type, s.opts.SourceTypes)
	if err != nil {
		return r, err
	}
	r.filter = index.BookFilter{Author: strings.TrimSpace(q.Author), Type: typ, Path: q.Path,
		Tag: strings.TrimSpace(q.Tag), Series: strings.TrimSpace(q.Series),
		Collection: strings.TrimSpace(q.Collection), ItemType: strings.TrimSpace(q.ItemType), ReadyOnly: true}
	if q.Book != "" {
		// The book may be named by a prefix of its slug; the filter
		// takes the whole slug.
		if r.filter.Slug = readySlug(st.lib, q.Book); r.filter.Slug == "" {
			b, err := s.db.Book(ctx, q.Book)
			if err != nil {
				return r, err
			}
			r.filter.Slug = b.Slug
		}
	}
	// The books the filters select, for the arms; when none is ready,
	// which filter leaves none.
	if allowed, err := s.allowed(ctx, st.lib, r.filter); err != nil {
		return r, err
	} else if allowed != nil && len(allowed) == 0 {
		if err := checkSelects(ctx, s.db, r.filter); err != nil {
			return r, err
		}
	}
	r.pool = max(s.opts.CandidatePool, r.limit)
	// A server's vectors, once loaded, are brought up to date with the
	// library the search reads (nothing to read while it is unchanged),
	// and the rerank takes the passages' vectors from them. While the
	// first load runs, the search reads them with the passages.
	if r.vectors && s.vecs.filled.Load() {
		if err := s.vecs.refresh(ctx, s.db, s.opts.Dim, st.lib.Key); err != nil {
			return r, err
		}
		r.texts.vectors = !s.vecs.holds(st.lib.Key)
	}
	// Every word the search weighs, in one question to the index, with
	// the lists of those it ranks by: the rarer ones, or each phrasing's
	// rarest when all its words are common.
	// And the counts of the halves of the question's words, should one
	// be in no chunk (see heldOtherwise).
	st.rarest = keptWhenCommon * len(r.phrasings)
	for _, sp := range questionSpans(r.phrasings[0]) {
		for _, p := range sp.parts {
			for _, h := range halvesOf(p) {
				if t := fulltext.Term(h); t != "" {
					st.countOnly = append(st.countOnly, t)
				}
			}
		}
	}
	_, _, err = s.wordDocs(ctx, searchWords(r.phrasings))
	st.rarest, st.countOnly = 0, nil
	if err != nil {
		return r, err
	}
	// Before the arms, so that each looks for the words the question
	// meant (and the vector arm embeds them).
	if r.phrasings, err = s.respellPhrasings(ctx, r); err != nil {
		return r, err
	}
	r.queryVecs = make([]func() ([]float32, error), len(r.phrasings))
	for i, p := range r.phrasings {
		r.queryVecs[i] = sync.OnceValues(func() ([]float32, error) {
			v, err := s.emb.EmbedQuery(ctx, p)
			if err != nil {
				return nil, fmt.Errorf("embed query: %w", err)
			}
			return v, nil
		})
	}
	return r, nil
}

// searchWords returns the words a search of phrasings weighs: the words
// of each phrasing, and the question's (the first phrasing's) as the
// no-match verdict and the missing words read them.
func searchWords(phrasings []string) []string {
	var words []string
	for _, p := range phrasings {
		words = append(words, queryWords(p)...)
	}
	for _, sp := range questionSpans(phrasings[0]) {
		words = append(words, sp.parts...)
	}
	words = append(words, tellingNames(phrasings[0])...)
	slices.Sort(words)
	return slices.Compact(words)
}

// phrasingsOf returns the query's text and further phrasings, trimmed,
// without empty ones.
func phrasingsOf(q Query) ([]string, error) {
	var phrasings []string
	for _, p := range append([]string{q.Text}, q.Phrasings...) {
		if p = strings.TrimSpace(p); p != "" {
			if n := len([]rune(p)); n > MaxQueryRunes {
				return nil, badQuery("query is %d characters long; the maximum is %d", n, MaxQueryRunes)
			}
			phrasings = append(phrasings, p)
		}
	}
	if len(phrasings) == 0 {
		return nil, badQuery("empty query")
	}
	if len(phrasings) > 8 {
		return nil, badQuery("%d phrasings; at most 8 are fused", len(phrasings))
	}
	return phrasings, nil
}

// ErrBadQuery is matched by errors.Is for a query that cannot be searched
// as it stands (empty, too long, too many phrasings): the query's fault,
// not the library's or a model server's. Such errors have code Invalid.
var ErrBadQuery = errors.New("the query cannot be searched")

type queryError struct{ err *fault.Error }

func badQuery(format string, args ...any) error {
	return queryError{fault.Errorf(fault.Invalid, format, args...)}
}

func (e queryError) Error() string        { return e.err.Error() }
func (e queryError) Unwrap() error        { return e.err }
func (e queryError) Is(target error) bool { return target == ErrBadQuery }

// runArms runs the full-text and vector arms the search's mode asks for,
// each phrasing's ranking in a list of its own.
func (s *Searcher) runArms(ctx context.Context, r request) (ftsLists []ftsList, vecLists [][]scored, err error) {
	var ftsErr, vecErr error
	if r.mode == Hybrid && len(r.phrasings) == 1 && s.vectorCannotReorder(r.limit) {
		// The vector arm weighs too little to change the first limit
		// places whenever full text fills them: ask it only when it does
		// not (a misspelled or foreign question).
		ftsLists, ftsErr = s.ftsArm(ctx, r)
		if r.vectors && !r.textOnly && ftsErr == nil && (len(ftsLists) == 0 || len(ftsLists[0].hits) < r.limit) {
			vecLists, vecErr = s.vectorArm(ctx, r.queryVecs, r.filter, r.pool)
		}
	} else {
		// The arms run side by side: full-text search keeps one core busy
		// in SQLite while the vector scan uses the others.
		var wg sync.WaitGroup
		if r.mode == FTS || r.mode == Hybrid {
			wg.Go(func() { ftsLists, ftsErr = s.ftsArm(ctx, r) })
		}
		if r.vectors && (r.mode == Vector || r.mode == Hybrid) {
			wg.Go(func() { vecLists, vecErr = s.vectorArm(ctx, r.queryVecs, r.filter, r.pool) })
		}
		wg.Wait()
	}
	if ftsErr != nil {
		return nil, nil, ftsErr
	}
	if vecErr != nil {
		return nil, nil, vecErr
	}
	return ftsLists, vecLists, nil
}

// rerankAll re-orders each phrasing's full-text list in place, and keeps
// the scores the rerank gave each chunk.
func (s *Searcher) rerankAll(ctx context.Context, r request, ftsLists [][]index.FTSHit, scores map[int64]rerankScores) error {
	for i, hits := range ftsLists {
		var qv []float32
		if r.vectors {
			v, err := r.queryVecs[i]()
			if err != nil {
				return err
			}
			if !isZero(v) {
				qv = v
			}
		}
		var err error
		if ftsLists[i], err = s.rerank(ctx, r.texts, r.phrasings[i], qv, hits, scores); err != nil {
			return err
		}
	}
	return nil
}

// fuse merges the arms' rankings by weighted reciprocal rank fusion, keeping
// each hit's best rank and score in either arm.
func (s *Searcher) fuse(ftsLists [][]index.FTSHit, vecLists [][]scored, reranked map[int64]rerankScores) map[int64]*Hit {
	fused := make(map[int64]*Hit)
	get := func(id, book int64) *Hit {
		h := fused[id]
		if h == nil {
			h = &Hit{}
			h.ID, h.BookID = id, book
			fused[id] = h
		}
		return h
	}
	for _, hits := range ftsLists {
		for r, fh := range hits {
			h := get(fh.ChunkID, fh.BookID)
			h.Score += s.opts.FTSWeight / (s.opts.RRFK + float64(r+1))
			if h.FTSRank == 0 || fh.Rank < h.FTSRank {
				h.FTSRank, h.FTSScore = fh.Rank, fh.Score
			}
		}
	}
	// Every reranked chunk came from a full-text list, so it is in fused.
	for id, sc := range reranked {
		h := fused[id]
		h.SubwordScore = sc.subword
		if sc.hasCosine {
			h.VectorScore = sc.cosine
		}
	}
	for _, hits := range vecLists {
		for r, vh := range hits {
			h := get(vh.chunk, vh.book)
			h.Score += s.opts.VectorWeight / (s.opts.RRFK + float64(r+1))
			if h.VectorRank == 0 || r+1 < h.VectorRank {
				h.VectorRank, h.VectorScore = r+1, float64(vh.score)
			}
		}
	}
	return fused
}

// load ranks the fused hits, best first, and hands them to d with their
// citations, in batches, skipping the candidates an earlier round took,
// until d is full and has seen lookahead(limit) candidates more, among
// which it finds the other places of its last hits: copies of one text
// score alike, so they rank close together.
func (s *Searcher) load(ctx context.Context, r request, fused map[int64]*Hit, d *distinct, oneBatch bool) error {
	ranked := slices.DeleteFunc(byScore(fused), func(h *Hit) bool { return d.seen[h.ID] })
	ahead := lookahead(d.limit)
	beyond := 0 // candidates handed over once d was full
	for batches := 1; len(ranked) > 0 && beyond < ahead && (batches == 1 || !oneBatch); batches++ {
		// One question for the candidates the missing hits take (a hit
		// may belong to a book pruned since the candidates were found,
		// or repeat a kept one: copies of a passage, as many as its
		// editions), by how many each hit took so far in this search, a
		// quarter more, and those to look ahead at: most searches need
		// no second.
		n := batchSize(d, ahead-beyond)
		if batches > 1 || heldElsewhere(r.texts.lib, ranked[:min(n, len(ranked))]) {
			// The estimate fell short, or will, with the copies of
			// editions among the candidates: the rest of the
			// candidates, in a last question.
			n = len(ranked)
		}
		batch := ranked[:min(len(ranked), n)]
		ids := make([]int64, len(batch))
		for i, h := range batch {
			ids[i] = h.ID
		}
		got, err := r.texts.get(ctx, ids)
		if err != nil {
			return err
		}
		// The whole batch: what it holds beyond the look-ahead may be
		// the other places of the hits, at no further cost.
		ranked = ranked[len(batch):]
		for _, id := range ids {
			d.seen[id] = true
			l, ok := got[id]
			if !ok {
				continue
			}
			d.handed++
			if d.full() {
				beyond++
			}
			h := *fused[l.ID]
			h.Hit = l
			if pointsElsewhere(l) {
				d.aside = append(d.aside, h)
				continue
			}
			d.add(h)
		}
	}
	return nil
}

// batchSize is how many candidates the next batch of hits reads: the
// missing hits, each taking as many candidates as each hit took so far
// (two at first), a quarter more, and ahead to look ahead at.
func batchSize(d *distinct, ahead int) int {
	per := float64(d.handed+2) / float64(len(d.hits)+1)
	return int(float64(d.limit-len(d.hits))*per*1.25) + 2 + ahead
}

// heldElsewhere reports whether any of hits is of a book whose text other
// books hold (lib.Shared): its copies will take places.
func heldElsewhere(lib *index.LibraryState, hits []*Hit) bool {
	for _, h := range hits {
		if len(lib.Shared[h.BookID]) > 0 {
			return true
		}
	}
	return false
}

// lookahead is how many candidates past the last hit a search examines
// for other places of its hits.
func lookahead(limit int) int { return limit/2 + 2 }

// The no-match verdict. A search says the library probably holds nothing
// that answers the question when, among its best noMatchDepth passages
// (whatever the limit asked for), none covers NoMatchCoverage of the
// question, or none covers absentCoverage while words the library never
// uses carry absentShare of the question's weight in a library of
// absentMinChunks passages or more ("What is the name of
// Don Quixote's horse?" of a library without Don Quixote: every other
// word is common), or none covers nameCoverage when the question names
// something the library never mentions (see tellingNames: "Ophelia" of a
// library without Hamlet; not a code such as "HOXB4", nor an abbreviation
// the question spells out). A configured reranker has the last word (see
// bestProbability). Fused scores cannot say this (they look alike whatever
// matched); coverage is what the passages hold. Calibrated together on the
// dev book questions (answerable and negative), SciFact dev and NFCorpus
// dev (where every claim has an answer), and each set asked of another
// library (where none has): the thresholds that keep every answerable
// set's false verdicts at or below what the earlier rule gave.
const (
	NoMatchCoverage = 0.34
	absentShare     = 0.30
	absentMinChunks = 500
	nameCoverage    = 0.6
	absentCoverage  = 0.45
	noMatchDepth    = 10
)

// NoMatch reports whether hits, as Search or Library.Search returns them,
// hold nothing that answers the question they were found for. No hits
// hold nothing.
func NoMatch[H judged](hits []H) bool { return len(hits) == 0 || hits[0].noMatch() }

// judged are the hits NoMatch reads: Hit and HitView.
type judged interface{ noMatch() bool }

func (h Hit) noMatch() bool     { return h.NoMatch }
func (h HitView) noMatch() bool { return h.NoMatch }

// judge sets each hit's coverage, the words of the question no book
// holds, and the search's verdict on all of them; hits are the search's
// best, in order. question is what the user asked (respelled): further
// phrasings find passages but do not vouch for them, since a phrasing
// such as "the question is which is to be master" matches common words in
// any library. The library holds no answer when none of the first
// noMatchDepth hits covers the question well enough.
func (s *Searcher) judge(ctx context.Context, question string, hits []Hit) error {
	if len(hits) == 0 {
		return nil
	}
	q, err := s.questionWeight(ctx, question)
	if err != nil {
		return err
	}
	missing, err := s.missingWords(ctx, question, maxMissing)
	if err != nil {
		return err
	}
	prefixes := stemPrefixes(q.terms)
	best := 0.0
	for i := range hits {
		h := &hits[i]
		have := passageTerms(h.Heading+" "+h.Context+" "+h.Text, prefixes)
		h.Coverage = q.coverage(have)
		h.heldWords = q.held(have) / q.rarest
		if i < noMatchDepth {
			best = max(best, h.Coverage)
		}
	}
	enough := NoMatchCoverage
	if q.absent > absentShare {
		enough = absentCoverage
	}
	if q.unknownName {
		enough = max(enough, nameCoverage)
	}
	noMatch := best < enough
	if p, ok := bestProbability(hits[:min(len(hits), noMatchDepth)]); ok {
		// A reranker read the question with each passage: when it finds
		// none relevant, the library has no answer whatever the words
		// say; when it finds one likely, the words' verdict yields.
		noMatch = p < rerankNoMatch || noMatch && p < rerankMatch
	}
	for i := range hits {
		hits[i].NoMatch, hits[i].Missing = noMatch, missing
	}
	return nil
}

// The reranker's part in the no-match verdict, on its probability scale
// (rerank.Score): cross-encoders trained as classifiers, such as the
// bge-reranker family, give relevant passages well above one half and
// unrelated ones a few hundredths.
const (
	rerankNoMatch = 0.1
	rerankMatch   = 0.5
)

// bestProbability returns the highest relevance probability a reranker
// gave hits, and false when it scored none of them.
func bestProbability(hits []Hit) (float64, bool) {
	best, ok := 0.0, false
	for _, h := range hits {
		if h.Reranked {
			best, ok = max(best, h.RerankProbability), true
		}
	}
	return best, ok
}

// weightedQuestion is the question's index terms with their weights.
type weightedQuestion struct {
	idf   map[string]float64 // by term
	terms []string           // the keys of idf, sorted
	all   float64
	// absent is the share of the weight on terms the library never uses.
	absent float64
	// unknownName says the question names something the library never
	// mentions.
	unknownName bool
	// rarest is the weight of a word no chunk holds, the most a word can
	// weigh in this library.
	rarest float64
}

// coverage is the share of q's weight on terms the passage holds.
func (q weightedQuestion) coverage(have map[string]bool) float64 {
	if q.all == 0 {
		return 0
	}
	return q.held(have) / q.all
}

// held is q's weight on terms the passage holds.
func (q weightedQuestion) held(have map[string]bool) float64 {
	var got float64
	for _, t := range q.terms {
		if have[t] {
			got += q.idf[t]
		}
	}
	return got
}

// questionWeight turns the question into the full-text index's terms,
// weighted by how rare they are in the library (IDF over chunks).
func (s *Searcher) questionWeight(ctx context.Context, question string) (weightedQuestion, error) {
	var q weightedQuestion
	n, err := s.chunkCount(ctx)
	if err != nil {
		return q, err
	}
	stems, df, err := s.wordDocs(ctx, queryWords(question))
	if err != nil {
		return q, err
	}
	// Sorted, so that sums over them come out the same every time.
	terms := slices.Sorted(maps.Values(stems))
	q.idf = make(map[string]float64, len(terms))
	q.rarest = math.Log(1 + (float64(n)+0.5)/0.5)
	var absent float64
	for _, t := range terms {
		if _, dup := q.idf[t]; dup {
			continue
		}
		if 2*df[t] > n {
			// In most passages ("the", "of"): it tells none apart, and
			// looking for it in every passage would cost more than the
			// rest of the verdict.
			continue
		}
		d := float64(df[t])
		w := math.Log(1 + (float64(n)-d+0.5)/(d+0.5))
		q.idf[t] = w
		q.terms = append(q.terms, t)
		q.all += w
		if df[t] == 0 && !unspaced(t) {
			// A word of a script that joins particles to its words, or
			// writes none apart, may be held in another form.
			absent += w
		}
	}
	// A word a small library lacks says little: it lacks most words.
	if q.all > 0 && n >= absentMinChunks {
		q.absent = absent / q.all
	}
	q.unknownName, err = s.namesUnknown(ctx, question)
	return q, err
}

// passageTerms returns the index terms of a passage's words that begin
// with one of prefixes (see stemPrefixes): the question's terms it holds,
// found without stemming every word, which would cost more than the search.
func passageTerms(text string, prefixes []string) map[string]bool {
	have := make(map[string]bool)
	words := slices.Compact(slices.Sorted(slices.Values(wordsBeginning(index.FoldTerm(text), prefixes))))
	for _, t := range fulltext.Stems(words) {
		have[t] = true
	}
	return have
}

// stemPrefixes returns what a word must begin with to have one of terms
// as its Porter stem: the stem but for its last letter ("happi" of
// "happy"), or its one letter. Letters, not bytes: half a Hebrew letter
// would end the word there.
func stemPrefixes(terms []string) []string {
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		_, last := utf8.DecodeLastRuneInString(t)
		if last == len(t) {
			out = append(out, t)
			continue
		}
		out = append(out, t[:len(t)-last])
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

// vectorCannotReorder reports whether the vector arm's weight is too small
// to change the order of the first limit full-text hits: its largest
// contribution, w/(k+1), is below the smallest gap between the RRF scores of
// two neighbouring ranks up to limit+1, 1/((k+limit)(k+limit+1)); and a hit
// only the vector arm finds scores less than any of those. The built-in
// embedder's automatic weight of 0.01 qualifies up to limit 10.
func (s *Searcher) vectorCannotReorder(limit int) bool {
	k := s.opts.RRFK
	w := s.opts.VectorWeight / s.opts.FTSWeight
	return s.opts.FTSWeight > 0 && w/(k+1) < 1/((k+float64(limit))*(k+float64(limit)+1))
}

// ftsArm ranks each phrasing with BM25, without the words most chunks
// hold (see topUpAll).
func (s *Searcher) ftsArm(ctx context.Context, r request) ([]ftsList, error) {
	var lists []ftsList
	for _, p := range r.phrasings {
		q, err := s.matchExpr(ctx, p)
		if err != nil {
			return nil, err
		}
		if q.match == "" {
			lists = append(lists, ftsList{}) // one list per phrasing, in order
			continue
		}
		hits, all, err := s.searchFTS(ctx, q, r.filter, r.pool)
		if err != nil {
			return nil, err
		}
		l := ftsList{hits: hits}
		if !all {
			l.common = q.common
		}
		lists = append(lists, l)
	}
	return lists, nil
}

// ftsList is a phrasing's full-text ranking, with the common words it
// left out, to be scored over its candidates.
type ftsList struct {
	hits   []index.FTSHit
	common map[string]int
}

// topUpAll adds to each phrasing's ranking the BM25 weight of the common
// words it left out (scoreCommon).
func (s *Searcher) topUpAll(ctx context.Context, r request, arm []ftsList, lists [][]index.FTSHit) error {
	for i, l := range arm {
		if len(l.common) > 0 {
			var err error
			if lists[i], err = s.scoreCommon(ctx, r.texts, l.hits, l.common); err != nil {
				return err
			}
		}
	}
	return nil
}

// prefetch reads, in one question, the passages a round reads first when
// the full-text candidates are all read before they are fused (by the
// common words' top-up or the rerank), or the round follows one that
// copies left short: every full-text candidate, with the passages after
// the best few that the rerank reads, and the vector arm's candidates
// that can reach the round's first batch of hits (all of them after the
// first round). Otherwise the fusion's order is known before any passage
// is read, and the first batch of hits is the round's first question.
func (s *Searcher) prefetch(ctx context.Context, r request, d *distinct, deeper bool, arm []ftsList, vecLists [][]scored) error {
	rerank := r.mode == Hybrid && s.opts.Fusion == Rerank
	whole := deeper || rerank
	for _, l := range arm {
		whole = whole || len(l.common) > 0
	}
	if !whole {
		return nil
	}
	var ids []int64
	short := false
	for _, fl := range arm {
		for _, h := range fl.hits {
			ids = append(ids, h.ChunkID)
		}
		short = short || len(fl.hits) < r.pool
		if rerank {
			// The best few may change places with the top-up: the
			// followers of twice as many.
			for _, f := range followers(fl.hits[:min(len(fl.hits), 2*followFirst)]) {
				ids = append(ids, f.ChunkID)
			}
		}
	}
	// A candidate of the vector arm alone takes one of the first batch's
	// places only when its fused score reaches that of the batch's last
	// place in full text's list (which holds that many): within
	// (wv/wf)·(k+batch)−k places of the top. Candidates in both lists
	// are read with full text's.
	reach := math.MaxInt
	if o := s.opts; !deeper && !short && o.FTSWeight > 0 {
		batch := batchSize(d, lookahead(d.limit))
		reach = int(math.Ceil(o.VectorWeight/o.FTSWeight*(o.RRFK+float64(batch)) - o.RRFK))
	}
	for _, l := range vecLists {
		for _, h := range l[:min(len(l), max(reach, 0))] {
			if !d.seen[h.chunk] {
				ids = append(ids, h.chunk)
			}
		}
	}
	_, err := r.texts.get(ctx, ids)
	return err
}

// searchFTS ranks q's words with BM25, up to pool hits; when that finds
// nothing, and words were left out of it, all of q's words: the words left
// out were the only ones found (a tiny library, where every word is
// common). all says the second ran.
func (s *Searcher) searchFTS(ctx context.Context, q ftsQuery, filter index.BookFilter, pool int) (hits []index.FTSHit, all bool, err error) {
	hits, err = s.rankWords(ctx, q.match, q.kept, filter, pool)
	if err == nil && len(hits) == 0 && q.all != "" {
		hits, err = s.rankWords(ctx, q.all, q.words, filter, pool)
		return hits, true, err
	}
	return hits, false, err
}

// rankWords ranks the chunks of the books filter selects that hold one
// of words by BM25, from the books' postings, up to pool of them. FTS5
// ranks the same match where the postings cannot: while some ready book
// has none yet (an index an older grimoire wrote, until the writer has
// caught up), for a word the tokenizer cuts in several (which needs the
// words' positions), and when a column weighs nothing (its matches
// would score zero, which the postings' sums cannot tell from none).
func (s *Searcher) rankWords(ctx context.Context, match string, words []string, filter index.BookFilter, pool int) ([]index.FTSHit, error) {
	st, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	w := s.opts.Columns
	terms, single := fulltext.WordTerms(words)
	if !st.lib.Postings || !single || w.Heading <= 0 || w.Context <= 0 || w.Text <= 0 {
		return s.db.SearchFTS(ctx, match, filter, w, pool)
	}
	lists, err := s.termLists(ctx, st, terms)
	if err != nil {
		return nil, err
	}
	allowed, err := s.allowed(ctx, st.lib, filter)
	if err != nil {
		return nil, err
	}
	var keep func(int64) bool
	if allowed != nil {
		keep = func(b int64) bool { return allowed[b] }
	}
	return lists.Rank(st.lib.Corpus(), terms, w, keep, pool)
}

// vectorArm ranks each phrasing, given by its query vector, by cosine
// similarity.
func (s *Searcher) vectorArm(ctx context.Context, queryVecs []func() ([]float32, error), filter index.BookFilter, pool int) ([][]scored, error) {
	if s.vecs.loadingFirst() {
		// A server answers its first questions from full text while its
		// vectors load (a second or two for 100,000 chunks) rather than
		// making them wait.
		return nil, nil
	}
	st, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.vecs.refresh(ctx, s.db, s.opts.Dim, st.lib.Key); err != nil {
		return nil, err
	}
	allowed, err := s.allowed(ctx, st.lib, filter)
	if err != nil {
		return nil, err
	}
	keep := func(b int64) bool { return allowed[b] }
	if allowed == nil {
		keep = func(b int64) bool { _, ready := st.lib.Books[b]; return ready }
	}
	var lists [][]scored
	for _, vec := range queryVecs {
		qv, err := vec()
		if err != nil {
			return nil, err
		}
		if isZero(qv) {
			// No features (punctuation only): every chunk would tie.
			continue
		}
		// The vectors are stored at the precision of the scan: its
		// scores are final. A chunk pruned since the refresh is dropped
		// when the hits are loaded.
		lists = append(lists, s.vecs.search(qv, keep, pool))
	}
	return lists, nil
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// maxTerms bounds the terms of one full-text query: more add time, not
// precision.
const maxTerms = 64

// keptWhenCommon is how many of a phrasing's words full text ranks by
// when every one is common: the rarest.
const keptWhenCommon = 3

// commonShare: a query term in more than this share of the chunks is left
// out of the full-text query, since FTS5 would score every chunk that
// holds it ("the" is in nearly all of them); scoreCommon then adds its
// BM25 weight to the candidates the other words found. On 100,000
// synthetic chunks, full-text search takes twice as long with the common
// words in the query (at 0.5).
const commonShare = 0.2

// queryWords returns the distinct words of user text, lower-cased, at most
// maxTerms of them.
func queryWords(text string) []string { return distinctWords(text, maxTerms) }

// distinctWords returns the distinct words of text, lower-cased, in order
// of first use, at most most of them (0: all).
func distinctWords(text string, most int) []string {
	seen := make(map[string]bool)
	var words []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !passage.IsWordRune(r) }) {
		w = strings.ToLower(w)
		if seen[w] {
			continue
		}
		seen[w] = true
		words = append(words, w)
		if len(words) == most {
			break
		}
	}
	return words
}

// MatchExpr turns user text into a safe FTS5 expression: words are taken
// out of the text, each quoted as an FTS5 string, and joined with OR, so no
// input is FTS5 syntax (operators, column filters, unbalanced quotes).
// It returns "" when the text has no words.
func MatchExpr(text string) string { return orExpr(queryWords(text)) }

func orExpr(words []string) string {
	terms := make([]string, len(words))
	for i, w := range words {
		terms[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(terms, " OR ")
}

// ftsQuery is a phrasing as the full-text arm asks it.
type ftsQuery struct {
	// match is MatchExpr without the words that most chunks contain; all
	// is MatchExpr when words were left out, else "".
	match, all string
	// kept are match's words, words all's.
	kept, words []string
	// common are the left-out words' index terms with their document
	// counts, for scoreCommon.
	common map[string]int
}

// matchExpr turns a phrasing into its ftsQuery. When every word is common,
// the rarest few are kept.
func (s *Searcher) matchExpr(ctx context.Context, text string) (ftsQuery, error) {
	words := queryWords(text)
	if len(words) == 0 {
		return ftsQuery{}, nil
	}
	n, err := s.chunkCount(ctx)
	if err != nil {
		return ftsQuery{}, err
	}
	stems, df, err := s.wordDocs(ctx, words)
	if err != nil {
		return ftsQuery{}, err
	}
	docs := func(w string) int { return df[stems[w]] }
	// A word no chunk holds finds nothing: the words full text ranks by
	// are those some chunks hold, and not most.
	var kept, held []string
	for _, w := range words {
		if d := docs(w); d > 0 {
			held = append(held, w)
			if float64(d) <= commonShare*float64(n) {
				kept = append(kept, w)
			}
		}
	}
	if len(kept) == 0 {
		// The rarest, ties by term, as the index reads their lists.
		kept = held
		slices.SortStableFunc(kept, func(a, b string) int {
			return cmp.Or(cmp.Compare(docs(a), docs(b)), strings.Compare(stems[a], stems[b]))
		})
		kept = kept[:min(keptWhenCommon, len(kept))]
	}
	if len(kept) == 0 {
		return ftsQuery{}, nil // no chunk holds any of the words
	}
	q := ftsQuery{match: orExpr(kept), kept: kept}
	if len(kept) == len(words) {
		return q, nil
	}
	q.all, q.words = orExpr(words), words
	q.common = make(map[string]int)
	for _, w := range words {
		if t := stems[w]; t != "" && !slices.Contains(kept, w) {
			q.common[t] = df[t]
		}
	}
	for _, w := range kept {
		delete(q.common, stems[w]) // another form of a kept word
	}
	return q, nil
}

// wordDocs returns the index term of each word (the index holds terms
// folded and stemmed) and how many chunks hold each term.
func (s *Searcher) wordDocs(ctx context.Context, words []string) (stems map[string]string, df map[string]int, err error) {
	stems = fulltext.Stems(words)
	df, err = s.termDocs(ctx, slices.Collect(maps.Values(stems)))
	return stems, df, err
}

// chunkCount returns the number of chunks, as of the search's start.
func (s *Searcher) chunkCount(ctx context.Context) (int, error) {
	st, err := s.state(ctx)
	if err != nil {
		return 0, err
	}
	return int(st.lib.Chunks), nil
}

// termDocs returns how many chunks hold each of terms: from the lists
// the search has read, reading those of the terms it has not (and the
// common ones' counts alone) in one question; where some ready book has
// no postings yet, from FTS5, cached until the index changes.
func (s *Searcher) termDocs(ctx context.Context, terms []string) (map[string]int, error) {
	st, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(terms))
	if st.lib.Postings {
		st.mu.Lock()
		defer st.mu.Unlock()
		var missing []string
		for _, t := range terms {
			if !st.terms.Known(t) {
				missing = append(missing, t)
			}
		}
		if len(missing) > 0 {
			got, err := s.store.Terms(ctx, st.lib, index.TermsQuery{Terms: missing, CountOnly: st.countOnly,
				ListsUpTo: int64(commonShare * float64(st.lib.Chunks)), Rarest: st.rarest})
			if err != nil {
				return nil, err
			}
			if err := st.noteSnapshot(got.Snapshot); err != nil {
				return nil, err
			}
			st.terms.Add(got.Lists)
		}
		for _, t := range terms {
			out[t] = int(st.terms.Docs(t))
		}
		return out, nil
	}
	var missing []string
	s.libMu.Lock()
	if s.lib != st.lib || s.df == nil {
		s.df = make(map[string]int)
	}
	for _, t := range terms {
		if n, ok := s.df[t]; ok {
			out[t] = n
		} else {
			missing = append(missing, t)
		}
	}
	s.libMu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	got, err := s.db.TermDocs(ctx, missing)
	if err != nil {
		return nil, err
	}
	s.libMu.Lock()
	defer s.libMu.Unlock()
	if len(s.df) > 100000 {
		s.df = make(map[string]int)
	}
	for _, t := range missing {
		s.df[t] = got[t] // 0 for a term the index does not hold
		out[t] = got[t]
	}
	return out, nil
}

// termLists returns the search's lists with those of terms read, in one
// question for the terms whose lists it has not read.
func (s *Searcher) termLists(ctx context.Context, st *searchState, terms []string) (*fulltext.Lists, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var missing []string
	for _, t := range terms {
		if t != "" && !st.terms.Read(t) {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		got, err := s.store.Terms(ctx, st.lib, index.TermsQuery{Terms: missing, ListsUpTo: math.MaxInt64})
		if err != nil {
			return nil, err
		}
		if err := st.noteSnapshot(got.Snapshot); err != nil {
			return nil, err
		}
		st.terms.Add(got.Lists)
	}
	return st.terms, nil
}

// namesUnknown reports whether a phrasing names something (see
// tellingNames) that no chunk mentions.
func (s *Searcher) namesUnknown(ctx context.Context, phrasing string) (bool, error) {
	ns := tellingNames(phrasing)
	if len(ns) == 0 {
		return false, nil
	}
	stems, df, err := s.wordDocs(ctx, ns)
	if err != nil {
		return false, err
	}
	st, err := s.state(ctx)
	if err != nil {
		return false, err
	}
	for _, n := range ns {
		if t, ok := stems[n]; !ok || df[t] > 0 {
			continue
		}
		if !s.namesBook(st.lib, n) {
			return true, nil
		}
	}
	return false, nil
}
