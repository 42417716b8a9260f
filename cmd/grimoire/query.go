package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/retrieve"
)

func (a *cli) queryCmd() *cobra.Command {
	var asJSON bool
	var q retrieve.Query
	cmd := &cobra.Command{
		Use:   "query TEXT",
		Short: "Search the library",
		Long: `query runs a hybrid search (full-text BM25 and vectors; [retrieval] fusion
says how they are merged) and prints the best passages with their citations.
Give more phrasings of the same question with --also; they are fused with
TEXT, but whether the library answers, and which words no book holds, are
judged on TEXT alone. A passage that several books hold (editions, copies) is printed once,
with the others under "also in".`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Text = strings.Join(args, " ")
			if q.Path != "" {
				p, err := a.libraryPath(q.Path)
				if err != nil {
					return err
				}
				q.Path = p
			}
			// The process ends after one search: its read-only reader
			// has nothing to write back, and closing it would free the
			// page cache a page at a time (0.4 s after a search of a
			// million chunks), which exiting does at once.
			lib, closeLib, err := a.svc.OpenLibrary(cmd.Context())
			if err != nil {
				return err
			}
			if !a.exiting {
				defer closeLib()
			}
			v, err := lib.Search(cmd.Context(), q)
			if err != nil {
				return err
			}
			if v.Indexing != nil {
				// On stderr, so that stdout stays the results (a JSON
				// list with --json) and an empty one is still explained.
				fmt.Fprintln(a.stderr, indexingLine(*v.Indexing))
			}
			hits := v.Hits
			if asJSON {
				if len(hits) == 0 && len(v.Missing) > 0 {
					// Each hit carries them; an empty list cannot.
					fmt.Fprintln(a.stderr, retrieve.MissingLine(v.Missing))
				}
				return a.printJSON(hits)
			}
			if len(hits) == 0 {
				fmt.Fprintln(a.stdout, noMatches(v.Indexing))
				if len(v.Missing) > 0 {
					fmt.Fprintln(a.stdout, retrieve.MissingLine(v.Missing))
				}
				return nil
			}
			if len(v.Missing) > 0 {
				fmt.Fprintln(a.stdout, retrieve.MissingLine(v.Missing))
			}
			if retrieve.NoMatch(hits) {
				fmt.Fprintln(a.stdout, "Nothing in the library matches this well; the closest passages:")
				fmt.Fprintln(a.stdout)
			}
			for i, h := range hits {
				fmt.Fprintf(a.stdout, "%d. %s\n   %s  [%s · chunk %d · score %.4f]\n", i+1, field(h.Citation), field(h.Path), sectionArgs(h.PlaceView), h.ChunkIndex, h.Score)
				if h.Yours {
					fmt.Fprintln(a.stdout, "   yours: a highlight or note you made in Zotero")
				}
				for j, p := range h.AlsoIn {
					label := "also in:"
					if j > 0 {
						label = "        "
					}
					fmt.Fprintf(a.stdout, "   %s %s  [%s · chunk %d]\n", label, field(p.Path), sectionArgs(p), p.ChunkIndex)
				}
				fmt.Fprintf(a.stdout, "   %s\n\n", indent(clip(oneLine(h.Text), 400)))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print hits as JSON")
	f.StringSliceVar(&q.Phrasings, "also", nil, "another phrasing of the question (repeatable)")
	f.StringVar(&q.Book, "book", "", "only this book (slug)")
	f.StringVar(&q.Author, "author", "", "only books whose author contains this")
	f.StringVar(&q.Tag, "tag", "", "only books with this tag (calibre's or Zotero's, or a subject or keyword the book's file gives)")
	f.StringVar(&q.Series, "series", "", "only books of a series whose name contains this (calibre's, or the book file's)")
	f.StringVar(&q.Collection, "collection", "", "only Zotero items in this collection or its sub-collections (a path, Thesis/Methods, or a name)")
	f.StringVar(&q.ItemType, "item-type", "", "only Zotero items of this type (journalArticle, book, thesis…)")
	f.StringVar(&q.Type, "type", "", "only books of this type: "+strings.Join(ingest.Formats().Types(), ", "))
	f.StringVar(&q.Path, "path", "", "only books with this file, or a file in this folder (relative: to the library folder)")
	f.StringVar(&q.Mode, "mode", "", "hybrid, fts or vector (default from config)")
	f.IntVar(&q.Limit, "limit", retrieve.DefaultLimit, fmt.Sprintf("number of hits (at most %d)", retrieve.MaxLimit))
	return cmd
}

// libraryPath makes --path absolute. A relative path is taken from the
// current folder when that lies in the library (`--path .` in a folder of
// books), else from the library folders: the first one that has it, or
// the first one.
func (a *cli) libraryPath(p string) (string, error) {
	cwd, err := a.getwd()
	if err != nil {
		return "", err
	}
	fromCwd, err := absPath(cwd, p)
	if err != nil {
		return "", usageError{err}
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "~") || len(a.cfg.Library) == 0 {
		return fromCwd, nil
	}
	var candidates []string
	if subtree.InAny(fromCwd, a.cfg.Library) {
		candidates = append(candidates, fromCwd)
	}
	for _, root := range a.cfg.Library {
		candidates = append(candidates, filepath.Join(root, p))
	}
	for _, c := range candidates {
		if exists(c) {
			return c, nil
		}
	}
	return candidates[0], nil
}

// sectionArgs is where a hit lies as `grimoire section` takes it, to paste:
// "section moby-dick 8 1". The slug also pastes into `outline`.
func sectionArgs(p retrieve.PlaceView) string {
	return fmt.Sprintf("section %s %d %d", field(p.Book), p.ChapterIndex, p.SectionIndex)
}

// noMatches is what a search with no hits prints: while indexing is under
// way, the books it read are not the whole library.
func noMatches(indexing *retrieve.IndexingView) string {
	switch {
	case indexing == nil:
		return "no matches"
	case indexing.Ready == 0:
		return "no matches: no book is ready yet"
	}
	return fmt.Sprintf("no matches among the %s ready so far", plural(indexing.Ready, "book"))
}

// indexingLine tells that a search read only the books indexed so far.
func indexingLine(v retrieve.IndexingView) string {
	return fmt.Sprintf("indexing under way: %d of %s ready; results come from those", v.Ready, plural(v.Total, "book"))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n   ") }
