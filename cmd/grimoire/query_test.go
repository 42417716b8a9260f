package main

import (
	"testing"

	"github.com/grimoire-search/grimoire/retrieve"
)

// TestNoMatches: an empty search names what it read while indexing is
// under way, and stays a bare "no matches" once it is done.
func TestNoMatches(t *testing.T) {
	cases := []struct {
		name     string
		indexing *retrieve.IndexingView
		want     string
	}{
		{"indexed", nil, "no matches"},
		{"none ready", &retrieve.IndexingView{Ready: 0, Total: 13}, "no matches: no book is ready yet"},
		{"one ready", &retrieve.IndexingView{Ready: 1, Total: 13}, "no matches among the 1 book ready so far"},
		{"some ready", &retrieve.IndexingView{Ready: 4, Total: 13}, "no matches among the 4 books ready so far"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := noMatches(tc.indexing); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
