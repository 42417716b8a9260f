package retrieve

import (
	"maps"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneEdit(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"chesire", "cheshire", true},         // a letter left out
		{"catterpillar", "caterpillar", true}, // one added
		{"precose", "precise", true},          // one changed
		{"recieve", "receive", true},          // neighbours swapped
		{"cheshire", "cheshire", false},       // the same word
		{"chesire", "cheshires", false},       // two edits
		{"abcdef", "badcfe", false},           // three swaps
		{"ab", "ba", true},
		{"", "a", true},
		{"über", "uber", true}, // runes, not bytes
	}
	for _, tc := range tests {
		for _, pair := range [][2]string{{tc.a, tc.b}, {tc.b, tc.a}} {
			if got := oneEdit([]rune(pair[0]), []rune(pair[1])); got != tc.want {
				t.Errorf("oneEdit(%q, %q) = %v, want %v", pair[0], pair[1], got, tc.want)
			}
		}
	}
}

// editDistance is the optimal string alignment distance, by the textbook
// table, for checking oneEdit against.
func editDistance(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func FuzzOneEdit(f *testing.F) {
	f.Add("chesire", "cheshire")
	f.Add("recieve", "receive")
	f.Add("ab", "ba")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || len(a) > 64 || len(b) > 64 {
			return
		}
		ra, rb := []rune(a), []rune(b)
		if got, want := oneEdit(ra, rb), editDistance(ra, rb) == 1; got != want {
			t.Fatalf("oneEdit(%q, %q) = %v, distance %d", a, b, got, editDistance(ra, rb))
		}
	})
}

func TestRespell(t *testing.T) {
	pw := spellings([]string{
		"The Cheshire Cat grinned from the branch.",
		"She was touching the creative work of others.",
		"Sprechen Sie über Kätzchen?",
	}, 100)
	// What wordDocs would give: the library holds every word of the hits,
	// "the" in most chunks.
	stems := func(words ...string) map[string]string {
		m := make(map[string]string)
		for _, w := range words {
			m[w] = w
		}
		return m
	}
	df := map[string]int{"cat": 3, "the": 90, "branch": 2, "work": 5, "kätzchen": 1, "sprechen": 4}
	tests := []struct {
		name  string
		words []string
		want  map[string]string
	}{
		{"beside a word the passage holds", []string{"where", "the", "chesire", "cat"}, map[string]string{"chesire": "cheshire"}},
		{"alone", []string{"chesire"}, nil},
		{"beside a word in most chunks only", []string{"the", "chesire"}, nil},
		{"beside a word of another passage", []string{"chesire", "work"}, nil},
		{"too short", []string{"grinn", "cat"}, nil},
		{"a code", []string{"cheshir3", "cat"}, nil},
		{"folded as the index folds", []string{"katzchn", "sprechen"}, map[string]string{"katzchn": "katzchen"}},
		{"beside only the word it stands for", []string{"katzchn", "kätzchen"}, nil},
		{"a word the library holds", []string{"cat", "branch"}, nil},
	}
	for _, tc := range tests {
		got := respell(tc.words, stems(tc.words...), df, pw)
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: respell(%q) = %v, want %v", tc.name, tc.words, got, tc.want)
		}
	}
}

// A misspelled word finds the passage that spells it right, and the verdict
// counts it as held.
func TestSearchRespells(t *testing.T) {
	w := newIndex(t, []book{{"Wonderland", "Lewis Carroll", "text", []string{
		"The cat sat on the mat by the door.",
		"A cat chased a mouse around the garden.",
		"The Cheshire cat grinned from a branch and then vanished slowly.",
		"Owls hunt mice at night.",
		"Bees make honey from nectar.",
		"The Queen shouted at the gardeners.",
	}, [][]float32{unit(1, 0, 0, 0), unit(1, 0, 0, 0), unit(1, 0, 0, 0), unit(1, 0, 0, 0), unit(1, 0, 0, 0), unit(1, 0, 0, 0)}, nil}})
	s := New(&w.DB, nil, Options{Mode: FTS})
	hits := search(t, s, Query{Text: "the Chesire cat"})
	if len(hits) == 0 || !strings.Contains(hits[0].Text, "Cheshire") || NoMatch(hits) {
		t.Fatalf("first hit %q, no_match %v", hits[0].Text, NoMatch(hits))
	}
	// Alone, a word one letter from another is not read as it.
	if hits := search(t, s, Query{Text: "Chesire"}); len(hits) > 0 && strings.Contains(hits[0].Text, "Cheshire") && !NoMatch(hits) {
		t.Errorf("a lone word was respelled: %q", hits[0].Text)
	}
}

func FuzzReplaceWords(f *testing.F) {
	f.Add("Where does the Chesire Cat appear?", "chesire")
	f.Add("É. Zola’s Nana", "zola")
	f.Add("\xff\xfeA b", "a")
	f.Fuzz(func(t *testing.T, text, word string) {
		if got := replaceWords(text, nil); got != text {
			t.Fatalf("replaceWords(%q, nil) = %q", text, got)
		}
		got := replaceWords(text, map[string]string{strings.ToLower(word): "cheshire"})
		if got != text && !strings.Contains(strings.ToLower(text), strings.ToLower(word)) {
			t.Fatalf("replaceWords(%q) changed a text without %q: %q", text, word, got)
		}
	})
}
