package retrieve

import (
	"testing"

	"github.com/grimoire-search/grimoire/library"
)

func TestSharedStart(t *testing.T) {
	tests := []struct {
		name, prev, next, rest string
	}{
		{"a sentence repeated", "One fish swam. Two fish swam by.", "Two fish swam by. Red fish.", "Red fish."},
		{"two sentences repeated", "Aa. Bb cc dd. Ee ff gg.", "Bb cc dd. Ee ff gg. Hh.", "Hh."},
		{"a paragraph repeated", "The first paragraph.\n\nThe second paragraph.", "The second paragraph.\n\nThe third.", "The third."},
		{"nothing shared", "One fish.", "Two fish.", "Two fish."},
		{"a word that only ends the other", "He said no", "no more was said.", "no more was said."},
		{"not inside a word", "Then the sunset was red.", "set was red. They sailed.", "set was red. They sailed."},
		{"closing braces of code", "if x {\n\tif y {\n\t}\n}", "}\n}\nreturn z", "}\n}\nreturn z"},
		{"the whole of next is never dropped", "It rained again today. It rained again today.", "It rained again today.", "It rained again today."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := sharedStart(tc.prev, tc.next)
			if got := tc.next[n:]; trimmed(got) != tc.rest {
				t.Errorf("sharedStart(%q, %q) leaves %q, want %q", tc.prev, tc.next, got, tc.rest)
			}
		})
	}
}

func trimmed(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return s
}

func TestChunkStarts(t *testing.T) {
	text := "Alpha one. Alpha two.\n\nBeta one. Beta two. Beta three.\n\nGamma."
	chunks := []library.Chunk{
		{Text: "Alpha one. Alpha two."},
		{Text: "Alpha two.\n\nBeta one. Beta two."},
		{Text: "Beta two. Beta three.\n\nGamma."},
		{Text: "Nowhere to be found."},
	}
	got := chunkStarts(text, chunks)
	want := []int{0, 11, 33, -1}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("chunk %d starts at %d, want %d", i, got[i], want[i])
		}
	}
}
