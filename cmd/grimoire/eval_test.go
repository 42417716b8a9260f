package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/eval"
	"github.com/grimoire-search/grimoire/retrieve"
)

// tinyBooks writes a library of two Markdown books and three questions
// about it: one asked in the book's words, one in other words, and one no
// book answers.
func tinyBooks(t *testing.T) (lib, questions string) {
	t.Helper()
	dir := t.TempDir()
	lib = filepath.Join(dir, "books")
	writeFile(t, filepath.Join(lib, "wonderland", "tea.md"), `# The Mad Tea-Party

## The Riddle

The Hatter opened his eyes very wide on hearing this, but all he said was:
why is a raven like a writing-desk? Nobody at the table knew the answer,
and the March Hare poured tea on the Dormouse's nose.

## The Dormouse's Story

Once upon a time there were three little sisters, and they lived at the
bottom of a treacle well, and they drew all manner of things.
`)
	writeFile(t, filepath.Join(lib, "sailing.md"), `# Sailing

## Knots

A bowline makes a fixed loop at the end of a rope that will not slip or
jam, however hard the load pulls on it, and it unties easily afterwards.

## Weather

Sailors reef the mainsail when the wind rises above twenty knots.
`)
	questions = filepath.Join(dir, "questions.jsonl")
	writeFile(t, questions, `{"id": "q1", "question": "What riddle does the Hatter ask about a raven and a writing-desk?", "book": "tea.md", "chapter": "The Mad Tea-Party › The Riddle", "evidence": ["why is a raven like a writing\u2010desk"], "kind": "keyword", "also_in": []}
{"id": "q2", "question": "Which knot gives a loop that stays put under strain?", "book": "sailing.md", "chapter": "Sailing › Knots", "evidence": ["makes a fixed loop at the end of a rope"], "kind": "paraphrase", "also_in": []}
{"id": "q3", "question": "How do I bake sourdough bread?", "book": "", "chapter": "", "evidence": [], "kind": "negative", "also_in": []}
`)
	return lib, questions
}

func TestEvalBooks(t *testing.T) {
	t.Parallel()
	lib, questions := tinyBooks(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	perQuery := filepath.Join(dir, "results", "books.jsonl")

	r := grimoire(t, dir, "eval", "--books", questions, "--library", lib, "--workdir", work, "--per-query", perQuery)
	if r.code != 0 {
		t.Fatalf("eval --books: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"questions\n", "KIND", "ANSWER@1", "ANSWER@5", "ANSWER@10", "CHAPTER@5", "MRR", "NO-MATCH",
		"keyword     hybrid", "paraphrase  fts", "negative    vector", "answerable  hybrid"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("warnings about a library that answers every question:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(lib, ".grimoire")); err == nil {
		t.Error("eval --workdir put an index inside the library")
	}

	recs, err := eval.ReadRecords(perQuery)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 12 {
		t.Fatalf("%d per-query records, want 3 questions × 4 modes", len(recs))
	}
	byKey := make(map[string]eval.Record)
	for _, rec := range recs {
		if rec.Collection != "questions" || rec.NoMatch == nil {
			t.Errorf("record %+v", rec)
		}
		byKey[rec.ID+" "+rec.Mode] = rec
	}
	for _, mode := range []string{"hybrid", "fts"} {
		// The keyword question's words are the passage's: full text finds
		// it first, in the right chapter, and the library matches.
		q1 := byKey["q1 "+mode]
		if q1.Rank != 1 || q1.Metrics[eval.Answer1] != 1 || q1.Metrics[eval.Chapter5] != 1 || q1.Metrics[eval.MRR] != 1 || *q1.NoMatch {
			t.Errorf("q1 in %s: %+v", mode, q1)
		}
	}
	for _, mode := range []string{"hybrid", "fts", "vector"} {
		if q2 := byKey["q2 "+mode]; len(q2.Metrics) != 5 || q2.Kind != eval.Paraphrase {
			t.Errorf("q2 in %s: %+v", mode, q2)
		}
		if q3 := byKey["q3 "+mode]; len(q3.Metrics) != 0 || q3.Rank != 0 || q3.Kind != eval.Negative {
			t.Errorf("q3 in %s: %+v", mode, q3)
		}
	}
	// The prompt hook is judged as search is, and adds nothing for the
	// question no book answers.
	if q1 := byKey["q1 hook"]; len(q1.Metrics) != 5 || q1.Kind != eval.Keyword {
		t.Errorf("q1 given to the hook: %+v", q1)
	}
	if q3 := byKey["q3 hook"]; !*q3.NoMatch {
		t.Errorf("q3 given to the hook: %+v", q3)
	}

	// The index is kept: a second run syncs nothing new.
	r = grimoire(t, dir, "eval", "--books", questions, "--library", lib, "--workdir", work, "--modes", "fts", "--json")
	if r.code != 0 || !strings.Contains(r.stderr, "indexed 0 books") {
		t.Errorf("second run: exit %d\n%s", r.code, r.stderr)
	}
	var sums []eval.Summary
	if err := jsonUnmarshal(r.stdout, &sums); err != nil || len(sums) != 4 || sums[0].Kind != eval.Keyword || sums[0].Metrics[eval.Answer1] != 1 {
		t.Errorf("--json: %v\n%s", err, r.stdout)
	}

	// A run compared with itself differs nowhere; full text against
	// hybrid pairs the two modes' records.
	out := ok(t, dir, "eval", "compare", perQuery, perQuery)
	if !strings.Contains(out, "questions   keyword     hybrid  answer@5") || !strings.Contains(out, "+0.0000  1.0000") {
		t.Errorf("compare with itself:\n%s", out)
	}
	out = ok(t, dir, "eval", "compare", "--a-mode", "fts", "--b-mode", "hybrid", perQuery, perQuery)
	if !strings.Contains(out, "fts → hybrid") {
		t.Errorf("compare fts with hybrid:\n%s", out)
	}
}

// TestEvalBooksPhrasings asks each question as a client model does: its
// query and further phrasings, in a set named after the phrasings file.
func TestEvalBooksPhrasings(t *testing.T) {
	t.Parallel()
	lib, questions := tinyBooks(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	phrasings := filepath.Join(dir, "asked.jsonl")
	writeFile(t, phrasings, `{"id": "q1", "query": "Hatter riddle raven", "queries": ["raven like a writing-desk"]}
{"id": "q2", "query": "knot loop that stays put", "queries": ["bowline fixed loop at the end of a rope"]}
`)
	r := grimoire(t, dir, "eval", "--books", questions, "--phrasings", phrasings, "--library", lib, "--workdir", work, "--modes", "fts")
	if r.code != exitInvalid || !strings.Contains(r.stderr, "asked.jsonl has no phrasing of question q3") {
		t.Fatalf("a question without a phrasing: exit %d\n%s", r.code, r.stderr)
	}
	writeFile(t, phrasings, `{"id": "q1", "query": "Hatter riddle raven", "queries": ["raven like a writing-desk"]}
{"id": "q2", "query": "knot loop that stays put", "queries": ["bowline fixed loop at the end of a rope"]}
{"id": "q3", "query": "sourdough bread recipe", "queries": ["how to bake sourdough"]}
`)
	perQuery := filepath.Join(dir, "phrasings.jsonl")
	r = grimoire(t, dir, "eval", "--books", questions, "--phrasings", phrasings, "--library", lib, "--workdir", work, "--modes", "fts", "--per-query", perQuery)
	if r.code != 0 {
		t.Fatalf("eval --phrasings: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	recs, err := eval.ReadRecords(perQuery)
	if err != nil || len(recs) != 6 {
		t.Fatalf("records %+v: %v", recs, err)
	}
	// The questions as written first, then as the client asked them.
	for i, rec := range recs {
		if want := []string{"questions", "asked"}[i/3]; rec.Collection != want {
			t.Errorf("record %+v, want it in the set %s", rec, want)
		}
		if rec.Collection == "asked" && rec.ID == "q2" && rec.Rank != 1 {
			t.Errorf("q2, asked with the passage's words too: %+v", rec)
		}
	}
	// The hook has no model to phrase the question: it asks it alone.
	r = grimoire(t, dir, "eval", "--books", questions, "--phrasings", phrasings, "--library", lib, "--workdir", work, "--modes", "hook", "--per-query", perQuery)
	if recs, err = eval.ReadRecords(perQuery); r.code != 0 || err != nil || len(recs) != 3 || recs[0].Collection != "questions" {
		t.Fatalf("mode hook with phrasings: exit %d, records %+v: %v\n%s", r.code, recs, err, r.stderr)
	}
}

// TestEvalPrompts gives the prompt hook ordinary prompts: NO-MATCH is the
// share it stayed silent on.
func TestEvalPrompts(t *testing.T) {
	t.Parallel()
	lib, _ := tinyBooks(t)
	dir := t.TempDir()
	prompts := filepath.Join(dir, "prompts.jsonl")
	writeFile(t, prompts, `{"id": "p1", "prompt": "fix the failing test in the parser package", "kind": "code"}
{"id": "p2", "prompt": "lgtm", "kind": "git"}
{"id": "p3", "prompt": "why is a raven like a writing-desk, asked the Hatter at the tea table", "kind": "other"}
`)
	perQuery := filepath.Join(dir, "prompts-out.jsonl")
	r := grimoire(t, dir, "eval", "--prompts", prompts, "--library", lib, "--workdir", filepath.Join(dir, "work"), "--per-query", perQuery)
	if r.code != 0 || !strings.Contains(r.stdout, "prompts\n") || !strings.Contains(r.stdout, "hook  3        0.6667") {
		t.Fatalf("eval --prompts: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	recs, err := eval.ReadRecords(perQuery)
	if err != nil || len(recs) != 3 {
		t.Fatalf("records %+v: %v", recs, err)
	}
	for _, rec := range recs {
		if rec.Kind != eval.KindPrompt || rec.Mode != eval.ModeHook || rec.NoMatch == nil || *rec.NoMatch != (rec.ID != "p3") {
			t.Errorf("record %+v", rec)
		}
	}
	for _, bad := range [][]string{
		{"eval", "--prompts", prompts, "--books", prompts},
		{"eval", "--prompts", prompts, "--gate", "lax"},
		{"eval", "--beir", dir, "--modes", "hook"},
	} {
		if r := grimoire(t, dir, bad...); r.code != exitInvalid {
			t.Errorf("%v: exit %d, want a usage error\n%s", bad, r.code, r.stderr)
		}
	}
}

func TestEvalBooksMistakes(t *testing.T) {
	t.Parallel()
	lib, questions := tinyBooks(t)
	dir := t.TempDir()
	work := filepath.Join(dir, "work")

	// Questions about a file the library does not hold are run, and said.
	other := filepath.Join(dir, "other.jsonl")
	writeFile(t, other, `{"id": "x1", "question": "What is a monad?", "book": "ch09.md", "chapter": "Monads", "evidence": ["a monad is a pointed functor that can flatten"], "kind": "keyword", "also_in": []}
{"id": "x2", "question": "Where does the Dormouse's story happen?", "book": "tea.md", "chapter": "The Mad Tea-Party › The Dormouse's Story", "evidence": ["at the bottom of a treacle well, and they drew water"], "kind": "keyword", "also_in": []}
`)
	r := grimoire(t, dir, "eval", "--books", other, "--library", lib, "--workdir", work, "--modes", "fts")
	if r.code != 0 || !strings.Contains(r.stderr, "x1 (ch09.md)") || !strings.Contains(r.stderr, "1 question without a passage holding an evidence quote") || !strings.Contains(r.stderr, ": x2") {
		t.Errorf("questions the library cannot answer: exit %d\n%s", r.code, r.stderr)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bm25 is for BEIR", []string{"eval", "--books", questions, "--modes", "bm25"}, exitInvalid, "bm25"},
		{"an unknown mode", []string{"eval", "--books", questions, "--modes", "hybird"}, exitInvalid, "hybird"},
		{"two sets at once", []string{"eval", "--books", questions, "--beir", dir}, exitInvalid, "one of"},
		{"no questions file", []string{"eval", "--books", filepath.Join(dir, "none.jsonl"), "--library", lib, "--workdir", work}, exitInvalid, "none.jsonl"},
		{"compare a missing run", []string{"eval", "compare", filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")}, exitInvalid, "a.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := grimoire(t, dir, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
		})
	}
}

func TestEvalBEIR(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	col := filepath.Join(dir, "tiny")
	writeFile(t, filepath.Join(col, "corpus.jsonl"), `{"_id": "d1", "title": "Vitamin D", "text": "Vitamin D deficiency is common in northern winters."}
{"_id": "d2", "title": "Sleep", "text": "Adults need seven to nine hours of sleep."}
{"_id": "d2-copy", "title": "Sleep", "text": "Adults need seven to nine hours of sleep."}
{"_id": "d3", "title": "Iron", "text": "Spinach holds less iron than once believed."}
`)
	writeFile(t, filepath.Join(col, "queries.jsonl"), `{"_id": "1", "text": "vitamin D in winter"}
{"_id": "2", "text": "how many hours of sleep do adults need"}
`)
	writeFile(t, filepath.Join(col, "qrels", "dev.tsv"), "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td2-copy\t1\n")
	perQuery := filepath.Join(dir, "tiny.jsonl")
	out := ok(t, dir, "eval", "--beir", col, "--modes", "fts,bm25", "--per-query", perQuery)
	for _, want := range []string{"tiny-dev", "NDCG@10", "RECALL@100", "NO-MATCH", "fts ", "bm25 "} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	recs, err := eval.ReadRecords(perQuery)
	if err != nil || len(recs) != 4 {
		t.Fatalf("records %+v, %v", recs, err)
	}
	for _, r := range recs {
		// Two documents with one text are one book with two paths: the
		// relevant copy is found through either. The baseline keeps a row
		// per document, and ranks the other copy first.
		want := 1
		if r.Mode == eval.ModeBM25 && r.ID == "2" {
			want = 2
		}
		if r.Rank != want || r.Metrics[eval.Recall10] != 1 || r.Kind != eval.KindBEIR {
			t.Errorf("record %+v, want rank %d", r, want)
		}
		if (r.Mode == eval.ModeBM25) != (r.NoMatch == nil) {
			t.Errorf("%s: no_match %v; only bm25 has no verdict", r.Mode, r.NoMatch)
		}
	}
}

// A hit from one edition that lists, under also_in, the Markdown file of a
// book made of a folder counts for a question about that file: its anchor
// names it.
func TestPassagesCountAlsoInAnchors(t *testing.T) {
	t.Parallel()
	q := eval.BookQuestion{ID: "q1", Kind: eval.Keyword, Book: "ch03.md",
		Evidence: []string{"a pure function is a function without side effects"}}
	hit := retrieve.HitView{
		PlaceView: retrieve.PlaceView{Path: "/lib/docx/guide.docx", Paths: []string{"/lib/docx/guide.docx"}, Anchor: "p73"},
		Text:      "A pure function is a function without side effects.",
		AlsoIn:    []retrieve.PlaceView{{Path: "/lib/markdown/guide", Paths: []string{"/lib/markdown/guide"}, Anchor: "ch03.md#L5"}},
	}
	if got := eval.NewBookJudge(q).Judge(passages([]retrieve.HitView{hit})); got.Answer != 1 {
		t.Errorf("answer at %d, want 1", got.Answer)
	}
	hit.AlsoIn[0].Anchor = "ch04.md#L5"
	if got := eval.NewBookJudge(q).Judge(passages([]retrieve.HitView{hit})); got.Answer != 0 {
		t.Errorf("answer at %d for another file, want none", got.Answer)
	}
}
