package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/app"
	"github.com/grimoire-search/grimoire/model/llm"
)

func (a *cli) rebuildCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "rebuild",
		Short: "Build the index again from the library, keeping what the old one holds",
		Long: `rebuild replaces the index with one built again from the library: what to do
when grimoire says the index is damaged. The old index is not deleted: it is
renamed beside the new one, with the date and time in its name. Whatever can
still be read of it is kept: deleted books stay excluded, book names stay,
and every chunk that comes out of the same book with the same text keeps its
context, its section summary and its vector (when the embedding model is the
same), so the models are asked only for the rest.

It can be interrupted and run again: it continues where it stopped. Until it
has finished, other commands that write the index refuse to run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := a.rebuild(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(rep)
			}
			a.printRebuild(rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was kept as JSON")
	return cmd
}

func (a *cli) rebuild(ctx context.Context) (app.Rebuilt, error) {
	if err := a.cfg.requireLibrary(ctx, a.stderr); err != nil {
		return app.Rebuilt{}, err
	}
	prog := a.newProgress()
	defer prog.done()
	l := prog.follow()
	l.Ended = prog.done
	return a.svc.Rebuild(ctx, l)
}

func (a *cli) printRebuild(v app.Rebuilt) {
	w := a.stdout
	fmt.Fprintf(w, "rebuilt %s from the library: %s, %s (%.1fs)\n", v.Index, plural(v.Books, "book"), plural(v.Chunks, "chunk"), float64(v.DurationMS)/1000)
	state := "was sound"
	if v.Damaged {
		state = "was damaged"
	}
	fmt.Fprintf(w, "the old index %s; it is kept as %s\n", state, v.Aside)
	fmt.Fprintf(w, "kept from it: the context of %s and the vector of %d, %s, %s",
		plural(v.ContextsReused, "chunk"), v.VectorsReused, plural(v.SummariesReused, "section summary"), plural(v.Exclusions, "exclusion"))
	if v.OCRPagesReused > 0 {
		fmt.Fprintf(w, ", the text of %s read by OCR", plural(v.OCRPagesReused, "scanned page"))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "asked of the models: %s", plural(v.Chunks-v.VectorsReused, "vector"))
	if a.cfg.Context.Provider != llm.ProviderNone {
		fmt.Fprintf(w, ", %s", plural(v.Chunks-v.ContextsReused, "context"))
	}
	fmt.Fprintln(w)
	if v.VectorsOf != "" {
		fmt.Fprintf(w, "its vectors, by %s, were not reused: another embedding model is configured\n", v.VectorsOf)
	}
	for _, f := range v.Failures {
		fmt.Fprintf(w, "  %s: %s\n", f.Path, f.Error)
	}
}
