package retrieve

import (
	"slices"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	tests := []struct {
		question string
		want     []string
	}{
		{"What is the name of Don Quixote's horse?", []string{"Don", "Quixote"}},
		{"How do I configure SAML single sign-on?", []string{"SAML"}},
		{"How do I train a network in PyTorch?", []string{"PyTorch"}},
		{"Why does Ahab hunt the whale? Ishmael tells.", []string{"Ahab"}}, // a sentence's first word is not a name
		{"I wonder what the whale means", nil},
		{"Egg Cholesterol in the Diet", nil}, // title case
		{"Egg Cholesterol and LDL in the Diet", []string{"LDL"}},
		{"WHY IS THE SEA SALT", nil},
		{"the role of NF2 in tumours", []string{"NF2"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := names(tc.question); !slices.Equal(got, tc.want) {
			t.Errorf("names(%q) = %q, want %q", tc.question, got, tc.want)
		}
	}
}

func TestTellingNames(t *testing.T) {
	tests := []struct {
		question string
		want     []string
	}{
		{"What is the name of Don Quixote's horse?", []string{"Don", "Quixote"}},
		// Codes are written in many forms: their absence says little.
		{"Tell me why HOXB4 facilitates HSC expansion.", []string{"HSC"}},
		{"Does the G94P mutant of H4 bind Rad53?", nil},
		// An abbreviation the question spells out.
		{"Is the Commelina yellow mottle virus' (ComYMV) genome small?", []string{"Commelina"}},
		{"Certain human dialyzable leukocyte extract (hDLE) peptides bind TLRs.", []string{"TLRs"}},
		{"Do broadly neutralizing antibodies (BNAbs) from Smith bind lipids?", []string{"Smith"}},
		// Parentheses that abbreviate nothing before them.
		{"How does the query language (PromQL) work?", []string{"PromQL"}},
		{"Why does Alice (ABC) cry?", []string{"Alice", "ABC"}},
		{"Unclosed (SAML", []string{"SAML"}},
	}
	for _, tc := range tests {
		if got := tellingNames(tc.question); !slices.Equal(got, tc.want) {
			t.Errorf("tellingNames(%q) = %q, want %q", tc.question, got, tc.want)
		}
	}
}

// A question that names someone the library never mentions gets no-match
// although its other words are covered; a name the library holds, in its
// text or as a book's author, does not.
func TestNoMatchForUnknownNames(t *testing.T) {
	lib := append(smallShelf(), book{"Wonderland", "Lewis Carroll", "text", []string{
		"Alice began to cry, and she cried so much that her tears made a pool around her.",
		"The Queen shouted at the gardeners, and what happens to them in the story is sad.",
		"The Cheshire Cat grinned from the branch of a tree.",
	}, [][]float32{unit(0, 0, 1, 0), unit(0, 0, 1, 0), unit(0, 0, 1, 0)}, nil})
	w := newIndex(t, lib)
	s := New(&w.DB, nil, Options{Mode: FTS})
	for _, tc := range []struct {
		question string
		noMatch  bool
	}{
		{"Why does Alice cry so much?", false},
		{"Why does Ophelia cry so much?", true},
		{"Why does Carroll's Alice cry so much?", false},
		// A code, or an abbreviation the question spells out, that the
		// library lacks: its other words decide.
		{"Why does Alice cry so much in TX42?", false},
		{"Why did Alice cry a pool of tears (APT)?", false},
		{"Why did Alice cry an APT?", true},
		// A name misspelled: the passage holds it, beside the question's
		// other words; alone it is another name.
		{"Why does the Chesire Cat grin from the branch?", false},
		{"Why does the Chesire Dog sleep so much?", true},
	} {
		hits := search(t, s, Query{Text: tc.question})
		if NoMatch(hits) != tc.noMatch {
			t.Errorf("%q: no_match %v, want %v (coverage %v)", tc.question, NoMatch(hits), tc.noMatch, hits[0].Coverage)
		}
	}
}

func FuzzNames(f *testing.F) {
	for _, s := range []string{"What is the name of Don Quixote's horse?", "NF2 and YAP1", "É. Zola’s Nana", "\xff\xfeA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		all := names(q)
		for _, n := range all {
			if n == "" || !strings.Contains(q, n) {
				t.Fatalf("names(%q) gave %q", q, n)
			}
		}
		for _, n := range tellingNames(q) {
			if !slices.Contains(all, n) {
				t.Fatalf("tellingNames(%q) gave %q, which names does not", q, n)
			}
		}
	})
}
