package index

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/internal/suggest"
	"github.com/grimoire-search/grimoire/library"
)

// listHint is where a person finds the slugs, and listToolHint where a
// model does.
const (
	listHint     = "`grimoire list` shows the books and their slugs"
	listToolHint = "list_books shows the books and their slugs"
)

// maxSuggestions is how many near slugs a "did you mean" names.
const maxSuggestions = 3

// maxCandidates is how many slugs an ambiguous prefix lists.
const maxCandidates = 10

// ResolveSlug returns the slug among slugs that key names: the one equal to
// it, else the only one that begins with it (ignoring case and surrounding
// space), so that "alice" names "alice-s-adventures-in-wonderland" when no
// other slug begins so. A prefix that several slugs begin with is fault.Invalid
// and lists them; a key that none begins with is fault.NotFound and names up to
// three near slugs.
func ResolveSlug(key string, slugs []string) (string, error) {
	k := strings.ToLower(strings.TrimSpace(key))
	if k == "" {
		return "", fault.Errorf(fault.Invalid, "no book given").WithHints(listHint, listToolHint)
	}
	if slices.Contains(slugs, key) {
		return key, nil
	}
	match, candidates := matchPrefix(k, slugs)
	switch {
	case match != "":
		return match, nil
	case len(candidates) > 0:
		return "", ambiguous(key, "books", candidates).WithHints("give more of the slug; "+listHint, "give more of the slug; "+listToolHint)
	}
	return "", bookNotFound(key, suggest.Closest(k, slugs, maxSuggestions))
}

// matchPrefix finds what k names among names: the name equal to it, else
// the only one that begins with it. When several begin with it, match is
// empty and candidates lists them, sorted and each once.
func matchPrefix(k string, names []string) (match string, candidates []string) {
	for _, n := range names {
		if n == k {
			return n, nil
		}
		if n != "" && strings.HasPrefix(n, k) && !slices.Contains(candidates, n) {
			candidates = append(candidates, n)
		}
	}
	if len(candidates) == 1 {
		return candidates[0], nil
	}
	slices.Sort(candidates)
	return "", candidates
}

// ambiguous says that key begins several names of things, listing some.
func ambiguous(key, things string, candidates []string) *fault.Error {
	shown := strings.Join(candidates[:min(len(candidates), maxCandidates)], ", ")
	if more := len(candidates) - maxCandidates; more > 0 {
		shown += fmt.Sprintf(" and %d more", more)
	}
	return fault.Errorf(fault.Invalid, "%q could be %d %s: %s", key, len(candidates), things, shown)
}

// didYouMean is the tail of a not-found message: the near names, if any.
func didYouMean(near []string) string {
	if len(near) == 0 {
		return ""
	}
	return ": did you mean " + suggest.List(near) + "?"
}

func bookNotFound(key string, near []string) error {
	return fault.Errorf(fault.NotFound, "no book %q%s", key, didYouMean(near)).WithHints(listHint, listToolHint)
}

// bookBySlug returns the book key names (see ResolveSlug).
func bookBySlug(ctx context.Context, q querier, key string) (library.Book, error) {
	books, err := queryBooksTx(ctx, q, `WHERE b.slug = ?`, key)
	if err != nil || len(books) > 0 {
		return firstBook(books), err
	}
	slugs, err := allSlugs(ctx, q)
	if err != nil {
		return library.Book{}, err
	}
	slug, err := ResolveSlug(key, slugs)
	if err != nil {
		return library.Book{}, err
	}
	books, err = queryBooksTx(ctx, q, `WHERE b.slug = ?`, slug)
	if err != nil {
		return library.Book{}, err
	}
	if len(books) == 0 {
		return library.Book{}, bookNotFound(key, nil) // deleted meanwhile
	}
	return books[0], nil
}

func firstBook(books []library.Book) library.Book {
	if len(books) == 0 {
		return library.Book{}
	}
	return books[0]
}

// allSlugs lists every book's slug.
func allSlugs(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT slug FROM book`)
	if err != nil {
		return nil, fmt.Errorf("list slugs: %w", err)
	}
	defer rows.Close()
	var slugs []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("list slugs: %w", err)
		}
		slugs = append(slugs, s)
	}
	return slugs, rows.Err()
}
