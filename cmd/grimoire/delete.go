package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/grimoire-search/grimoire/app"
)

func (a *cli) deleteCmd() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "delete SLUG",
		Short: "Remove a book from the index and keep it out",
		Long: `delete removes a book and remembers its content, so that later syncs skip
the file (and any copy of it) instead of adding it back. The file itself is
not touched. ` + "`grimoire exclusions lift`" + ` undoes it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if !yes {
				// Named first, so that the refusal too says which book
				// a prefix resolved to.
				name, err := a.bookName(ctx, args[0])
				if err != nil {
					return err
				}
				in, ok := a.stdin.(*os.File)
				if !ok || !term.IsTerminal(int(in.Fd())) {
					return usageError{fmt.Errorf("delete %s: pass --yes to confirm", name)}
				}
				fmt.Fprintf(a.stderr, "Delete %s from the index and exclude it from future syncs? [y/N] ", name)
				line, _ := bufio.NewReader(in).ReadString('\n')
				if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
					fmt.Fprintln(a.stderr, "not deleted")
					return nil
				}
			}
			b, err := a.svc.Delete(ctx, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "deleted %s (%q); its files are now skipped by sync\n", b.Slug, b.Title)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

// bookName names in full the book key names, for a question about it:
// key may be only the beginning of its slug. Its slug, title, authors and
// first file tell it from its other editions.
func (a *cli) bookName(ctx context.Context, key string) (string, error) {
	b, err := a.svc.Book(ctx, key)
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("%s (%q", b.Slug, b.Title)
	if len(b.Authors) > 0 {
		name += " by " + strings.Join(b.Authors, ", ")
	}
	if len(b.Paths) > 0 {
		name += ", " + b.Paths[0]
	}
	return field(name + ")"), nil
}

func (a *cli) exclusionsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "exclusions",
		Short: "List the books deleted with `grimoire delete`",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			lib, closeLib, err := a.svc.OpenLibrary(ctx)
			if err != nil {
				return err
			}
			defer closeLib()
			ex, err := lib.DB.Exclusions(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				if ex == nil {
					return a.printJSON([]any{})
				}
				return a.printJSON(ex)
			}
			if len(ex) == 0 {
				fmt.Fprintln(a.stdout, "no exclusions")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SLUG\tHASH\tTITLE\tPATH\tDELETED")
			for _, e := range ex {
				slug := e.Slug
				if slug == "" {
					slug = "-" // deleted before slugs were kept
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", field(slug), e.Hash.Short(), field(clip(e.Title, 40)), field(e.Path), e.ExcludedAt.Local().Format(time.DateTime))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	lift := &cobra.Command{
		Use:   "lift SLUG|HASH|TITLE|PATH",
		Short: "Let a deleted book back in at the next sync",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			e, err := a.svc.LiftExclusion(ctx, args[0])
			if err != nil {
				return err
			}
			a.printLifted(e)
			return nil
		},
	}
	cmd.AddCommand(lift)
	return cmd
}

// printLifted says what became of the lifted book: back in the index when
// a watcher synced its file at once, else waiting for the next sync.
func (a *cli) printLifted(l app.Lifted) {
	run := l.Run.Of()
	switch {
	case l.Watcher == "" || run == nil:
		fmt.Fprintf(a.stdout, "lifted the exclusion of %q; the next sync ingests it again\n", l.Title)
	case run.Failed > 0:
		fmt.Fprintf(a.stdout, "lifted the exclusion of %q; %s synced its file, and failed:\n", l.Title, l.Watcher)
		for _, f := range run.Failures {
			fmt.Fprintf(a.stdout, "  %s: %s\n", field(f.Path), field(f.Error))
		}
	case run.New == 0:
		fmt.Fprintf(a.stdout, "lifted the exclusion of %q; %s synced %s, which no longer holds it: a sync finds any other copy\n", l.Title, l.Watcher, field(l.Path))
	case run.NeedsOCR > 0:
		fmt.Fprintf(a.stdout, "lifted the exclusion of %q; %s added it back, and it waits for OCR of its scanned pages (`grimoire status` says why)\n", l.Title, l.Watcher)
	default:
		fmt.Fprintf(a.stdout, "lifted the exclusion of %q; %s added it back to the index\n", l.Title, l.Watcher)
	}
}

func (a *cli) reindexCmd() *cobra.Command {
	var fts, embeddings bool
	cmd := &cobra.Command{
		Use:   "reindex --fts | --embeddings",
		Short: "Rebuild derived indexes from the stored chunks",
		Long: `reindex --fts rebuilds the full-text index (FTS5's and the postings searches rank from) from the stored chunks.

reindex --embeddings switches the library to the embedding model configured
now: every chunk is embedded again (stored contexts are reused), while the
old vectors keep answering; when all are done, the new set replaces the old
one in one transaction. It can be interrupted and run again: it continues
where it stopped.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !fts && !embeddings {
				return usageError{fmt.Errorf("say what to rebuild: --fts, --embeddings or both")}
			}
			ctx := cmd.Context()
			prog := a.newProgress()
			r, err := a.svc.Reindex(ctx, app.ReindexArgs{FTS: fts, Embeddings: embeddings}, prog)
			prog.done()
			if r.FTS {
				fmt.Fprintf(a.stdout, "rebuilt the full-text index in %.1fs\n", r.FTSSeconds)
			}
			if r.Embeddings {
				s := r.Model
				fmt.Fprintf(a.stdout, "the index now uses %s/%s (%d dimensions): %s re-embedded in %.1fs\n", s.Provider, s.Model, s.Dim, plural(r.Chunks, "chunk"), r.Seconds)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&fts, "fts", false, "rebuild the full-text (FTS5) index")
	cmd.Flags().BoolVar(&embeddings, "embeddings", false, "re-embed every chunk with the configured model")
	return cmd
}
