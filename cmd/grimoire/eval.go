package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/eval"
	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/retrieve"
)

// evalFlags are eval's options.
type evalFlags struct {
	beir, books, phrasings, prompts, split, workdir, perQuery string
	modes                                                     []string
	asJSON                                                    bool
	gateName                                                  string
	// gate is gateName's, or the configured one: the hook mode's.
	gate retrieve.Gate
}

func (a *cli) evalCmd() *cobra.Command {
	var o evalFlags
	cmd := &cobra.Command{
		Use:   "eval [GOLD.jsonl] | --beir DIR | --books QUESTIONS.jsonl | --prompts PROMPTS.jsonl",
		Short: "Measure search quality on a gold set, per mode and per kind of question",
		Long: `eval runs a set of questions through each retrieval mode and prints the
mean of each metric; --per-query FILE also writes every query's outcome, one
JSON line each, for ` + "`grimoire eval compare`" + ` to test two runs against each other.

--books QUESTIONS.jsonl: book questions (id, question, book, chapter,
evidence, kind, also_in; the format of the corpus's qa/README.md), asked of
the library at limit 10, as written and, with --phrasings FILE, also as a
client model asked it (id, query, queries: the search tool's query and
further phrasings), in a set named after that file. Mode hook gives each
question, alone, to the prompt hook (with --gate, default [hook] gate): its
answer@5 says the answer is in the excerpts it adds, as Claude reads them,
and NO-MATCH that it stayed silent. Per kind (keyword, paraphrase, negative, and the
answerable ones pooled) it reports answer@1/@5/@10 (a passage from the book,
or a file in also_in, that holds an evidence quote, compared with case,
white space, typographic quotes and dashes, ligatures and soft hyphens
normalised), chapter@5 (a passage from the book whose chapter, or chapter ›
section, names the gold chapter down to its second entry), MRR, and
NO-MATCH: the share of questions the no-match signal fired for (wanted for
negatives, false for the rest). With --workdir DIR the index is DIR's
grimoire.db, synced from --library first and kept for the next run;
without it, the configured index is read as it is.

--beir DIR: a BEIR collection (corpus.jsonl, queries, qrels/SPLIT.tsv) as a
temporary library of one Markdown file per document: nDCG@10, recall@10
(over the first ten documents of the first twenty hits: a document of
several passages may hold two), recall@100, MRR and NO-MATCH (every query
has an answer). Mode bm25 is the
plain baseline beside grimoire's modes: one FTS5 row per document, porter
stemming, every query word OR'ed. --workdir keeps the library and its index
for the next run.

--prompts PROMPTS.jsonl: ordinary prompts to a coding assistant (id, prompt,
kind), given to the prompt hook: NO-MATCH is the share it stayed silent on,
as it should on all of them.

GOLD: your own gold set (JSON or JSON Lines of {"query": ..., "expected":
[{"book": slug} or {"path": file}, optionally "chapter"/"section"]}; an
empty "expected" is a negative query), against the configured library.

The index in a kept --workdir is reused as long as the files are the same:
delete it after changing how books are read or chunked.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if !cmd.Flags().Changed("modes") && o.beir == "" {
				o.modes = slices.DeleteFunc(o.modes, func(m string) bool { return m == eval.ModeBM25 })
				if o.books != "" {
					o.modes = append(o.modes, eval.ModeHook)
				}
			}
			if err := checkEvalModes(o.modes, o.beir != "", o.books != "" || o.prompts != ""); err != nil {
				return err
			}
			if o.gateName == "" {
				o.gateName = a.cfg.Hook.Gate
			}
			g, err := retrieve.GateNamed(o.gateName)
			if err != nil {
				return usageError{fmt.Errorf("--gate: %w", err)}
			}
			o.gate = g
			var recs []eval.Record
			given := len(args)
			for _, f := range []string{o.beir, o.books, o.prompts} {
				if f != "" {
					given++
				}
			}
			switch {
			case given != 1:
				return usageError{fmt.Errorf("give one of a gold file, --beir DIR, --books FILE or --prompts FILE")}
			case o.beir != "":
				recs, err = a.evalBEIR(ctx, o)
			case o.books != "":
				recs, err = a.evalBooks(ctx, o)
			case o.prompts != "":
				recs, err = a.evalPrompts(ctx, o)
			default:
				recs, err = a.evalGold(ctx, args[0], o.modes)
			}
			if err != nil {
				return err
			}
			if o.perQuery != "" {
				if err := writeRecords(o.perQuery, recs); err != nil {
					return err
				}
			}
			sums := eval.Summarize(recs)
			if o.asJSON {
				return a.printJSON(sums)
			}
			return a.printSummaries(sums)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.beir, "beir", "", "evaluate a BEIR collection in this folder")
	f.StringVar(&o.books, "books", "", "evaluate book questions (JSON Lines) against the library")
	f.StringVar(&o.phrasings, "phrasings", "", "with --books: also ask each question as a client model does, a query and more phrasings (JSON Lines of id, query, queries)")
	f.StringVar(&o.prompts, "prompts", "", "give the prompt hook ordinary prompts (JSON Lines of id, prompt, kind) against the library")
	f.StringVar(&o.gateName, "gate", "", "the prompt hook's gate in mode hook: "+strings.Join(retrieve.GateNames(), ", ")+" (default from [hook] gate)")
	f.StringVar(&o.split, "split", "dev", "BEIR split: qrels/SPLIT.tsv and queries.SPLIT.jsonl (else queries.jsonl)")
	f.StringVar(&o.workdir, "workdir", "", "keep the index here between runs (--beir: and the library built from the collection)")
	f.StringSliceVar(&o.modes, "modes", []string{retrieve.Hybrid, retrieve.FTS, retrieve.Vector, eval.ModeBM25}, "modes to compare (bm25: the plain baseline, --beir only; hook: the prompt hook, --books only, and a default there)")
	f.StringVar(&o.perQuery, "per-query", "", "write each query's outcome to this file, one JSON line per query and mode")
	f.BoolVar(&o.asJSON, "json", false, "print as JSON")
	cmd.AddCommand(a.evalCompareCmd())
	return cmd
}

// checkEvalModes refuses modes that are not grimoire's or the baseline's,
// and the baseline where it means nothing: book questions are judged by
// passage, and the baseline has one row per document.
func checkEvalModes(modes []string, beir, books bool) error {
	if len(modes) == 0 {
		return usageError{fmt.Errorf("--modes is empty")}
	}
	for _, m := range modes {
		switch m {
		case retrieve.Hybrid, retrieve.FTS, retrieve.Vector:
		case eval.ModeBM25:
			if !beir {
				return usageError{fmt.Errorf("mode bm25 is the one-row-per-document baseline of --beir; book questions and gold sets are judged by passage")}
			}
		case eval.ModeHook:
			if !books {
				return usageError{fmt.Errorf("mode hook is the prompt hook's, for --books (--prompts runs it alone)")}
			}
		default:
			return usageError{fmt.Errorf("unknown mode %q in --modes (want hybrid, fts, vector, bm25 or hook)", m)}
		}
	}
	return nil
}

// writeRecords writes the per-query file whole, or not at all.
func writeRecords(path string, recs []eval.Record) error {
	var buf bytes.Buffer
	if err := eval.WriteRecords(&buf, recs); err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("per-query file %s: %w", path, err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("per-query file %s: %w", path, err)
	}
	return nil
}

// printSummaries prints one table per collection: a row per mode (and per
// kind when there are several), a column per metric.
func (a *cli) printSummaries(sums []eval.Summary) error {
	for i := 0; i < len(sums); {
		j := i
		for j < len(sums) && sums[j].Collection == sums[i].Collection {
			j++
		}
		group := sums[i:j]
		present := make(map[string]bool)
		kinds := make(map[string]bool)
		for _, s := range group {
			for m := range s.Metrics {
				present[m] = true
			}
			kinds[s.Kind] = true
		}
		metrics := eval.MetricNames(present)
		byKind := len(kinds) > 1
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprintln(a.stdout, field(sums[i].Collection))
		tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
		var head []string
		if byKind {
			head = append(head, "KIND")
		}
		head = append(head, "MODE", "QUERIES")
		for _, m := range metrics {
			head = append(head, strings.ToUpper(m))
		}
		head = append(head, "NO-MATCH")
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, s := range group {
			var row []string
			if byKind {
				row = append(row, field(s.Kind))
			}
			row = append(row, field(s.Mode), fmt.Sprint(s.Queries))
			for _, m := range metrics {
				if v, ok := s.Metrics[m]; ok {
					row = append(row, fmt.Sprintf("%.4f", v))
				} else {
					row = append(row, "-")
				}
			}
			if s.NoMatch != nil {
				row = append(row, fmt.Sprintf("%.4f", *s.NoMatch))
			} else {
				row = append(row, "-")
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// evalBEIR writes the collection as a library of Markdown files, syncs it
// into its own index and runs the queries in each mode; bm25 runs on a
// table of its own.
// beirDepth is the depth of nDCG and recall at ten.
const beirDepth = 10

func (a *cli) evalBEIR(ctx context.Context, o evalFlags) ([]eval.Record, error) {
	col, err := eval.LoadBEIR(o.beir, o.split)
	if err != nil {
		return nil, &fault.Error{Code: fault.Invalid, Msg: "load BEIR collection", Err: err}
	}
	name := filepath.Base(filepath.Clean(o.beir)) + "-" + o.split
	var lb *retrieve.Library
	var docOf func(retrieve.HitView) []string
	if slices.ContainsFunc(o.modes, func(m string) bool { return m != eval.ModeBM25 }) {
		var closeLib func()
		lb, docOf, closeLib, err = a.beirLibrary(ctx, col, o.workdir)
		if err != nil {
			return nil, err
		}
		defer closeLib()
	}
	var bm *eval.BM25
	var recs []eval.Record
	prog := a.newProgress()
	defer prog.done()
	for m, mode := range o.modes {
		if mode == eval.ModeBM25 && bm == nil {
			prog.note("indexing", "the plain BM25 baseline")
			if bm, err = eval.NewBM25(ctx, col.Docs); err != nil {
				return nil, err
			}
			defer bm.Close()
		}
		for i, q := range col.Queries {
			prog.querying(mode, m*len(col.Queries)+i, len(o.modes)*len(col.Queries))
			var top10, top100 []string
			var noMatch *bool
			if mode == eval.ModeBM25 {
				if top100, err = bm.Search(ctx, q.Text, 100); err != nil {
					return nil, err
				}
				top10 = top100
			} else {
				var hits []retrieve.HitView
				// The documents of a user's ranking: a document of several
				// passages may hold two of the first ten hits, so the
				// first ten documents are read from twenty.
				if top10, hits, err = rankDocs(ctx, lb, q.Text, mode, 2*beirDepth, docOf); err != nil {
					return nil, err
				}
				nm := retrieve.NoMatch(hits)
				noMatch = &nm
				if top100, _, err = rankDocs(ctx, lb, q.Text, mode, 100, docOf); err != nil {
					return nil, err
				}
			}
			// nDCG@10 and MRR from the ranking a user gets, recall@100
			// from the deep one.
			top10 = top10[:min(beirDepth, len(top10))]
			n, r10, _, rr := eval.Judge(top10, q.Relevant)
			_, _, r100, rrDeep := eval.Judge(top100, q.Relevant)
			if rr == 0 {
				rr = rrDeep
			}
			rank := 0
			if rr > 0 {
				rank = int(1/rr + 0.5)
			}
			recs = append(recs, eval.Record{
				Collection: name, ID: q.ID, Kind: eval.KindBEIR, Mode: mode, Rank: rank, NoMatch: noMatch,
				Metrics: map[string]float64{eval.NDCG10: n, eval.Recall10: r10, eval.Recall100: r100, eval.MRR: rr},
			})
		}
	}
	return recs, nil
}

// beirLibrary writes the collection's documents as Markdown files (those
// already there with the same text are left alone, so a kept workdir
// re-syncs at the cost of a scan), syncs them and opens the library. docOf
// gives the documents of a hit: several when documents have the same text
// and so are one book.
func (a *cli) beirLibrary(ctx context.Context, col *eval.Collection, workdir string) (*retrieve.Library, func(retrieve.HitView) []string, func(), error) {
	cleanup := func() {}
	if workdir == "" {
		tmp, err := os.MkdirTemp("", "grimoire-eval-")
		if err != nil {
			return nil, nil, nil, err
		}
		cleanup = func() { os.RemoveAll(tmp) }
		workdir = tmp
	}
	fail := func(err error) (*retrieve.Library, func(retrieve.HitView) []string, func(), error) {
		cleanup()
		return nil, nil, nil, err
	}
	lib := filepath.Join(workdir, "library")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		return fail(err)
	}
	idOf := make(map[string]string, len(col.Docs))
	for _, d := range col.Docs {
		file := safeName(d.ID)
		idOf[file] = d.ID
		body := []byte(fmt.Sprintf("# %s\n\n%s\n", oneLine(d.Title), d.Text))
		p := filepath.Join(lib, file+".md")
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, body) {
			continue
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			return fail(err)
		}
	}
	a.cfg.Library = []string{lib}
	a.cfg.DBPath = filepath.Join(workdir, "grimoire.db")
	a.configured()
	lb, closeLib, err := a.syncAndOpen(ctx)
	if err != nil {
		return fail(err)
	}
	docOf := func(h retrieve.HitView) []string {
		paths := h.Paths
		if len(paths) == 0 {
			paths = []string{h.Path}
		}
		var ids []string
		for _, p := range paths {
			file := strings.TrimSuffix(filepath.Base(p), ".md")
			if id, ok := idOf[file]; ok {
				ids = append(ids, id)
			} else {
				ids = append(ids, file)
			}
		}
		return ids
	}
	return lb, docOf, func() { closeLib(); cleanup() }, nil
}

// syncAndOpen brings the configured index up to date with the configured
// library and opens it for searching.
func (a *cli) syncAndOpen(ctx context.Context) (*retrieve.Library, func(), error) {
	start := time.Now()
	run, err := a.sync(ctx, "eval", nil, syncFlags{})
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(a.stderr, "grimoire: indexed %s in %.1fs (%d failed)\n", plural(run.Ingested, "book"), time.Since(start).Seconds(), run.Failed)
	for _, f := range run.Failures {
		fmt.Fprintf(a.stderr, "  %s: %s\n", field(f.Path), field(f.Error))
	}
	return a.openPrepared(ctx)
}

// openPrepared opens the library for searching with its vectors loaded,
// saying so on a terminal: loading takes seconds on a large library.
func (a *cli) openPrepared(ctx context.Context) (*retrieve.Library, func(), error) {
	prog := a.newProgress()
	defer prog.done()
	prog.note("loading", "the index's vectors")
	lb, closeLib, err := a.svc.OpenLibrary(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := lb.Searcher.Prepare(ctx); err != nil {
		closeLib()
		return nil, nil, err
	}
	return lb, closeLib, nil
}

// querying shows that the eval runs query done of total, in mode.
func (p *progress) querying(mode string, done, total int) {
	p.show(progressLine{step: "querying", done: int64(done), total: int64(total),
		count: fmt.Sprintf("%s/%s", grouped(done), plural(total, "query")), now: "mode " + mode})
}

// rankDocs searches and returns the distinct documents of the hits, best
// first, and the hits; a hit counts for each book it is also in, right
// after its own.
func rankDocs(ctx context.Context, lb *retrieve.Library, text, mode string, limit int, docOf func(retrieve.HitView) []string) ([]string, []retrieve.HitView, error) {
	hits, err := search(ctx, lb, retrieve.Query{Text: text, Mode: mode, Limit: limit})
	if err != nil {
		return nil, nil, err
	}
	seen := make(map[string]bool)
	var out []string
	for _, h := range hits {
		for _, v := range append([]retrieve.HitView{h}, h.Elsewhere()...) {
			for _, id := range docOf(v) {
				if !seen[id] {
					seen[id] = true
					out = append(out, id)
				}
			}
		}
	}
	return out, hits, nil
}

// search runs one query; a query that cannot be searched (no words) has
// no hits rather than stopping the run.
func search(ctx context.Context, lb *retrieve.Library, q retrieve.Query) ([]retrieve.HitView, error) {
	v, err := lb.Search(ctx, q)
	if errors.Is(err, retrieve.ErrBadQuery) {
		return nil, nil
	}
	return v.Hits, err
}

// evalGold runs a user's gold set against the configured library.
func (a *cli) evalGold(ctx context.Context, path string, modes []string) ([]eval.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &fault.Error{Code: fault.Invalid, Msg: "open gold set", Err: err}
	}
	gold, err := eval.LoadGold(f)
	f.Close()
	if err != nil {
		return nil, &fault.Error{Code: fault.Invalid, Msg: "read gold set " + path, Err: err}
	}
	lb, closeLib, err := a.svc.OpenLibrary(ctx)
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
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var recs []eval.Record
	prog := a.newProgress()
	defer prog.done()
	for m, mode := range modes {
		for i, g := range gold {
			prog.querying(mode, m*len(gold)+i, len(modes)*len(gold))
			id := fmt.Sprintf("%d", i+1)
			rel := make(map[string]int)
			fine := false
			for _, e := range g.Expected {
				slug := e.Book
				if e.Path != "" {
					p, _ := filepath.Abs(e.Path)
					if slug = slugOfPath[p]; slug == "" {
						return nil, fault.Errorf(fault.Invalid, "gold set entry %d: %s is not a file of the library", i+1, e.Path)
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
			keyOf := func(h retrieve.HitView) []string { return []string{h.Book} }
			if fine {
				keyOf = func(h retrieve.HitView) []string {
					section := fmt.Sprintf("%s#%d.%d", h.Book, h.ChapterIndex, h.SectionIndex)
					if rel[section] > 0 {
						return []string{section}
					}
					return []string{fmt.Sprintf("%s#%d", h.Book, h.ChapterIndex)}
				}
			}
			if len(rel) == 0 {
				hits, err := search(ctx, lb, retrieve.Query{Text: g.Query, Mode: mode, Limit: retrieve.DefaultLimit})
				if err != nil {
					return nil, err
				}
				nm := retrieve.NoMatch(hits)
				recs = append(recs, eval.Record{Collection: name, ID: id, Kind: eval.Negative, Mode: mode, NoMatch: &nm})
				continue
			}
			ranking, _, err := rankDocs(ctx, lb, g.Query, mode, 100, keyOf)
			if err != nil {
				return nil, err
			}
			// The verdict a user sees comes with the default limit.
			hits, err := search(ctx, lb, retrieve.Query{Text: g.Query, Mode: mode, Limit: retrieve.DefaultLimit})
			if err != nil {
				return nil, err
			}
			nm := retrieve.NoMatch(hits)
			n, r10, r100, rr := eval.Judge(ranking, rel)
			rank := 0
			if rr > 0 {
				rank = int(1/rr + 0.5)
			}
			recs = append(recs, eval.Record{
				Collection: name, ID: id, Kind: eval.Answerable, Mode: mode, Rank: rank, NoMatch: &nm,
				Metrics: map[string]float64{eval.NDCG10: n, eval.Recall10: r10, eval.Recall100: r100, eval.MRR: rr},
			})
		}
	}
	return recs, nil
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
