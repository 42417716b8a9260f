package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/grimoire-search/grimoire/eval"
	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/retrieve"
)

// booksLimit is how many passages a book question asks for: the default
// of `query` and of the MCP search tool, and the depth answer@10 needs.
const booksLimit = 10

// evalBooks asks the book questions of the library in each mode: as they
// are written, and with --phrasings as a client model asked them too (a
// set of its own; the hook has no model, and asks the question alone).
func (a *cli) evalBooks(ctx context.Context, o evalFlags) ([]eval.Record, error) {
	qs, err := eval.LoadBookQuestions(o.books)
	if err != nil {
		return nil, &fault.Error{Code: fault.Invalid, Msg: "read book questions", Err: err}
	}
	type asking struct {
		name      string
		phrasings map[string]eval.Phrasing
	}
	asked := []asking{{name: strings.TrimSuffix(filepath.Base(o.books), filepath.Ext(o.books))}}
	if o.phrasings != "" {
		ps, err := eval.LoadPhrasings(o.phrasings)
		if err != nil {
			return nil, &fault.Error{Code: fault.Invalid, Msg: "read phrasings", Err: err}
		}
		for _, q := range qs {
			if _, ok := ps[q.ID]; !ok {
				return nil, &fault.Error{Code: fault.Invalid, Msg: fmt.Sprintf("%s has no phrasing of question %s", o.phrasings, q.ID)}
			}
		}
		asked = append(asked, asking{strings.TrimSuffix(filepath.Base(o.phrasings), filepath.Ext(o.phrasings)), ps})
	}
	lb, closeLib, err := a.evalLibrary(ctx, o)
	if err != nil {
		return nil, err
	}
	defer closeLib()

	judges := make([]*eval.BookJudge, len(qs))
	for i, q := range qs {
		if q.Answerable() {
			judges[i] = eval.NewBookJudge(q)
		}
	}
	prog := a.newProgress()
	defer prog.done()
	if err := a.checkAnswerable(ctx, lb, qs, judges, prog); err != nil {
		return nil, err
	}
	var recs []eval.Record
	total, done := len(asked)*len(o.modes)*len(qs), 0
	for _, ask := range asked {
		for _, mode := range o.modes {
			if mode == eval.ModeHook && ask.phrasings != nil {
				done += len(qs)
				continue
			}
			for i, q := range qs {
				prog.querying(mode, done, total)
				done++
				var hits []retrieve.HitView
				var err error
				if mode == eval.ModeHook {
					hits, err = hookPassages(ctx, lb, q.Question, o.gate)
				} else {
					sq := retrieve.Query{Text: q.Question, Mode: mode, Limit: booksLimit}
					if p, ok := ask.phrasings[q.ID]; ok {
						sq.Text, sq.Phrasings = p.Query, p.Queries
					}
					hits, err = search(ctx, lb, sq)
				}
				if err != nil {
					return nil, fmt.Errorf("question %s: %w", q.ID, err)
				}
				nm := retrieve.NoMatch(hits)
				r := eval.Record{Collection: ask.name, ID: q.ID, Kind: q.Kind, Mode: mode, NoMatch: &nm}
				if j := judges[i]; j != nil {
					res := j.Judge(passages(hits))
					r.Rank, r.Metrics = res.Answer, res.Metrics()
				}
				recs = append(recs, r)
			}
		}
	}
	return recs, nil
}

// evalPrompts gives the prompt hook each ordinary prompt: the records say
// whether it stayed silent (NoMatch), as it should.
func (a *cli) evalPrompts(ctx context.Context, o evalFlags) ([]eval.Record, error) {
	ps, err := eval.LoadPrompts(o.prompts)
	if err != nil {
		return nil, &fault.Error{Code: fault.Invalid, Msg: "read prompts", Err: err}
	}
	name := strings.TrimSuffix(filepath.Base(o.prompts), filepath.Ext(o.prompts))
	lb, closeLib, err := a.evalLibrary(ctx, o)
	if err != nil {
		return nil, err
	}
	defer closeLib()
	prog := a.newProgress()
	defer prog.done()
	var recs []eval.Record
	for i, p := range ps {
		prog.querying(eval.ModeHook, i, len(ps))
		hits, err := hookPassages(ctx, lb, p.Prompt, o.gate)
		if err != nil {
			return nil, fmt.Errorf("prompt %s: %w", p.ID, err)
		}
		silent := len(hits) == 0
		recs = append(recs, eval.Record{Collection: name, ID: p.ID, Kind: eval.KindPrompt, Mode: eval.ModeHook, NoMatch: &silent})
	}
	return recs, nil
}

// hookPassages are the passages the prompt hook adds to a prompt, each
// as the excerpt it prints (what Claude reads of it): none for a prompt it
// does not search, or that its gate holds back.
func hookPassages(ctx context.Context, lb *retrieve.Library, prompt string, g retrieve.Gate) ([]retrieve.HitView, error) {
	text, why := hookQuery(prompt)
	if why != "" {
		return nil, nil
	}
	return lb.Recall(ctx, text, g, defaultHookLimit, hookExcerptRunes)
}

// evalLibrary opens the library the questions are asked of: DIR's index,
// synced first, with --workdir DIR; else the configured one as it is.
func (a *cli) evalLibrary(ctx context.Context, o evalFlags) (*retrieve.Library, func(), error) {
	if o.workdir == "" {
		return a.openPrepared(ctx)
	}
	if err := os.MkdirAll(o.workdir, 0o755); err != nil {
		return nil, nil, err
	}
	a.cfg.DBPath = filepath.Join(o.workdir, "grimoire.db")
	a.configured()
	return a.syncAndOpen(ctx)
}

// passages turns hits into what the judge reads; a hit is from every book
// it is also in, as a user reading also_in would take it.
func passages(hits []retrieve.HitView) []eval.Passage {
	out := make([]eval.Passage, len(hits))
	for i, h := range hits {
		p := eval.Passage{Chapter: h.Chapter, Section: h.Section, Text: h.Text}
		for _, v := range append([]retrieve.HitView{h}, h.Elsewhere()...) {
			if len(v.Paths) > 0 {
				p.Paths = append(p.Paths, v.Paths...)
			} else if v.Path != "" {
				p.Paths = append(p.Paths, v.Path)
			}
			if v.Anchor != "" {
				p.Anchors = append(p.Anchors, v.Anchor)
			}
		}
		out[i] = p
	}
	return out
}

// checkAnswerable warns, before the questions run, about the answerable
// ones that no passage of the library answers: their book is not in it (a
// library other than the one the questions were written for), or no single
// passage holds a quote (a chunk boundary or the text extraction cuts it
// up). Those questions count as missed in every mode; the warning tells a
// miss that search can fix from one it cannot.
func (a *cli) checkAnswerable(ctx context.Context, lb *retrieve.Library, qs []eval.BookQuestion, judges []*eval.BookJudge, prog *progress) error {
	prog.note("checking", "which questions a passage of the library answers")
	books, err := lb.DB.Books(ctx, index.BookFilter{ReadyOnly: true})
	if err != nil {
		return err
	}
	chunks := make(map[int64][]library.Chunk)
	chunksOf := func(b library.Book) ([]library.Chunk, error) {
		if c, ok := chunks[b.ID]; ok {
			return c, nil
		}
		c, err := lb.DB.ChunkRange(ctx, b.ID, 0, b.Chunks)
		chunks[b.ID] = c
		return c, err
	}
	var noBook, noPassage []string
	for i, q := range qs {
		j := judges[i]
		if j == nil {
			continue
		}
		// The books a path names; when none does, every book, whose
		// chunks' anchors may name the file.
		var cands []library.Book
		for _, b := range books {
			if j.FromBook(eval.Passage{Paths: b.Paths}) {
				cands = append(cands, b)
			}
		}
		byPath := len(cands) > 0
		if !byPath {
			cands = books
		}
		inBook, answered := byPath, false
		for _, b := range cands {
			cs, err := chunksOf(b)
			if err != nil {
				return err
			}
			for _, k := range cs {
				p := eval.Passage{Paths: b.Paths, Anchors: []string{k.Anchor}, Text: k.Text}
				if !j.FromBook(p) {
					continue
				}
				inBook = true
				if j.Answers(p) {
					answered = true
					break
				}
			}
			if answered {
				break
			}
		}
		switch {
		case !inBook:
			noBook = append(noBook, fmt.Sprintf("%s (%s)", q.ID, q.Book))
		case !answered:
			noPassage = append(noPassage, q.ID)
		}
	}
	if len(noBook) > 0 {
		prog.println(a.stderr, fmt.Sprintf("grimoire: warning: %s naming a file the library does not hold: %s; is the library the one the questions were written for?",
			plural(len(noBook), "question"), strings.Join(noBook, ", ")))
	}
	if len(noPassage) > 0 {
		prog.println(a.stderr, fmt.Sprintf("grimoire: warning: %s without a passage holding an evidence quote (a chunk boundary or the text extraction cuts the quote up), which no search can answer: %s",
			plural(len(noPassage), "question"), strings.Join(noPassage, ", ")))
	}
	return nil
}
