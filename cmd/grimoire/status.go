package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/retrieve"
)

func (a *cli) statusCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what the index holds, what is pending or failed, and the last sync",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := a.svc.Status(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(v)
			}
			a.printStatus(v)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (a *cli) printStatus(v retrieve.StatusView) {
	w := a.stdout
	if !v.IndexExists {
		// Zero counts and "last sync never" would read like an empty
		// library; the one thing to say is how to begin.
		fmt.Fprintln(w, "no index yet — run `grimoire sync` to build it")
		fmt.Fprintf(w, "index     %s (not created)\n", field(v.DBPath))
		printLibrary(w, v.Library)
		fmt.Fprintf(w, "model     %s\n", v.EmbeddingModel)
		return
	}
	fmt.Fprintf(w, "index     %s (%s)\n", field(v.DBPath), humanSize(v.DBBytes))
	printLibrary(w, v.Library)
	fmt.Fprintf(w, "books     %d ready, %d pending, %d ingesting, %d failed (%s)\n", v.Ready, v.Pending, v.Parsed, v.Failed, plural(v.Files, "file"))
	fmt.Fprintf(w, "chunks    %d (%d embedded)\n", v.Chunks, v.Embedded)
	fmt.Fprintf(w, "model     %s\n", v.EmbeddingModel)
	if v.ContextModel != "" {
		fmt.Fprintf(w, "contexts  %d of %s, by %s\n", v.Contextualized, plural(v.Chunks, "chunk"), v.ContextModel)
	}
	if v.Reembedding != "" {
		fmt.Fprintf(w, "switching to %s: run `grimoire reindex --embeddings` to finish\n", v.Reembedding)
	}
	if v.Writer.Running {
		fmt.Fprintf(w, "writer    %s (pid %d) since %s\n", v.Writer.Command, v.Writer.PID, v.Writer.Since.Local().Format(time.DateTime))
		if v.Writer.Trouble != "" {
			fmt.Fprintf(w, "          failing since %s: %s; next retry at %s\n",
				v.Writer.TroubleSince.Local().Format(time.DateTime), field(v.Writer.Trouble), v.Writer.RetryAt.Local().Format(time.TimeOnly))
		}
	} else {
		fmt.Fprintf(w, "writer    none running\n")
	}
	if ws := v.Watch; ws != nil {
		scan := "not yet"
		if !ws.LastFullScan.IsZero() {
			scan = ws.LastFullScan.Local().Format(time.DateTime)
		}
		fmt.Fprintf(w, "watching  %s; last full scan %s; %s queued", plural(ws.Watched, "folder"), scan, plural(ws.Queue, "change"))
		if ws.Ingesting != "" {
			fmt.Fprintf(w, "; ingesting %q", ws.Ingesting)
		}
		fmt.Fprintln(w)
		if ws.Degraded != "" {
			fmt.Fprintf(w, "          %s\n", field(ws.Degraded))
		}

	}
	if r := v.LastSync; r != nil {
		c := r.Counters
		fmt.Fprintf(w, "last sync %s (%s, %.1fs): %d scanned, %d hashed, %d new, %d changed, %d moved, %d removed, %d ingested, %d pruned, %d failed\n",
			r.Finished.Local().Format(time.DateTime), r.Kind, r.Finished.Sub(r.Started).Seconds(),
			c.Scanned, c.Hashed, c.New, c.Changed, c.Moved, c.Removed, c.Ingested, c.Pruned, c.Failed)
	} else if v.Writer.Running && syncs(v.Writer.Command) {
		// Runs are recorded as they finish: "never" would send the
		// user to start the sync that is under way.
		fmt.Fprintf(w, "last sync none finished yet: the first is under way (%s, pid %d)\n", v.Writer.Command, v.Writer.PID)
	} else {
		fmt.Fprintf(w, "last sync never: run `grimoire sync`\n")
	}
	if v.Exclusions > 0 {
		fmt.Fprintf(w, "excluded  %s (`grimoire exclusions` lists them)\n", plural(v.Exclusions, "deleted book"))
	}
	if u := v.UnsupportedSummary(); u != "" {
		fmt.Fprintf(w, "not read  %s (no format grimoire reads)\n", u)
	}
	for _, h := range v.Held {
		fmt.Fprintf(w, "held      the removal of %s under %s, since %s: %s\n", plural(h.Files, "file"), field(h.Root), h.Since.Local().Format(time.DateTime), h.Reason)
	}
	if len(v.Held) > 0 {
		fmt.Fprint(w, "          their books stay searchable; once the files are really gone, `grimoire sync --prune` removes them")
		if v.Writer.Running {
			fmt.Fprintf(w, " (stop %s first)", field(v.Writer.Command))
		}
		fmt.Fprintln(w)
	}
	for _, z := range v.Zotero {
		fmt.Fprintf(w, "zotero    %s\n", field(retrieve.ZoteroLine(z)))
	}
	printOCR(w, v.OCR, v.Writer)
	if len(v.Failures) > 0 {
		fmt.Fprintf(w, "problems  %d:\n", len(v.Failures))
		for _, f := range v.Failures {
			fmt.Fprintf(w, "  %s: %s\n", field(f.Path), field(f.Error))
		}
	}
}

// printLibrary prints the library folders, one a line.
func printLibrary(w io.Writer, folders []string) {
	for i, l := range folders {
		label := "library"
		if i > 0 {
			label = ""
		}
		fmt.Fprintf(w, "%-9s %s\n", label, field(l))
	}
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// printOCR lists the books waiting for OCR, with why (how to install
// tesseract or ddjvu, OCR off, OCR failed) and what will read them, the
// books under way, and the pages read with low confidence. writer is the
// process that holds the index, which a rebuild waits for.
func printOCR(w io.Writer, books []index.OCRBook, writer retrieve.WriterView) {
	var waiting, partly []index.OCRBook
	for _, b := range books {
		switch {
		case b.Waiting != "" && b.Ready:
			partly = append(partly, b)
		case b.Waiting != "":
			waiting = append(waiting, b)
		}
	}
	if len(waiting) > 0 {
		fmt.Fprintf(w, "needs OCR %s with scanned pages, not searchable yet:\n", plural(len(waiting), "book"))
		for _, b := range waiting {
			fmt.Fprintf(w, "  %s (%s): %s\n", field(b.Path), plural(b.Pages, "scanned page"), field(b.Waiting))
		}
	}
	if len(partly) > 0 {
		fmt.Fprintf(w, "needs OCR %s with scanned pages unread, searchable from the rest meanwhile:\n", plural(len(partly), "book"))
		for _, b := range partly {
			fmt.Fprintf(w, "  %s (%s): %s\n", field(b.Path), plural(b.Pages, "scanned page"), field(b.Waiting))
		}
	}
	var missing, off, failed bool
	for _, b := range slices.Concat(waiting, partly) {
		switch {
		case strings.HasPrefix(b.Waiting, ingest.OCRFailed):
			failed = true
		case b.Waiting == ingest.OCROff:
			off = true
		default:
			missing = true
		}
	}
	if missing {
		fmt.Fprintln(w, "          the next sync (or the watcher's next pass) reads them once that is installed")
	}
	if off {
		fmt.Fprintln(w, `          the next sync (or the watcher's next pass) reads them once [ocr] enabled is "auto"`)
	}
	if failed {
		// Runs leave them be rather than fail on every pass.
		fmt.Fprint(w, "          where OCR failed, it tries again when the file changes, or at `grimoire rebuild`")
		if writer.Running {
			fmt.Fprintf(w, " (stop %s first)", field(writer.Command))
		}
		fmt.Fprintln(w)
	}
	for _, b := range books {
		switch {
		case b.Waiting != "":
		case !b.Ready:
			fmt.Fprintf(w, "OCR       %s: %d of %s read\n", field(b.Path), b.Done, plural(b.Pages, "scanned page"))
		case b.Done < b.Pages:
			fmt.Fprintf(w, "OCR       %s: %d of %s read (searchable from its text pages meanwhile)\n", field(b.Path), b.Done, plural(b.Pages, "scanned page"))
		}
	}
	for _, b := range books {
		if len(b.LowConfidence) > 0 {
			fmt.Fprintf(w, "low OCR confidence %s: %s %s (mean word confidence under %d%%)\n",
				field(b.Path), pagesNoun(len(b.LowConfidence)), joinInts(b.LowConfidence), index.LowConfidence)
		}
	}
}

func pagesNoun(n int) string {
	if n == 1 {
		return "page"
	}
	return "pages"
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

// syncs reports whether the writer command runs syncs: sync and eval's,
// and the watchers' first pass.
func syncs(command string) bool {
	switch command {
	case "grimoire sync", "grimoire eval", "grimoire watch", "grimoire serve --watch":
		return true
	}
	return false
}
