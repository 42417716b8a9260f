package retrieve

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	t.Parallel()
	long := "The ship left the harbour at dawn, and the crew sang as they hauled the ropes. " +
		"For three days the wind held from the west and nothing happened worth the telling. " +
		"On the fourth day the harpooner sharpened his iron and spoke of the white whale. " +
		"The captain said nothing, and went below to his charts."
	tests := []struct {
		name, text, question string
		n                    int
		want                 string
	}{
		{"short enough", "Owls hunt at night.", "Why do owls hunt?", 40, "Owls hunt at night."},
		{"the answer further on", long, "Why did the harpooner sharpen his iron?", 100,
			"…On the fourth day the harpooner sharpened his iron and spoke of the white whale. The captain said…"},
		{"nothing of the question: the start", long, "What about the weather in Lisbon?", 60,
			"The ship left the harbour at dawn, and the crew sang as…"},
		{"accents and case", "Zuerst kam nichts. Dann sprach der Kapitän vom Wal, lange und laut, bis alle schliefen.", "KAPITAN wal", 40,
			"…Dann sprach der Kapitän vom Wal, lange…"},
	}
	for _, tc := range tests {
		got := Excerpt(tc.text, tc.question, tc.n)
		if got != tc.want {
			t.Errorf("%s: Excerpt = %q, want %q", tc.name, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > tc.n {
			t.Errorf("%s: %d runes, more than %d", tc.name, n, tc.n)
		}
	}
}

func FuzzExcerpt(f *testing.F) {
	f.Add("The harpooner sharpened his iron. The captain went below.", "harpooner iron", 20)
	f.Add("\xff\xfe. . .", "\xff", 3)
	f.Fuzz(func(t *testing.T, text, question string, n int) {
		if n < 2 || n > 1000 {
			return
		}
		got := Excerpt(text, question, n)
		if utf8.RuneCountInString(got) > n {
			t.Fatalf("Excerpt(%q, %q, %d) = %q: too long", text, question, n, got)
		}
		if utf8.RuneCountInString(text) <= n && got != text {
			t.Fatalf("a text that fits was changed: %q", got)
		}
		if utf8.ValidString(text) && !strings.Contains(text, strings.Trim(strings.TrimSuffix(strings.TrimPrefix(got, "…"), "…"), " ")) {
			t.Fatalf("Excerpt(%q) = %q: not the text's", text, got)
		}
	})
}
