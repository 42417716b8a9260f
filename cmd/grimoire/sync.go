package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/syncer"
)

func (a *app) syncCmd() *cobra.Command {
	var asJSON, retry bool
	cmd := &cobra.Command{
		Use:   "sync [PATH]",
		Short: "Bring the index up to date with the library once",
		Long: `sync scans the library folders, hashes new and changed files, ingests new
books, records moves and copies, and prunes books whose files are gone.
With PATH inside the library, only that file or folder is scanned; any other
PATH is taken as the library folder.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var scope []string
			if len(args) == 1 {
				p, err := filepath.Abs(args[0])
				if err != nil {
					return err
				}
				if underRoots(p, a.cfg.Library) {
					scope = []string{p}
				} else {
					a.libraryFlag = []string{p}
					if err := a.setup(cmd); err != nil {
						return err
					}
				}
			}
			run, err := a.sync(cmd.Context(), "sync", scope, retry)
			if err != nil && run == nil {
				return err
			}
			if asJSON {
				if jerr := a.printJSON(syncJSON(run)); jerr != nil {
					return jerr
				}
			} else {
				a.printSyncSummary(run)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run's counters as JSON")
	cmd.Flags().BoolVar(&retry, "retry", false, "try failed books again")
	return cmd
}

// sync runs one reconcile-and-ingest pass under the writer lock.
func (a *app) sync(ctx context.Context, kind string, scope []string, retry bool) (*index.Run, error) {
	if err := a.cfg.requireLibrary(); err != nil {
		return nil, err
	}
	w, err := a.openWriter(ctx, "grimoire "+kind)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	opts, err := a.syncerOptions(ctx, w)
	if err != nil {
		return nil, err
	}
	if retry {
		if err := w.RetryFailed(ctx); err != nil {
			return nil, err
		}
	}
	prog := a.newProgress()
	defer prog.done()
	opts.Reconcile.Progress = func(done, total int) { prog.set("hashing", done, total) }
	opts.Ingest.Progress = func(p ingest.Progress) {
		prog.set(fmt.Sprintf("book %d/%d", p.BooksDone+1, p.BooksTotal), p.ChunksDone, max(p.ChunksTotal, 1))
	}
	return syncer.Sync(ctx, w, opts, kind, scope)
}

func underRoots(p string, roots []string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(r, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// syncJSON is the shape of `grimoire sync --json`.
func syncJSON(r *index.Run) any {
	type out struct {
		index.Counters
		Failures   []index.Failure `json:"failures"`
		Started    time.Time       `json:"started"`
		Finished   time.Time       `json:"finished"`
		DurationMS int64           `json:"duration_ms"`
	}
	f := r.Failures
	if f == nil {
		f = []index.Failure{}
	}
	return out{Counters: r.Counters, Failures: f, Started: r.Started, Finished: r.Finished, DurationMS: r.Finished.Sub(r.Started).Milliseconds()}
}

func (a *app) printSyncSummary(r *index.Run) {
	c := r.Counters
	fmt.Fprintf(a.stdout, "scanned %d files, hashed %d: %d new, %d changed, %d moved, %d copied, %d removed",
		c.Scanned, c.Hashed, c.New, c.Changed, c.Moved, c.Copied, c.Removed)
	if c.Skipped > 0 {
		fmt.Fprintf(a.stdout, ", %d skipped", c.Skipped)
	}
	if c.Excluded > 0 {
		fmt.Fprintf(a.stdout, ", %d excluded", c.Excluded)
	}
	fmt.Fprintf(a.stdout, "\ningested %d books, pruned %d, %d failed (%.1fs)\n", c.Ingested, c.Pruned, c.Failed, r.Finished.Sub(r.Started).Seconds())
	for _, f := range r.Failures {
		fmt.Fprintf(a.stdout, "  %s: %s\n", f.Path, f.Error)
	}
}
