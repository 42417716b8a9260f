package eval

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// Kinds of book question.
const (
	// Keyword questions use the passage's own names and terms.
	Keyword = "keyword"
	// Paraphrase questions ask about the passage in other words.
	Paraphrase = "paraphrase"
	// Negative questions are answered by no book: the right answer is the
	// no-match signal.
	Negative = "negative"
)

// BookQuestion is one line of the book-question format: a question people
// ask about their books, the file that answers it, where in it, and
// verbatim quotes of the passage that does.
type BookQuestion struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// Book is the answering file's name (its base name, or a path ending
	// in it); empty for negatives.
	Book string `json:"book"`
	// Chapter is the passage's place as the book's own table of contents
	// names it, outermost entry first, joined by " › ".
	Chapter string `json:"chapter"`
	// Evidence are quotes of the answering passage; a hit holding any one
	// of them answers the question.
	Evidence []string `json:"evidence"`
	Kind     string   `json:"kind"`
	// AlsoIn are other files (other editions) whose text holds a quote; a
	// hit there counts like one in Book.
	AlsoIn []string `json:"also_in"`
}

// Answerable reports whether the library holds the question's answer.
func (q BookQuestion) Answerable() bool { return q.Kind != Negative }

// LoadBookQuestions reads a JSON Lines file of BookQuestion, checking each
// line: an id seen once, a question and a kind; for an answerable question
// a book and at least one non-empty quote; for a negative one neither.
func LoadBookQuestions(file string) ([]BookQuestion, error) {
	var out []BookQuestion
	seen := make(map[string]bool)
	err := readJSONL(file, func(line []byte) error {
		var q BookQuestion
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		if err := q.check(); err != nil {
			return err
		}
		if seen[q.ID] {
			return fmt.Errorf("question id %q appears twice", q.ID)
		}
		seen[q.ID] = true
		out = append(out, q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no questions", file)
	}
	return out, nil
}

// Phrasing is how a client model asks a book question: a query and more
// ways of saying it (qa/books-dev-phrasings.jsonl), as the search tool's
// query and queries.
type Phrasing struct {
	ID      string   `json:"id"`
	Query   string   `json:"query"`
	Queries []string `json:"queries"`
}

// LoadPhrasings reads a JSON Lines file of Phrasing by question id: each
// line an id seen once and a query.
func LoadPhrasings(file string) (map[string]Phrasing, error) {
	out := make(map[string]Phrasing)
	err := readJSONL(file, func(line []byte) error {
		var p Phrasing
		if err := json.Unmarshal(line, &p); err != nil {
			return err
		}
		switch {
		case strings.TrimSpace(p.ID) == "":
			return fmt.Errorf("a phrasing without an id")
		case strings.TrimSpace(p.Query) == "":
			return fmt.Errorf("phrasing %s: no query", p.ID)
		case out[p.ID].ID != "":
			return fmt.Errorf("phrasing id %q appears twice", p.ID)
		}
		out[p.ID] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no phrasings", file)
	}
	return out, nil
}

func (q BookQuestion) check() error {
	switch {
	case strings.TrimSpace(q.ID) == "":
		return fmt.Errorf("a question without an id")
	case strings.TrimSpace(q.Question) == "":
		return fmt.Errorf("%s: no question text", q.ID)
	case q.Kind == "":
		return fmt.Errorf("%s: no kind (keyword, paraphrase or negative)", q.ID)
	case !q.Answerable():
		if q.Book != "" || len(q.Evidence) > 0 || len(q.AlsoIn) > 0 {
			return fmt.Errorf("%s: a negative question names a book or quotes", q.ID)
		}
		return nil
	case strings.TrimSpace(q.Book) == "":
		return fmt.Errorf("%s: no book", q.ID)
	}
	for _, e := range q.Evidence {
		if Normalize(e) != "" {
			return nil
		}
	}
	return fmt.Errorf("%s: no evidence quote", q.ID)
}

// Passage is what judging a book question needs of one search hit.
type Passage struct {
	// Paths are the files that hold the hit's book, and those of the
	// other books it is also in; Anchors are where in them the hit is,
	// which names the file when a folder is read as one book.
	Paths   []string
	Anchors []string
	// Chapter and Section are the titles the engine gives the hit's place.
	Chapter, Section string
	// Text is the passage itself.
	Text string
}

// BookResult is how a ranking of passages did on one question.
type BookResult struct {
	// Answer is the 1-based rank of the first passage from the right book
	// that holds an evidence quote; 0 when none does.
	Answer int
	// Chapter is the 1-based rank of the first passage from the right book
	// in the gold chapter; 0 when none is.
	Chapter int
}

// Metric names of book questions.
const (
	Answer1  = "answer@1"
	Answer5  = "answer@5"
	Answer10 = "answer@10"
	Chapter5 = "chapter@5"
)

// Metrics returns the answerable question's metrics: answer@1, @5, @10,
// chapter@5 (0 or 1 each) and the reciprocal rank of the first answer.
func (r BookResult) Metrics() map[string]float64 {
	within := func(rank, k int) float64 {
		if rank >= 1 && rank <= k {
			return 1
		}
		return 0
	}
	rr := 0.0
	if r.Answer > 0 {
		rr = 1 / float64(r.Answer)
	}
	return map[string]float64{
		Answer1: within(r.Answer, 1), Answer5: within(r.Answer, 5), Answer10: within(r.Answer, 10),
		Chapter5: within(r.Chapter, 5), MRR: rr,
	}
}

// BookJudge judges rankings for one answerable question; it normalises
// the question's quotes and chapter once.
type BookJudge struct {
	files   []string
	quotes  []string
	chapter chapterPath
}

// NewBookJudge prepares q for judging.
func NewBookJudge(q BookQuestion) *BookJudge {
	j := &BookJudge{chapter: parseChapterPath(q.Chapter)}
	for _, f := range append([]string{q.Book}, q.AlsoIn...) {
		if f = strings.Trim(strings.ReplaceAll(strings.TrimSpace(f), `\`, "/"), "/"); f != "" {
			j.files = append(j.files, f)
		}
	}
	for _, e := range q.Evidence {
		if n := Normalize(e); n != "" {
			j.quotes = append(j.quotes, n)
		}
	}
	return j
}

// Judge scores a ranking, best first.
func (j *BookJudge) Judge(hits []Passage) BookResult {
	var r BookResult
	for i, h := range hits {
		if r.Answer > 0 && r.Chapter > 0 {
			break
		}
		if !j.FromBook(h) {
			continue
		}
		if r.Chapter == 0 && j.chapter.holds(h.Chapter, h.Section) {
			r.Chapter = i + 1
		}
		if r.Answer == 0 && j.holdsQuote(h.Text) {
			r.Answer = i + 1
		}
	}
	return r
}

// FromBook reports whether a hit comes from the question's book or one of
// its other editions: a path of a book that holds the hit ends in the
// file's name, or an anchor of the hit names the file (a Markdown file
// inside a book made of a folder).
func (j *BookJudge) FromBook(h Passage) bool {
	for _, f := range j.files {
		for _, p := range h.Paths {
			if endsWithPath(strings.ReplaceAll(p, `\`, "/"), f) {
				return true
			}
		}
		for _, a := range h.Anchors {
			if a, _, _ = strings.Cut(a, "#"); a != "" && endsWithPath(strings.ReplaceAll(a, `\`, "/"), f) {
				return true
			}
		}
	}
	return false
}

// endsWithPath reports whether p is name or ends in "/"+name: "ch03.md"
// names "books/markdown/mostly-adequate-guide/ch03.md", not "xch03.md".
func endsWithPath(p, name string) bool {
	p = path.Clean(p)
	return p == name || strings.HasSuffix(p, "/"+name)
}

// Answers reports whether one passage answers the question: it comes
// from the right book and holds an evidence quote.
func (j *BookJudge) Answers(p Passage) bool {
	return j.FromBook(p) && j.holdsQuote(p.Text)
}

func (j *BookJudge) holdsQuote(text string) bool {
	t := Normalize(text)
	for _, q := range j.quotes {
		if containsNormalized(t, q) {
			return true
		}
	}
	return false
}

// ModeHook is the mode a prompt hook's outcome is recorded under: the
// passages it adds to a prompt, or its silence (NoMatch).
const ModeHook = "hook"

// KindPrompt is the kind of an ordinary prompt to an assistant, which the
// library should leave alone: its only score is NoMatch, the hook's
// silence.
const KindPrompt = "prompt"

// Prompt is an ordinary prompt typed into a coding assistant.
type Prompt struct {
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
	Kind   string `json:"kind"`
}

// LoadPrompts reads a JSON Lines file of prompts, each with an id seen
// once.
func LoadPrompts(file string) ([]Prompt, error) {
	var out []Prompt
	seen := make(map[string]bool)
	err := readJSONL(file, func(line []byte) error {
		var p Prompt
		if err := json.Unmarshal(line, &p); err != nil {
			return err
		}
		switch {
		case strings.TrimSpace(p.ID) == "":
			return fmt.Errorf("a prompt without an id")
		case seen[p.ID]:
			return fmt.Errorf("prompt id %q appears twice", p.ID)
		}
		seen[p.ID] = true
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no prompts", file)
	}
	return out, nil
}
