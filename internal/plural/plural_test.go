package plural

import "testing"

func TestCount(t *testing.T) {
	cases := []struct {
		n    int
		noun string
		want string
	}{
		{0, "book", "0 books"},
		{1, "book", "1 book"},
		{2, "book", "2 books"},
		{1, "file", "1 file"},
		{-1, "file", "-1 files"},
		{1, "query", "1 query"},
		{3, "query", "3 queries"},
		{2, "section summary", "2 section summaries"},
		{2, "day", "2 days"},
		{2, "deleted book", "2 deleted books"},
		{1204, "chunk", "1,204 chunks"},
		{-1234567, "file", "-1,234,567 files"},
		{100, "book", "100 books"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			if got := Count(tc.n, tc.noun); got != tc.want {
				t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
			}
		})
	}
}
