package suggest

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClosest(t *testing.T) {
	slugs := []string{
		"alice-s-adventures-in-wonderland",
		"alice-s-adventures-in-wonderland-3",
		"moby-dick",
		"pride-and-prejudice",
		"the-rust-programming-language",
	}
	retrieval := []string{"mode", "rrf_k", "candidate_pool", "fts_weight", "vector_weight", "fusion"}
	for _, tc := range []struct {
		name  string
		typo  string
		names []string
		n     int
		want  []string
	}{
		{"swapped letters in a prefix", "alcie", slugs, 3, []string{"alice-s-adventures-in-wonderland", "alice-s-adventures-in-wonderland-3"}},
		{"a word inside the slug", "wonderland", slugs, 3, []string{"alice-s-adventures-in-wonderland", "alice-s-adventures-in-wonderland-3"}},
		{"a misspelt word inside", "prejudise", slugs, 3, []string{"pride-and-prejudice"}},
		{"a missing hyphen", "mobydick", slugs, 3, []string{"moby-dick"}},
		{"at most n", "alice", slugs, 1, []string{"alice-s-adventures-in-wonderland"}},
		{"nothing near", "zzzzzz", slugs, 3, []string{}},
		{"a short typo must start a word", "ru", slugs, 3, []string{"the-rust-programming-language"}},
		{"a short typo is not edited", "rx", slugs, 3, []string{}},
		{"config key swap", "mdoe", retrieval, 3, []string{"mode"}},
		{"config key cut short", "candidate", retrieval, 3, []string{"candidate_pool"}},
		{"config key with a dropped letter", "fuson", retrieval, 3, []string{"fusion"}},
		{"empty typo", "", slugs, 3, nil},
		{"duplicates once", "mode", []string{"mode", "mode"}, 3, []string{"mode"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Closest(tc.typo, tc.names, tc.n)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Closest(%q) = %q, want %q", tc.typo, got, tc.want)
			}
		})
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"mode", "mdoe", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment: no edit after a swap
		{"édition", "edition", 1},
	} {
		if got := Distance([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestList(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, `"a"`},
		{[]string{"a", "b"}, `"a" or "b"`},
		{[]string{"a", "b", "c"}, `"a", "b" or "c"`},
	} {
		if got := List(tc.in); got != tc.want {
			t.Errorf("List(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func FuzzClosest(f *testing.F) {
	f.Add("alcie", "alice-in-wonderland", "moby-dick")
	f.Add("", "", "a")
	f.Add("ab", "ba", "b-a")
	f.Add("\xff", "é-\xff", "--")
	f.Fuzz(func(t *testing.T, typo, a, b string) {
		if len(typo)+len(a)+len(b) > 600 {
			return // long inputs only slow the fuzzer down
		}
		names := []string{a, b}
		got := Closest(typo, names, 2)
		if len(got) > 2 {
			t.Fatalf("%d suggestions, asked for 2", len(got))
		}
		for i, g := range got {
			if !slices.Contains(names, g) || slices.Index(got, g) != i {
				t.Fatalf("suggestion %q is not one of %q once", g, names)
			}
		}
		ra, rb := []rune(a), []rune(b)
		d := Distance(ra, rb)
		if d != Distance(rb, ra) {
			t.Fatalf("Distance(%q, %q) is not symmetric", a, b)
		}
		if (d == 0) != slices.Equal(ra, rb) || d > max(len(ra), len(rb)) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, d)
		}
		if utf8.ValidString(a) && strings.Contains(a, typo) && utf8.RuneCountInString(typo) >= 3 && a != b && !slices.Contains(got, a) && len(got) < 2 {
			t.Fatalf("%q holds %q but is not suggested: %q", a, typo, got)
		}
	})
}
