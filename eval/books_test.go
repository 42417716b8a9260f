package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadBookQuestions(t *testing.T) {
	good := `{"id": "q001", "question": "Why?", "book": "a.txt", "chapter": "CHAPTER I", "evidence": ["one two three four five six"], "kind": "paraphrase", "also_in": []}

{"id": "q003", "question": "Is it there?", "book": "", "chapter": "", "evidence": [], "kind": "negative", "also_in": [], "note": "extra fields are fine"}
`
	tests := []struct {
		name, content, wantErr string
		want                   int
	}{
		{"good", good, "", 2},
		{"duplicate id", good + `{"id": "q001", "question": "Again?", "book": "a.txt", "evidence": ["q"], "kind": "keyword"}` + "\n", "twice", 0},
		{"no kind", `{"id": "q1", "question": "Why?", "book": "a.txt", "evidence": ["q"]}`, "no kind", 0},
		{"answerable without a book", `{"id": "q1", "question": "Why?", "evidence": ["q"], "kind": "keyword"}`, "no book", 0},
		{"answerable without a quote", `{"id": "q1", "question": "Why?", "book": "a.txt", "evidence": [" "], "kind": "keyword"}`, "no evidence", 0},
		{"negative with a book", `{"id": "q1", "question": "Why?", "book": "a.txt", "kind": "negative"}`, "negative", 0},
		{"no question", `{"id": "q1", "question": "", "book": "a.txt", "evidence": ["q"], "kind": "keyword"}`, "no question", 0},
		{"not JSON", `{"id": `, "qa.jsonl:1", 0},
		{"empty", "\n", "no questions", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "qa.jsonl")
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			qs, err := LoadBookQuestions(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != tc.want || !qs[0].Answerable() || qs[1].Answerable() {
				t.Errorf("questions %+v", qs)
			}
		})
	}
}

func TestLoadPhrasings(t *testing.T) {
	good := `{"id": "q001", "query": "Why?", "queries": ["why so", "for what reason"]}
{"id": "q003", "query": "Is it there?"}
`
	tests := []struct {
		name, content, wantErr string
	}{
		{"good", good, ""},
		{"duplicate id", good + `{"id": "q001", "query": "Again?"}` + "\n", "twice"},
		{"no id", `{"query": "Why?"}`, "without an id"},
		{"no query", `{"id": "q1", "queries": ["why"]}`, "no query"},
		{"empty", "\n", "no phrasings"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "phrasings.jsonl")
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			ps, err := LoadPhrasings(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 2 || len(ps["q001"].Queries) != 2 || ps["q003"].Query != "Is it there?" {
				t.Errorf("phrasings %+v", ps)
			}
		})
	}
}

func TestLoadPrompts(t *testing.T) {
	good := `{"id": "p001", "prompt": "fix the failing test", "kind": "code"}
{"id": "p003", "prompt": "lgtm ship it", "kind": "git"}
`
	tests := []struct {
		name, content, wantErr string
	}{
		{"good", good, ""},
		{"duplicate id", good + `{"id": "p001", "prompt": "again"}` + "\n", "twice"},
		{"no id", `{"prompt": "why"}`, "without an id"},
		{"not JSON", `{"id": "p1", "prompt": `, "p"},
		{"empty", "\n", "no prompts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "prompts.jsonl")
			if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			ps, err := LoadPrompts(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 2 || ps[1].ID != "p003" || ps[1].Prompt != "lgtm ship it" || ps[0].Kind != "code" {
				t.Errorf("prompts %+v", ps)
			}
		})
	}
}

func TestBookJudge(t *testing.T) {
	q := BookQuestion{
		ID: "q1", Kind: Paraphrase, Book: "11-0.txt", AlsoIn: []string{"pg11.epub"},
		Chapter:  "CHAPTER VI. Pig and Pepper",
		Evidence: []string{"I speak severely to my boy, I beat him when he sneezes", "a second quote never found"},
	}
	answer := "\u2018I speak severely to my boy,\nI beat him when he sneezes;\u2019"
	pig := func(path, text string) Passage {
		return Passage{Paths: []string{path}, Chapter: "CHAPTER VI. Pig and Pepper", Section: "Section 2", Text: text}
	}
	other := Passage{Paths: []string{"/lib/text/pg84.txt"}, Chapter: "Chapter 6", Text: answer}
	tests := []struct {
		name string
		hits []Passage
		want BookResult
	}{
		{"answer first", []Passage{pig("/lib/text/11-0.txt", answer)}, BookResult{Answer: 1, Chapter: 1}},
		{"another edition counts", []Passage{other, pig("/lib/epub/pg11.epub", answer)}, BookResult{Answer: 2, Chapter: 2}},
		{"the quote in another book does not", []Passage{other}, BookResult{}},
		{"the right chapter without the quote", []Passage{pig("/lib/text/11-0.txt", "The Duchess sang."), other, pig("/lib/text/11-0.txt", answer)}, BookResult{Answer: 3, Chapter: 1}},
		{"a book of another name", []Passage{pig("/lib/text/x11-0.txt", answer)}, BookResult{}},
		{"a path among several", []Passage{{Paths: []string{"/a/copy.txt", "/lib/text/11-0.txt"}, Text: answer}}, BookResult{Answer: 1}},
		{"the anchor names the file of a folder book", []Passage{{Paths: []string{"/lib/alice"}, Anchors: []string{"text/11-0.txt#L40"}, Text: answer}}, BookResult{Answer: 1}},
		{"ranks past five", append(repeat(other, 5), pig("/lib/text/11-0.txt", answer)), BookResult{Answer: 6, Chapter: 6}},
		{"nothing", nil, BookResult{}},
	}
	j := NewBookJudge(q)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := j.Judge(tc.hits); got != tc.want {
				t.Errorf("Judge = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func repeat(p Passage, n int) []Passage {
	out := make([]Passage, n)
	for i := range out {
		out[i] = p
	}
	return out
}

func TestBookResultMetrics(t *testing.T) {
	tests := []struct {
		r    BookResult
		want map[string]float64
	}{
		{BookResult{Answer: 1, Chapter: 1}, map[string]float64{Answer1: 1, Answer5: 1, Answer10: 1, Chapter5: 1, MRR: 1}},
		{BookResult{Answer: 4, Chapter: 5}, map[string]float64{Answer1: 0, Answer5: 1, Answer10: 1, Chapter5: 1, MRR: 0.25}},
		{BookResult{Answer: 10, Chapter: 6}, map[string]float64{Answer1: 0, Answer5: 0, Answer10: 1, Chapter5: 0, MRR: 0.1}},
		{BookResult{}, map[string]float64{Answer1: 0, Answer5: 0, Answer10: 0, Chapter5: 0, MRR: 0}},
	}
	for _, tc := range tests {
		got := tc.r.Metrics()
		for m, v := range tc.want {
			if got[m] != v {
				t.Errorf("%+v: %s = %v, want %v", tc.r, m, got[m], v)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%+v: metrics %v", tc.r, got)
		}
	}
}
