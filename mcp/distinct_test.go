package mcp

import (
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/retrieve"
)

// TestSearchListsOtherEditions: a passage two books hold is one result,
// and both the structured result and the text name the other book.
func TestSearchListsOtherEditions(t *testing.T) {
	f := newFixture(t)
	passage := "The keeper of the North Head light climbed the hundred and twelve steps at dusk, trimmed the wick, wound the clockwork that turned the lens, and wrote the hour in the log before the fog came in from the sea."
	f.write("keepers-first-edition.md", "# Keepers\n\n"+passage+"\n")
	f.write("keepers-second-edition.md", "# Keepers (revised)\n\n"+strings.ReplaceAll(strings.ToUpper(passage), ",", " —")+"\n")
	f.sync(t)
	var sr struct{ Results []retrieve.HitView }
	text := f.mustCall(t, "search", map[string]any{"query": "keeper wound the clockwork that turned the lens"}, &sr)
	var copies []retrieve.HitView
	for _, h := range sr.Results {
		if strings.Contains(strings.ToLower(h.Text), "clockwork") {
			copies = append(copies, h)
		}
	}
	if len(copies) != 1 || len(copies[0].AlsoIn) != 1 {
		t.Fatalf("results holding the passage: %+v", copies)
	}
	other := copies[0].AlsoIn[0]
	if other.Book == copies[0].Book || !strings.HasPrefix(other.Book, "keepers") || !strings.HasSuffix(other.Path, "-edition.md") || other.Citation == "" {
		t.Errorf("also in %+v", other)
	}
	if !strings.Contains(text, "also in: "+other.Citation+" (book="+other.Book+" ") {
		t.Errorf("text rendering does not name the other edition:\n%s", text)
	}
}
