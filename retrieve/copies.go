package retrieve

import (
	"cmp"
	"context"
	"slices"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/passage"
	"github.com/grimoire-search/grimoire/internal/shingle"
)

// A hit lists the other books that hold its text (AlsoIn). The candidates
// a search reads past its last hit hold most of them, since copies of a
// text score alike; but not where one edition's headings carry the
// question's words and another's do not: "according to Professor Frisby's
// guide" finds the DOCX edition, whose headings name the guide, and not
// the Markdown chapters, whose headings do not. So for each hit, the books
// the index records as holding much of its book's text
// (index.LibraryState.Shared), and that it does not list yet, are searched for
// the hit's longest words (the passages that hold most of the rarest of
// them, read from the book's postings); those are compared with the hit
// by shingles, as distinct compares candidates.
const (
	// copyLookups bounds the books a search looks in this way: 60
	// editions of one novel would otherwise cost a lookup per edition and
	// hit.
	copyLookups = 8
	// copyWords is how many of the hit's longest words look for its copy
	// (the copyRarest rarest of them in the other book), and
	// copyCandidates how many passages found are compared with it.
	copyWords      = 12
	copyRarest     = 6
	copyCandidates = 3
	// copyShare is how much of a hit's book another book must hold to be
	// looked in: a passage of a novel is seldom in an abridged edition or
	// in a few pages scanned from it, and such lookups were most of
	// them on the dev book questions, all in vain.
	copyShare = 0.5
)

// completeCopies adds to the first n hits of d the books that hold their
// text and that the search's candidates missed.
func (s *Searcher) completeCopies(ctx context.Context, r request, d *distinct, n int) error {
	n = min(n, len(d.hits))
	lib := r.texts.lib
	allowed, err := s.allowed(ctx, lib, r.filter)
	if err != nil {
		return err
	}
	// The passages that may be the copies, for all hits, in one
	// question, then one read of them all.
	var hitOf []int
	var lookups []index.WordsLookup
	for i := range n {
		h := &d.hits[i]
		if float64(len(d.sigs[i])) < editionShare*shingleFloor {
			continue // too short to be the same text as any passage
		}
		var words []string
		for _, other := range lib.Shared[h.BookID] {
			if len(lookups) == copyLookups {
				break
			}
			if other.Share < copyShare || listed(h.AlsoIn, other.ID) || allowed != nil && !allowed[other.ID] {
				continue
			}
			if words == nil {
				if words = longestWords(h.Text, copyWords); len(words) == 0 {
					break
				}
			}
			hitOf = append(hitOf, i)
			lookups = append(lookups, index.WordsLookup{Book: other.ID, Words: words})
		}
	}
	if len(lookups) == 0 {
		return nil
	}
	found, err := s.store.ChunksWithWords(ctx, lookups, copyRarest, copyCandidates)
	if err != nil {
		return err
	}
	var ids []int64
	for i := range found {
		found[i] = slices.DeleteFunc(found[i], func(id int64) bool { return d.seen[id] })
		ids = append(ids, found[i]...)
	}
	byID, err := r.texts.get(ctx, ids)
	if err != nil {
		return err
	}
	for k, candidates := range found {
		hit := hitOf[k]
		best, bestShare := index.Hit{}, 0.0
		for _, id := range candidates {
			c, ok := byID[id]
			if !ok {
				continue // gone, or its book no longer ready
			}
			need := neededShare(d.titles[hit], titleKey(c.Book.Title))
			size := len(c.Signature)
			// The signatures rule out most passages; the rest are
			// compared by their shingles.
			if share := sameShare(passage.SharedAtMost(d.sigs[hit], c.Signature), len(d.sigs[hit]), size); share < need || share <= bestShare {
				continue
			}
			share := sameShare(shingle.Shared(d.shinglesOf(hit), d.shinglesOfText(c.Text)), len(d.sigs[hit]), size)
			if share >= need && share > bestShare {
				best, bestShare = c, share
			}
		}
		if bestShare > 0 {
			d.hits[hit].AlsoIn = append(d.hits[hit].AlsoIn, best)
		}
	}
	return nil
}

// longestWords returns the n longest distinct words of text, of four
// letters or more, folded as sentenceWords folds them, longest first.
func longestWords(text string, n int) []string {
	var words []string
	seen := make(map[string]bool)
	for _, w := range sentenceWords(text) {
		if utf8.RuneCountInString(w) >= 4 && !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	slices.SortStableFunc(words, func(a, b string) int {
		return cmp.Compare(utf8.RuneCountInString(b), utf8.RuneCountInString(a))
	})
	return words[:min(n, len(words))]
}
