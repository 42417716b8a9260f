package retrieve

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestDefinedTerm(t *testing.T) {
	tests := []struct {
		question string
		want     []string
	}{
		{"What is a pure function according to Professor Frisby's guide?", []string{"pure", "function"}},
		{"What is a string slice in Rust?", []string{"string", "slice"}},
		{"What are doujinshi, and what separates them from a plain copy?", []string{"doujinshi"}},
		{"What's a mixin?", []string{"mixin"}},
		{"In the Cetology chapter, how does Ishmael define a whale?", []string{"whale"}},
		{"What does idempotent mean?", []string{"idempotent"}},
		{"Who was Queequeg?", []string{"queequeg"}},
		{"Qu'est-ce qu'un topos ?", []string{"topos"}},
		{"Was ist ein Hausdorffraum?", []string{"hausdorffraum"}},
		{"WHAT IS ZERO TRUST", []string{"zero", "trust"}},
		// Not definitions.
		{"What is the difference between a job and an instance?", nil},
		{"What is the name of Don Quixote's horse?", nil},
		{"What was the strange band around the dead doctor's head?", nil},
		{"Why did Hans swap his goose?", nil},
		{"How do I define a struct in Rust?", nil},
		{"How to define a function?", nil},
		{"What is?", nil},
		{"pure function", nil},
		{"", nil},
	}
	for _, tc := range tests {
		if got := definedTerm(tc.question); !slices.Equal(got, tc.want) {
			t.Errorf("definedTerm(%q) = %q, want %q", tc.question, got, tc.want)
		}
	}
}

func TestDefines(t *testing.T) {
	tests := []struct {
		passage, term string
		want          bool
	}{
		{"One thing we need to get straight is the idea of a pure function. A pure function is a function that, given the same input, will always return the same output.", "pure function", true},
		{"Doujinshi are also comics, but they are a kind of copycat comic.", "doujinshi", true},
		{"Whales are mammals.", "whale", true},
		{"Pointfree style means never having to say your data.", "pointfree style", true},
		{"A process replicated for scalability is called an instance.", "instance", true},
		{"Ownership is one of Rust's features.", "ownership", true},
		{"Die Menge heißt offen, wenn sie jeden Punkt enthält.", "menge", true},
		// The term in a sentence that does not say what it is.
		{"The benefit of pure functions is a tad obvious.", "pure function", false},
		{"We've seen what pure functions are and why we like them.", "pure function", false},
		{"Pure function composition is fun.", "pure function", false},
		{"Pure functions are.", "pure function", false},
		{"A pure function is", "pure function", false},
		{"The cat is a pure animal.", "pure function", false},
		{"", "pure function", false},
	}
	for _, tc := range tests {
		if got := defines(sentenceWords(tc.passage), strings.Fields(tc.term)); got != tc.want {
			t.Errorf("defines(%q, %q) = %v, want %v", tc.passage, tc.term, got, tc.want)
		}
	}
}

func TestSentenceWords(t *testing.T) {
	got := sentenceWords("Él dijo: «Sí»! Then…\n\nthe END. ")
	want := []string{"el", "dijo", sentenceEnd, "si", sentenceEnd, "then", sentenceEnd, "the", "end", sentenceEnd}
	if !slices.Equal(got, want) {
		t.Errorf("sentenceWords = %q, want %q", got, want)
	}
}

// A book uses a term in many passages and says what it is in one: the
// question "what is" it finds that one first.
func TestSearchFindsTheDefinition(t *testing.T) {
	v := unit(0, 0, 0, 1)
	lib := []book{{"Functional Programming", "", "text", []string{
		"Pure functions make testing easy: pure functions need no mocks, and a pure function can be tested alone.",
		"Pure functions can be cached, since a pure function always gives the same output for the same input.",
		"Once you learn about pure functions, pure functions turn up everywhere in this guide to pure code.",
		"Let us get one thing straight. A pure function is a function without side effects.",
		"Parallel code loves pure functions: pure functions share nothing.",
		"Bees make honey from nectar.", "Rain waters the beds.", "The gardener digs.",
	}, [][]float32{v, v, v, v, v, v, v, v}, nil}}
	w := newIndex(t, lib)
	s := New(&w.DB, nil, Options{Fusion: Rerank, FTSWeight: 1})
	for _, q := range []string{"What is a pure function?", "what are pure functions"} {
		hits, err := s.Search(context.Background(), Query{Text: q, Mode: Hybrid})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Text != lib[0].chunks[3] {
			t.Errorf("%q: first hit %q, want the definition", q, hits[0].Text)
		}
	}
}

func FuzzDefinedTerm(f *testing.F) {
	f.Add("What is a pure function according to the guide?", "A pure function is a function.")
	f.Add("Qu'est-ce qu'un topos ?", "Un topos est une catégorie.")
	f.Add("what is\xff", "\xff is a")
	f.Fuzz(func(t *testing.T, question, passage string) {
		term := definedTerm(question)
		if term == nil {
			return
		}
		if len(term) > maxTermWords {
			t.Fatalf("definedTerm(%q) = %q: longer than %d words", question, term, maxTermWords)
		}
		for _, w := range term {
			if w == "" || w == sentenceEnd || termEnds[w] {
				t.Fatalf("definedTerm(%q) = %q", question, term)
			}
		}
		defines(sentenceWords(passage), term)
		// A passage that opens with the term and says what it is defines it.
		if !defines(sentenceWords("The "+strings.Join(term, " ")+" is a thing."), term) {
			t.Fatalf("the plain definition of %q does not define it", term)
		}
	})
}
