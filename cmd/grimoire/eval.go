package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/eval"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/retrieve"
	"github.com/grimoire-search/grimoire/syncer"
)

func (a *app) evalCmd() *cobra.Command {
	var beir, split, workdir string
	var modes []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "eval [GOLD.jsonl] | --beir DIR",
		Short: "Measure search quality on a gold set (nDCG@10, recall, MRR per mode)",
		Long: `eval runs a gold set through each retrieval mode and prints nDCG@10,
recall@10, recall@100 and MRR side by side.

With GOLD (JSON or JSON Lines of {"query": ..., "expected": [{"book": slug} or
{"path": file}, optionally "chapter"/"section"]}) it searches the configured
library; an empty "expected" is a negative query. With --beir DIR it builds a
temporary library from a BEIR collection (corpus.jsonl, queries, qrels/SPLIT.tsv;
one Markdown file per document) and evaluates that, leaving your index alone.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var rows []evalRow
			var err error
			switch {
			case beir != "" && len(args) == 0:
				rows, err = a.evalBEIR(ctx, beir, split, workdir, modes)
			case beir == "" && len(args) == 1:
				rows, err = a.evalGold(ctx, args[0], modes)
			default:
				return usageError{fmt.Errorf("give either a gold file or --beir DIR")}
			}
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(rows)
			}
			tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "MODE\tnDCG@10\tRECALL@10\tRECALL@100\tMRR\tQUERIES")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%.4f\t%d\n", r.Mode, r.NDCG10, r.Recall10, r.Recall100, r.MRR, r.Queries)
			}
			return tw.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&beir, "beir", "", "evaluate a BEIR collection in this folder")
	f.StringVar(&split, "split", "dev", "BEIR split: qrels/SPLIT.tsv and queries.SPLIT.jsonl (else queries.jsonl)")
	f.StringVar(&workdir, "workdir", "", "build the BEIR library here and keep it (default: a temporary folder)")
	f.StringSliceVar(&modes, "modes", []string{retrieve.Hybrid, retrieve.FTS, retrieve.Vector}, "modes to compare")
	f.BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

type evalRow struct {
	Mode string `json:"mode"`
	eval.Scores
}

// evalBEIR writes the collection as a library of Markdown files, syncs it
// into its own index and runs the queries in each mode.
func (a *app) evalBEIR(ctx context.Context, dir, split, workdir string, modes []string) ([]evalRow, error) {
	col, err := eval.LoadBEIR(dir, split)
	if err != nil {
		return nil, &index.Error{Code: index.Invalid, Msg: "load BEIR collection", Err: err}
	}
	if workdir == "" {
		tmp, err := os.MkdirTemp("", "grimoire-eval-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		workdir = tmp
	}
	lib := filepath.Join(workdir, "library")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		return nil, err
	}
	for _, d := range col.Docs {
		body := fmt.Sprintf("# %s\n\n%s\n", oneLine(d.Title), d.Text)
		if err := os.WriteFile(filepath.Join(lib, safeName(d.ID)+".md"), []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	a.cfg.Library = []string{lib}
	a.cfg.DBPath = filepath.Join(workdir, "grimoire.db")
	w, err := a.openWriter(ctx, "grimoire eval")
	if err != nil {
		return nil, err
	}
	opts, err := a.syncerOptions(ctx, w)
	if err == nil {
		start := time.Now()
		var run *index.Run
		run, err = syncer.Sync(ctx, w, opts, "sync", nil)
		if err == nil {
			fmt.Fprintf(a.stderr, "grimoire: indexed %d documents in %.1fs\n", run.Ingested, time.Since(start).Seconds())
		}
	}
	w.Close()
	if err != nil {
		return nil, err
	}
	lb, closeLib, err := a.openLibrary(ctx)
	if err != nil {
		return nil, err
	}
	defer closeLib()
	if err := lb.Searcher.Prepare(ctx); err != nil {
		return nil, err
	}
	docOf := func(h retrieve.HitView) string { return strings.TrimSuffix(filepath.Base(h.Path), ".md") }
	var rows []evalRow
	for _, mode := range modes {
		var acc eval.Accumulator
		for _, q := range col.Queries {
			top10, err := rankDocs(ctx, lb, q.Text, mode, 10, docOf)
			if err != nil {
				return nil, err
			}
			top100, err := rankDocs(ctx, lb, q.Text, mode, 100, docOf)
			if err != nil {
				return nil, err
			}
			// nDCG@10 and MRR from the ranking a user gets (limit 10),
			// recall@100 from the deep one.
			n, r10, _, rr := eval.Judge(top10, q.Relevant)
			_, _, r100, rrDeep := eval.Judge(top100, q.Relevant)
			if rr == 0 {
				rr = rrDeep
			}
			acc.AddJudged(n, r10, r100, rr)
		}
		rows = append(rows, evalRow{Mode: mode, Scores: acc.Scores()})
	}
	return rows, nil
}

// rankDocs searches and returns the distinct documents of the hits, best
// first; a hit counts for each book it is also in, right after its own.
func rankDocs(ctx context.Context, lb *retrieve.Library, text, mode string, limit int, docOf func(retrieve.HitView) string) ([]string, error) {
	hits, err := lb.Search(ctx, retrieve.Query{Text: text, Mode: mode, Limit: limit})
	if err != nil {
		if errors.Is(err, retrieve.ErrBadQuery) {
			return nil, nil // a query without words: no ranking
		}
		return nil, err
	}
	seen := make(map[string]bool)
	var out []string
	for _, h := range hits {
		for _, v := range append([]retrieve.HitView{h}, h.Elsewhere()...) {
			if id := docOf(v); !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out, nil
}

// evalGold runs a user's gold set against the configured library.
func (a *app) evalGold(ctx context.Context, path string, modes []string) ([]evalRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &index.Error{Code: index.Invalid, Msg: "open gold set", Err: err}
	}
	gold, err := eval.LoadGold(f)
	f.Close()
	if err != nil {
		return nil, &index.Error{Code: index.Invalid, Msg: "read gold set " + path, Err: err}
	}
	lb, closeLib, err := a.openLibrary(ctx)
	if err != nil {
		return nil, err
	}
	defer closeLib()
	books, err := lb.Books(ctx, index.BookFilter{})
	if err != nil {
		return nil, err
	}
	slugOfPath := make(map[string]string)
	for _, b := range books {
		for _, p := range b.Paths {
			slugOfPath[p] = b.Slug
		}
	}
	var rows []evalRow
	for _, mode := range modes {
		var acc eval.Accumulator
		for i, g := range gold {
			rel := make(map[string]int)
			fine := false
			for _, e := range g.Expected {
				slug := e.Book
				if e.Path != "" {
					p, _ := filepath.Abs(e.Path)
					if slug = slugOfPath[p]; slug == "" {
						return nil, index.Errorf(index.Invalid, "gold set entry %d: %s is not a file of the library", i+1, e.Path)
					}
				}
				key := slug
				if e.Chapter != nil {
					fine = true
					key += fmt.Sprintf("#%d", *e.Chapter)
					if e.Section != nil {
						key += fmt.Sprintf(".%d", *e.Section)
					}
				}
				rel[key] = 1
			}
			keyOf := func(h retrieve.HitView) string { return h.Book }
			if fine {
				keyOf = func(h retrieve.HitView) string {
					for k := range rel {
						if k == fmt.Sprintf("%s#%d.%d", h.Book, h.ChapterIndex, h.SectionIndex) {
							return k
						}
					}
					return fmt.Sprintf("%s#%d", h.Book, h.ChapterIndex)
				}
			}
			if len(rel) == 0 {
				hits, err := lb.Search(ctx, retrieve.Query{Text: g.Query, Mode: mode, Limit: 10})
				if err != nil && !errors.Is(err, retrieve.ErrBadQuery) {
					return nil, err
				}
				acc.AddNegative(retrieve.NoMatch(hits))
				continue
			}
			ranking, err := rankDocs(ctx, lb, g.Query, mode, 100, keyOf)
			if err != nil {
				return nil, err
			}
			acc.Add(ranking, rel)
		}
		rows = append(rows, evalRow{Mode: mode, Scores: acc.Scores()})
	}
	return rows, nil
}

// safeName keeps a document id usable as a file name.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, id)
}
