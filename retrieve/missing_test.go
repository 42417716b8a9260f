package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// shipLibrary is a library of more than absentMinChunks passages: a
// ship's log in six volumes whose days repeat ordinary words, with a few
// words of their own on some days. A book's author is named nowhere in its
// text.
func shipLibrary() []book {
	var books []book
	day := 0
	for v := range 6 {
		b := book{title: fmt.Sprintf("Ship's Log %d", v+1), author: "Herman Melville", typ: "text"}
		if v > 0 {
			b.author = "Anonymous"
		}
		for range 90 {
			text := fmt.Sprintf("Day %d. How do I configure the rigging, asked the sailor, and what is the answer to the weather today? The captain wrote in the log and the crew went below. Where did they go, why, and who does keep the watch? He reads, and writes of his leg, the break and the storm.", day)
			if day%3 == 0 {
				text += " Good work, said the captain."
			}
			switch day % 30 {
			case 1:
				text += " The purser kept the database of stores, and sent an e-mail to the owners."
			case 2:
				text += " We drink coffee at the café on the quay, and the whale passed the bowline."
			case 3:
				text += " The mate will dump the old ropes overboard at dawn; 800 fathoms of them."
			case 4:
				text += " The harpooner sharpened his iron and spoke of the white whale."
			}
			b.chunks = append(b.chunks, text)
			b.vecs = append(b.vecs, unit(1, float32(day%7), 0, 0))
			day++
		}
		books = append(books, b)
	}
	return books
}

func TestMissingWords(t *testing.T) {
	t.Parallel()
	w := newIndex(t, shipLibrary())
	s := New(&w.DB, nil, Options{Mode: FTS})
	ctx := context.Background()
	for _, tc := range []struct {
		question string
		want     []string
	}{
		{"How do I configure WireGuard on the rigging?", []string{"WireGuard"}},
		// Another form of a word the library holds: a stem, an accent, a
		// hyphen, a case.
		{"What did the purser keep in his databases?", nil},
		{"Where did they drink coffee, at the cafe?", nil},
		{"Who sent an email to the owners?", nil},
		{"WHAT DID THE HARPOONER SHARPEN?", nil},
		// A word of several parts is named as the question writes it.
		{"How do I pg_dump the database?", []string{"pg_dump"}},
		{"What does NIST SP 800-63B ask of the crew?", []string{"NIST", "SP", "800-63B"}},
		// A possessive, and punctuation around the word.
		{"How did Ahab's leg break (in the storm)?", []string{"Ahab"}},
		{"Did the crew read \"Typhoon\" below?", []string{"Typhoon"}},
		// An author the text never names is the library's all the same.
		{"What did Melville write in the log?", nil},
		// Only as a word of its own: "Anon" is no name of "Anonymous".
		{"Did Anon keep the log?", []string{"Anon"}},
		// Scripts whose words the index cannot tell apart are never named.
		{"船长在日志里写了什么?", nil},
		{"מה כתב הקפטן ביומן?", nil},
		{"", nil},
		// At most maxMissing of them.
		{"alpha bravo charlie delta echo foxtrot golf hotel india juliet", []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}},
	} {
		got, err := s.Missing(ctx, tc.question)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Missing(%q) = %q, want %q", tc.question, got, tc.want)
		}
	}
}

// TestMissingWordsSmallLibrary: a small library lacks most words; only the
// question's names are named.
func TestMissingWordsSmallLibrary(t *testing.T) {
	t.Parallel()
	w := newIndex(t, smallShelf())
	s := New(&w.DB, nil, Options{Mode: FTS})
	got, err := s.Missing(context.Background(), "Why do owls in Kubernetes hunt mice at night?")
	if err != nil || !slices.Equal(got, []string{"Kubernetes"}) {
		t.Errorf("Missing = %q, %v; want only the name", got, err)
	}
}

// TestSearchNamesMissingWords: hits and the search view carry the words no
// book holds, a search that finds nothing too.
func TestSearchNamesMissingWords(t *testing.T) {
	t.Parallel()
	w := newIndex(t, shipLibrary())
	lib := &Library{DB: &w.DB, Searcher: New(&w.DB, nil, Options{Mode: FTS})}
	ctx := context.Background()
	v, err := lib.Search(ctx, Query{Text: "How do I configure WireGuard on the rigging?"})
	if err != nil || len(v.Hits) == 0 {
		t.Fatalf("search: %v, %d hits", err, len(v.Hits))
	}
	for _, h := range v.Hits {
		if !slices.Equal(h.Missing, []string{"WireGuard"}) {
			t.Errorf("hit %q: missing %q", h.Text, h.Missing)
		}
	}
	if !slices.Equal(v.Missing, []string{"WireGuard"}) {
		t.Errorf("view: missing %q", v.Missing)
	}
	v, err = lib.Search(ctx, Query{Text: "zzyzx qwerty"})
	if err != nil || len(v.Hits) != 0 || !slices.Equal(v.Missing, []string{"zzyzx", "qwerty"}) {
		t.Errorf("a search that finds nothing: %v, %d hits, missing %q", err, len(v.Hits), v.Missing)
	}
	if got := MissingLine(v.Missing); got != `No book in the library holds the words "zzyzx" and "qwerty".` {
		t.Errorf("MissingLine = %q", got)
	}
}

// TestVerdictReadsTheQuestion: phrasings find passages but do not vouch
// for them. A phrasing in the library's words finds its passages for a
// question they do not answer; the verdict is still no.
func TestVerdictReadsTheQuestion(t *testing.T) {
	t.Parallel()
	w := newIndex(t, shipLibrary())
	s := New(&w.DB, nil, Options{Mode: FTS})
	hits := search(t, s, Query{Text: "Which vintages of Burgundy age best in oak barrels?", Phrasings: []string{"the captain wrote in the log and the crew went below"}})
	if len(hits) == 0 || !NoMatch(hits) {
		t.Fatalf("no-match %v for a question the phrasing's passages do not answer (%d hits)", NoMatch(hits), len(hits))
	}
	if hits[0].Coverage > 0.1 {
		t.Errorf("coverage %v: the question's, not the phrasing's", hits[0].Coverage)
	}
	// Asked in other words, a question the passages answer still gets them.
	hits = search(t, s, Query{Text: "What did the harpooner sharpen?", Phrasings: []string{"harpooner iron"}})
	if len(hits) == 0 || NoMatch(hits) || !strings.Contains(hits[0].Text, "harpooner sharpened") {
		t.Errorf("a question the passages answer: no-match %v, first %q", NoMatch(hits), hits[0].Text)
	}
}

// TestCoverageOfLettersBeyondASCII: a term is looked for by its letters,
// not its bytes: half a Hebrew letter ends no word.
func TestCoverageOfLettersBeyondASCII(t *testing.T) {
	t.Parallel()
	lib := append(smallShelf(), book{"Sailing", "Avishai", "text", []string{"אבישי נכנס לבניין מנהלת המרינה ושאל על הסירה"}, [][]float32{unit(0, 0, 0, 1)}, nil})
	w := newIndex(t, lib)
	s := New(&w.DB, nil, Options{Mode: FTS})
	hits := search(t, s, Query{Text: "מי נכנס לבניין מנהלת המרינה"})
	// All but "מי" (who), which the passage does not say.
	if len(hits) == 0 || hits[0].Coverage < 0.6 {
		t.Errorf("coverage of a Hebrew question in the passage's words: %v", hits)
	}
}

func FuzzQuestionSpans(f *testing.F) {
	for _, s := range []string{"How do I pg_dump the 800-63B database?", "Ahab's (leg)", "“Typhoon”", "\xff'\xfes", "''s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		for _, sp := range questionSpans(q) {
			if sp.text == "" || !strings.Contains(q, sp.text) || len(sp.parts) == 0 {
				t.Fatalf("questionSpans(%q) gave %+v", q, sp)
			}
		}
		MissingLine(strings.Fields(q))
	})
}
