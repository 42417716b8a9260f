package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/app"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/reconcile"
)

func (a *cli) syncCmd() *cobra.Command {
	var asJSON, retry, prune bool
	cmd := &cobra.Command{
		Use:   "sync [PATH]",
		Short: "Bring the index up to date with the library once",
		Long: `sync scans the library folders, hashes new and changed files, ingests new
books, records moves and copies, and prunes books whose files are gone.
With PATH inside the library, only that file or folder is scanned. When no
library or index is configured, a folder PATH is taken as the library.

Removals need evidence: when a library folder is not the one its books were
found in (an unmounted drive leaves an empty folder of another device), is
empty, is no longer configured, or loses more than half of its files at
once (more than 10), its books are kept and status says why. A drive
mounted at a folder inside the library is judged the same way, and also
when that folder is missing or no longer a mount point. --prune applies
those removals.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// A library that does not exist is the first thing to say,
			// before anything about PATH within it.
			if err := a.cfg.requireFolders(cmd.Context()); err != nil {
				return err
			}
			var scope []string
			if len(args) == 1 {
				var err error
				if scope, err = a.syncScope(cmd, args[0]); err != nil {
					return err
				}
			}
			flags := syncFlags{retry: retry, prune: prune}
			if a.verbose > 0 && !asJSON {
				// Failures and holds are the summary's to list.
				flags.changes = &changeLog{w: a.stdout, roots: a.cfg.Library}
			}
			run, err := a.sync(cmd.Context(), "sync", scope, flags)
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
	cmd.Flags().BoolVar(&prune, "prune", false, "apply removals held back for want of evidence (see status)")
	return cmd
}

// syncScope turns sync's PATH into the paths to reconcile: a file or
// folder inside the library, never through a symbolic link. Outside the
// library it is an error, unless nothing names the library or the index,
// in which case a folder PATH becomes the library (scope nil).
func (a *cli) syncScope(cmd *cobra.Command, arg string) ([]string, error) {
	cwd, err := a.getwd()
	if err != nil {
		return nil, usageError{err}
	}
	p := inFolder(cwd, arg)
	root := subtree.RootOf(p, a.cfg.Library)
	if root != "" {
		if link := reconcile.LinkBelow(p, root); link != "" {
			return nil, usageError{fmt.Errorf("%s goes through the symbolic link %s; grimoire never follows links inside the library; nothing was changed", p, link)}
		}
	}
	st, err := os.Lstat(p)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w; nothing was changed (a sync without PATH notices removed files)", p, unwrapPathError(err))}
	}
	if root != "" {
		return []string{p}, nil
	}
	if a.cfg.named {
		return nil, usageError{fmt.Errorf("%s is outside the library (%s); nothing was changed. Give a file or folder inside it, or add the folder to library", p, strings.Join(a.cfg.Library, ", "))}
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, usageError{fmt.Errorf("%s is a symbolic link; give the folder it points to; nothing was changed", p)}
	case !st.IsDir():
		return nil, usageError{fmt.Errorf("%s is a file outside the library (%s); nothing was changed", p, strings.Join(a.cfg.Library, ", "))}
	}
	a.libraryFlag = []string{p}
	return nil, a.setup(cmd)
}

// syncFlags are the options of a sync run beyond its scope.
type syncFlags struct {
	retry, prune bool
	// changes, when set, prints each change as it is made.
	changes *changeLog
}

// sync runs one reconcile-and-ingest pass under the writer lock, or has
// the running watcher run it.
func (a *cli) sync(ctx context.Context, kind string, scope []string, flags syncFlags) (*library.Run, error) {
	if err := a.cfg.requireLibrary(ctx, a.stderr); err != nil {
		return nil, err
	}
	prog := a.newProgress()
	defer prog.done()
	l := prog.follow()
	if c := flags.changes; c != nil {
		c.prog = prog
		l.Changed, l.Ingested = c.reconciled, c.ingested
	}
	return a.svc.Sync(ctx, app.SyncArgs{Kind: kind, Library: a.cfg.Library, Scope: scope, Retry: flags.retry, Prune: flags.prune}, l)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// syncJSON is the shape of `grimoire sync --json`.
func syncJSON(r *library.Run) any {
	type out struct {
		library.Counters
		Failures   []library.Failure `json:"failures"`
		Holds      []library.Hold    `json:"holds"`
		Started    time.Time         `json:"started"`
		Finished   time.Time         `json:"finished"`
		DurationMS int64             `json:"duration_ms"`
	}
	f := r.Failures
	if f == nil {
		f = []library.Failure{}
	}
	h := r.Holds
	if h == nil {
		h = []library.Hold{}
	}
	return out{Counters: r.Counters, Failures: f, Holds: h, Started: r.Started, Finished: r.Finished, DurationMS: r.Finished.Sub(r.Started).Milliseconds()}
}

func (a *cli) printSyncSummary(r *library.Run) {
	c := r.Counters
	// Hashed is a part of Scanned (the rest were known by their size and
	// time), and New counts books, which content already hashed can make
	// too: so each count stands apart, with its own noun.
	fmt.Fprintf(a.stdout, "scanned %s, hashed %d; %s; %s changed, %d moved, %d copied, %d removed",
		plural(c.Scanned, "file"), c.Hashed, plural(c.New, "new book"), plural(c.Changed, "file"), c.Moved, c.Copied, c.Removed)
	if c.Skipped > 0 {
		fmt.Fprintf(a.stdout, ", %d skipped", c.Skipped)
	}
	if c.Excluded > 0 {
		fmt.Fprintf(a.stdout, ", %d excluded", c.Excluded)
	}
	fmt.Fprintf(a.stdout, "\ningested %s, pruned %d, %d failed (%.1fs)\n", plural(c.Ingested, "book"), c.Pruned, c.Failed, r.Finished.Sub(r.Started).Seconds())
	for _, f := range r.Failures {
		fmt.Fprintf(a.stdout, "  %s: %s\n", field(f.Path), field(f.Error))
	}
	if c.NeedsOCR > 0 {
		fmt.Fprintf(a.stdout, "%s waiting for OCR of scanned pages (`grimoire status` says why)\n", plural(c.NeedsOCR, "book"))
	}
	for _, h := range r.Holds {
		fmt.Fprintf(a.stdout, "held the removal of %s under %s: %s\n", plural(h.Files, "file"), field(h.Root), h.Reason)
	}
	if len(r.Holds) > 0 {
		fmt.Fprintln(a.stdout, "  their books stay searchable; once the files are really gone, `grimoire sync --prune` removes them")
	}
}
