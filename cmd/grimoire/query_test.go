package main

import (
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/retrieve"
)

// TestNoMatches: an empty search names what it read while indexing is
// under way, and stays a bare "no matches" once it is done.
func TestNoMatches(t *testing.T) {
	t.Parallel()
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

// TestQueryNamesMissingWords: query says which of the question's words no
// book holds, in its text and on every hit of --json; a search that finds
// nothing says it on stderr under --json, whose list is empty.
func TestQueryNamesMissingWords(t *testing.T) {
	t.Parallel()
	lib := owlLibrary(t)
	out := ok(t, lib, "--library", lib, "query", "Why do owls in Kubernetes cough up pellets?")
	if !strings.HasPrefix(out, `No book in the library holds the word "Kubernetes".`) {
		t.Errorf("query's text:\n%s", out)
	}
	var hits []retrieve.HitView
	if err := jsonUnmarshal(ok(t, lib, "--library", lib, "query", "--json", "Why do owls in Kubernetes cough up pellets?"), &hits); err != nil || len(hits) == 0 {
		t.Fatalf("--json: %v, %d hits", err, len(hits))
	}
	for _, h := range hits {
		if len(h.Missing) != 1 || h.Missing[0] != "Kubernetes" {
			t.Errorf("hit %s: missing %q", h.Citation, h.Missing)
		}
	}
	r := grimoire(t, lib, "--library", lib, "query", "--json", "--mode", "fts", "yes ZQX or YWV")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "[]" || !strings.Contains(r.stderr, `holds the words "ZQX" and "YWV"`) {
		t.Errorf("nothing found, --json: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
