package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/retrieve"
)

func (a *cli) listCmd() *cobra.Command {
	var asJSON bool
	var f index.BookFilter
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the books in the index",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, closeLib, err := a.svc.OpenLibrary(cmd.Context())
			if err != nil {
				return err
			}
			defer closeLib()
			books, err := lib.Books(cmd.Context(), f)
			if err != nil {
				return err
			}
			if len(books) == 0 && f != (index.BookFilter{}) {
				return noneSelected(cmd.Context(), lib, f)
			}
			if asJSON {
				return a.printJSON(books)
			}
			if len(books) == 0 {
				// Not an error: nothing was asked to match.
				fmt.Fprintln(a.stderr, "grimoire: the index holds no books yet; `grimoire sync` adds the library's")
				return nil
			}
			// Series and tags get columns only in a library that has
			// them (from calibre, or from the books' files).
			withSeries := slices.ContainsFunc(books, func(b retrieve.BookView) bool { return b.Series != "" })
			withTags := slices.ContainsFunc(books, func(b retrieve.BookView) bool { return len(b.Tags) > 0 })
			tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
			head := "SLUG\tTITLE\tAUTHOR\tTYPE\tCHAPTERS\tCHUNKS\tSTATUS"
			if withSeries {
				head += "\tSERIES"
			}
			if withTags {
				head += "\tTAGS"
			}
			fmt.Fprintln(tw, head)
			for _, b := range books {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s", field(b.Slug), field(clip(b.Title, 50)), field(clip(b.Author, 30)), b.SourceType, b.Chapters, b.Chunks, b.Status)
				if withSeries {
					series := b.Series
					if series != "" && b.SeriesIndex != 0 {
						series += " " + strconv.FormatFloat(b.SeriesIndex, 'f', -1, 64)
					}
					fmt.Fprintf(tw, "\t%s", field(clip(series, 30)))
				}
				if withTags {
					fmt.Fprintf(tw, "\t%s", field(clip(retrieve.JoinTags(b.Tags), 40)))
				}
				fmt.Fprintln(tw)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	cmd.Flags().StringVar(&f.Author, "author", "", "only books whose author contains this")
	cmd.Flags().StringVar(&f.Type, "type", "", "only books of this type: "+strings.Join(ingest.Formats().Types(), ", "))
	cmd.Flags().StringVar(&f.Query, "match", "", "only books whose title or author contains this")
	cmd.Flags().StringVar(&f.Tag, "tag", "", "only books with this tag (calibre's or Zotero's, or a subject or keyword the book's file gives)")
	cmd.Flags().StringVar(&f.Series, "series", "", "only books of a series whose name contains this (calibre's, or the book file's)")
	cmd.Flags().StringVar(&f.Collection, "collection", "", "only Zotero items in this collection or its sub-collections (a path, Thesis/Methods, or a name)")
	cmd.Flags().StringVar(&f.ItemType, "item-type", "", "only Zotero items of this type (journalArticle, book, thesis…)")
	return cmd
}

// noneSelected is why list's filters select no book, as a NotFound error:
// the exit code and message a search with the same filters gets, rather
// than an empty table that leaves a misspelt author looking like a
// library without the book.
func noneSelected(ctx context.Context, lib *retrieve.Library, f index.BookFilter) error {
	why := lib.WhyNone(ctx, f)
	var e *fault.Error
	switch {
	case errors.As(why, &e) && e.Code == fault.NotFound:
		// Its hint names list itself, which is what ran.
		return fault.Errorf(fault.NotFound, "%s", e.Msg).WithHint("`grimoire list` without filters shows every book")
	case why != nil:
		return why
	}
	// WhyNone judges the filters a search has; --match is list's own.
	return fault.Errorf(fault.NotFound, "no book's title or author contains %.80q", f.Query).
		WithHint("`grimoire list` without filters shows every book")
}

// clip shortens s to n characters for a table.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
