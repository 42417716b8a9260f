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

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/model"
	"github.com/grimoire-search/grimoire/model/embed"
)

func (a *app) deleteCmd() *cobra.Command {
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
			d := deleteArgs{Slug: args[0]}
			b, err := withWriter(ctx, a, "grimoire delete", opDelete, d, func(w *index.Writer) (deleted, error) {
				return deleteBook(ctx, w, d)
			})
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

type deleteArgs struct {
	Slug string `json:"slug"`
}

// deleted is the book delete removed, as it names it.
type deleted struct {
	Slug  string `json:"slug"`
	Title string `json:"title"`
}

// deleteBook is delete's work on the index, in whichever process writes it.
func deleteBook(ctx context.Context, w *index.Writer, args deleteArgs) (deleted, error) {
	b, err := w.DeleteBook(ctx, args.Slug)
	if err != nil {
		return deleted{}, err
	}
	return deleted{Slug: b.Slug, Title: b.Title}, nil
}

// bookName names in full the book key names, for a question about it:
// key may be only the beginning of its slug. Its slug, title, authors and
// first file tell it from its other editions.
func (a *app) bookName(ctx context.Context, key string) (string, error) {
	if err := a.cfg.requireFolders(ctx); err != nil {
		return "", err
	}
	r, err := index.OpenReader(ctx, a.cfg.DBPath)
	if err != nil {
		return "", err
	}
	defer r.Close()
	b, err := r.Book(ctx, key)
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

func (a *app) exclusionsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "exclusions",
		Short: "List the books deleted with `grimoire delete`",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			lib, closeLib, err := a.openLibrary(ctx)
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
			l := liftArgs{Key: args[0]}
			e, err := withWriter(ctx, a, "grimoire exclusions lift", opLift, l, func(w *index.Writer) (lifted, error) {
				return liftExclusion(ctx, w, l)
			})
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

type liftArgs struct {
	Key string `json:"key"`
}

// lifted is the exclusion that exclusions lift removed, and what a
// running watcher did at once to take its book back in.
type lifted struct {
	Title string `json:"title"`
	// Path is the file the book was deleted at.
	Path string `json:"path"`
	// Watcher names the watcher that synced Path right after lifting,
	// and Run is that sync; both empty when the command lifted the
	// exclusion itself, or the watcher could not sync Path.
	Watcher string     `json:"watcher,omitempty"`
	Run     syncResult `json:"run"`
}

// liftExclusion is exclusions lift's work on the index.
func liftExclusion(ctx context.Context, w *index.Writer, args liftArgs) (lifted, error) {
	e, err := w.LiftExclusion(ctx, args.Key)
	if err != nil {
		return lifted{}, err
	}
	return lifted{Title: e.Title, Path: e.Path}, nil
}

// printLifted says what became of the lifted book: back in the index when
// a watcher synced its file at once, else waiting for the next sync.
func (a *app) printLifted(l lifted) {
	run := l.Run.run()
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

func (a *app) reindexCmd() *cobra.Command {
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
			ra := reindexArgs{FTS: fts, Embeddings: embeddings, Embedding: a.cfg.Embedding}
			prog := a.newProgress()
			r, err := withWriter(ctx, a, "grimoire reindex", opReindex, ra, func(w *index.Writer) (reindexed, error) {
				r, _, err := a.reindex(ctx, w, ra, prog)
				return r, err
			})
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

type reindexArgs struct {
	FTS        bool `json:"fts"`
	Embeddings bool `json:"embeddings"`
	// Embedding is the model to re-embed with: the command's
	// configuration's, which a running watcher then switches to.
	Embedding embeddingSection `json:"embedding"`
}

// reindexed is what reindex did: each step that finished, and how long
// after the start.
type reindexed struct {
	FTS        bool        `json:"fts"`
	FTSSeconds float64     `json:"fts_seconds"`
	Embeddings bool        `json:"embeddings"`
	Model      model.Stamp `json:"model"`
	Chunks     int         `json:"chunks"`
	Seconds    float64     `json:"seconds"`
}

// reindex is reindex's work on the index, in whichever process writes it.
// It returns what it did, even when a later step failed, and the embedder it
// re-embedded with (nil when it did not).
func (a *app) reindex(ctx context.Context, w *index.Writer, args reindexArgs, prog *progress) (reindexed, embed.Embedder, error) {
	var r reindexed
	start := time.Now()
	if args.FTS {
		if err := w.RebuildFTS(ctx); err != nil {
			return r, nil, err
		}
		r.FTS, r.FTSSeconds = true, time.Since(start).Seconds()
	}
	if !args.Embeddings {
		return r, nil, nil
	}
	emb, err := a.embedderOf(ctx, args.Embedding)
	if err != nil {
		return r, nil, err
	}
	n, err := ingest.Reembed(ctx, w, emb, 0, func(done, total int) { prog.counted("re-embedding", done, total, "chunk") })
	if err != nil {
		return r, nil, err
	}
	r.Embeddings, r.Model, r.Chunks, r.Seconds = true, emb.Info().Stamp(), n, time.Since(start).Seconds()
	return r, emb, nil
}
