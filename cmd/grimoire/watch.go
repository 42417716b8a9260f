package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/app"
	"github.com/grimoire-search/grimoire/ingest"
)

func (a *cli) watchCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "watch",
		Short: "Keep the index in sync with the library until interrupted",
		Long: `watch reconciles the library once, then watches it: a book dropped into the
folder is indexed within seconds of its last write, a moved book keeps its
index entry, a removed one is pruned. A full rescan runs every
rescan_interval as a safety net. Ctrl-C (or SIGTERM) stops it cleanly.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := a.cfg.requireLibrary(ctx, a.stderr); err != nil {
				return err
			}
			// What the watch does goes to stdout, a line per change.
			log := a.watchLog(a.stdout)
			// A book that takes long says how it is getting on.
			prog := a.newWatchProgress(log)
			defer prog.done()
			return a.svc.Watch(ctx, "grimoire watch", app.Listener{
				Started: func() {
					fmt.Fprintf(a.stderr, "grimoire: watching %s, index %s; Ctrl-C to stop\n", plural(len(a.cfg.Library), "folder"), a.cfg.DBPath)
				},
				Changed:   log.reconciled,
				Ingesting: prog.ingest,
				Ingested: func(o ingest.Outcome) {
					prog.finished()
					log.ingested(o)
				},
			})
		},
	}
}
