package retrieve

import (
	"context"
	"errors"
	"strings"
	"sync"
	"unicode"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/index/fulltext"
)

// store is what a search asks of the index. Each method is one question
// (one SQL statement, bar ReadLibrary, asked once per change to the
// index), so that a search asks a handful whatever the library's size and
// the question's words: whether the library changed, the lists of the
// question's words, the passages it cites and the passages that may be
// their copies. A second storage backend would provide the same.
type store interface {
	// Snapshot says whether anything changed since a LibraryState was
	// read (Terms says it too, with its answer).
	Snapshot(ctx context.Context) (index.Snapshot, error)
	// ReadLibrary reads what searches share between changes: the ready
	// books, the books that share text, how far indexing has got.
	ReadLibrary(ctx context.Context) (*index.LibraryState, error)
	// Terms reads how many passages hold each term, and the posting
	// lists of the rarer and of the rarest, with the library's
	// Snapshot.
	Terms(ctx context.Context, lib *index.LibraryState, q index.TermsQuery) (*index.TermLists, error)
	// HitsOf loads passages with their citations, roles, signatures,
	// lengths, and vectors when asked for.
	HitsOf(ctx context.Context, ids []int64, vectors bool) ([]index.Hit, error)
	// ChunksWithWords finds, in other books, the passages that may be a
	// hit's copies.
	ChunksWithWords(ctx context.Context, lookups []index.WordsLookup, rarest, limit int) ([][]int64, error)
	// BookIDs returns the books a filter selects.
	BookIDs(ctx context.Context, f index.BookFilter) (map[int64]bool, error)
}

var _ store = (*index.DB)(nil)

// searchState is what one search reads of the index and shares among its
// phases: the library as of its start, and its words' lists.
type searchState struct {
	lib *index.LibraryState
	mu  sync.Mutex
	// checked says the index was found unchanged since lib was read:
	// the search's first question to the index says so (Terms), and a
	// search that finds it changed starts again (errStale). tolerant,
	// on a search's last start, takes lib as it is.
	checked, tolerant bool
	// terms are the lists read so far (Postings only); rarest is how
	// many of the next terms asked for have their lists read whatever
	// their counts, and countOnly the terms counted with them.
	terms     *fulltext.Lists
	rarest    int
	countOnly []string
}

type searchStateKey struct{}

// errStale ends a search that found the index changed since the library
// state it started from was read; it starts again from a fresh one.
var errStale = errors.New("the index changed since the search started")

// stateStarts bounds how often a search starts again when the index
// keeps changing under it (a sync storing books): the last start takes
// the library as it found it.
const stateStarts = 3

// withState runs fn with the state of a search: the one of ctx, or a new
// one, started again (with the library read anew) when fn finds the
// index changed.
func (s *Searcher) withState(ctx context.Context, fn func(context.Context) error) error {
	if _, ok := ctx.Value(searchStateKey{}).(*searchState); ok {
		return fn(ctx)
	}
	for start := 1; ; start++ {
		st, err := s.newState(ctx)
		if err != nil {
			return err
		}
		st.tolerant = start == stateStarts
		err = fn(context.WithValue(ctx, searchStateKey{}, st))
		if !errors.Is(err, errStale) {
			return err
		}
		s.forget(st.lib)
	}
}

// state returns the state of the search of ctx, or a new one for a phase
// called on its own (as tests do).
func (s *Searcher) state(ctx context.Context) (*searchState, error) {
	if st, ok := ctx.Value(searchStateKey{}).(*searchState); ok {
		return st, nil
	}
	st, err := s.newState(ctx)
	if err == nil {
		st.tolerant = true
	}
	return st, err
}

// newState starts a search's state from the library as last read, to be
// checked by its first question; or reads the library when there is none
// yet, or its full text is not all in postings (then searches ask FTS5,
// and their first question is not Terms).
func (s *Searcher) newState(ctx context.Context) (*searchState, error) {
	s.libMu.Lock()
	lib := s.lib
	s.libMu.Unlock()
	if lib != nil && lib.Postings {
		return &searchState{lib: lib, terms: fulltext.NewLists()}, nil
	}
	if lib != nil {
		snap, err := s.store.Snapshot(ctx)
		if err != nil {
			return nil, err
		}
		if snap.Key == lib.Key {
			return &searchState{lib: lib, checked: true, terms: fulltext.NewLists()}, nil
		}
	}
	lib, err := s.store.ReadLibrary(ctx)
	if err != nil {
		return nil, err
	}
	s.libMu.Lock()
	s.lib, s.filters, s.names = lib, nil, nil
	s.libMu.Unlock()
	return &searchState{lib: lib, checked: true, terms: fulltext.NewLists()}, nil
}

// forget drops lib, found stale, unless another search read a newer one.
func (s *Searcher) forget(lib *index.LibraryState) {
	s.libMu.Lock()
	defer s.libMu.Unlock()
	if s.lib == lib {
		s.lib, s.filters, s.names = nil, nil, nil
	}
}

// noteSnapshot checks snap, read with other answers to the search of st,
// against the library the search started from. st.mu is held.
func (st *searchState) noteSnapshot(snap index.Snapshot) error {
	if snap.Key != st.lib.Key && !st.checked && !st.tolerant {
		return errStale
	}
	st.checked = true
	return nil
}

// allowed returns the books filter selects, as of lib, read once per
// change to the index for each filter; nil for every ready book.
func (s *Searcher) allowed(ctx context.Context, lib *index.LibraryState, filter index.BookFilter) (map[int64]bool, error) {
	if filter == (index.BookFilter{ReadyOnly: true}) {
		return nil, nil
	}
	s.libMu.Lock()
	ids, ok := s.filters[filter]
	current := s.lib == lib
	s.libMu.Unlock()
	if ok && current {
		return ids, nil
	}
	ids, err := s.store.BookIDs(ctx, filter)
	if err != nil {
		return nil, err
	}
	s.libMu.Lock()
	defer s.libMu.Unlock()
	if s.lib == lib {
		if s.filters == nil || len(s.filters) > 100 {
			s.filters = make(map[index.BookFilter]map[int64]bool)
		}
		s.filters[filter] = ids
	}
	return ids, nil
}

// namesBook reports whether a ready book's title or author holds word as
// a word of its own, in any case: a book may never name its author in its
// text, and "pee" is no name of a book called "Speed".
func (s *Searcher) namesBook(lib *index.LibraryState, word string) bool {
	s.libMu.Lock()
	defer s.libMu.Unlock()
	if s.names == nil || s.lib != lib {
		names := make(map[string]bool)
		for _, b := range lib.Books {
			for _, w := range strings.FieldsFunc(index.FoldTerm(b.Title+" "+b.Author), func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
			}) {
				names[w] = true
			}
		}
		if s.lib != lib {
			return names[index.FoldTerm(word)]
		}
		s.names = names
	}
	return s.names[index.FoldTerm(word)]
}

// readySlug returns the slug of the ready book that slug names, as
// DB.Book resolves it (the book with that slug, else the only one whose
// slug begins with it), or "" when no ready book answers alone to it.
func readySlug(lib *index.LibraryState, slug string) string {
	var prefixed []string
	for _, b := range lib.Books {
		if b.Slug == slug {
			return slug
		}
		if strings.HasPrefix(b.Slug, slug) {
			prefixed = append(prefixed, b.Slug)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}
