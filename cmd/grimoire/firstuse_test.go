package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestExclusionsSpeakLikeList deletes a book by its slug and checks that
// `exclusions --json` names its content as `list --json` did, and that the
// same slug lifts the exclusion.
func TestExclusionsSpeakLikeList(t *testing.T) {
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "owls.md"), "---\ntitle: On Owls\n---\n# Night hunters\n\nOwls hunt at night.\n")
	ok(t, lib, "sync")
	var books []bookOut
	okJSON(t, &books, lib, "list")
	if len(books) != 1 || !strings.HasPrefix(books[0].Hash, "blake3-") {
		t.Fatalf("list = %+v", books)
	}
	slug, hash := books[0].Slug, books[0].Hash

	ok(t, lib, "delete", slug, "--yes")
	out := ok(t, lib, "exclusions", "--json")
	var ex []struct{ Hash, Slug, Title string }
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatalf("exclusions --json: %v\n%s", err, out)
	}
	if len(ex) != 1 || ex[0].Hash != hash || ex[0].Slug != slug {
		t.Fatalf("exclusions = %+v, want hash %s and slug %s as list gave them", ex, hash, slug)
	}

	if r := grimoire(t, lib, "exclusions", "lift", slug); r.code != 0 || !strings.Contains(r.stdout, "lifted") {
		t.Fatalf("exclusions lift %s: exit %d\n%s%s", slug, r.code, r.stdout, r.stderr)
	}
	var s syncOut
	okJSON(t, &s, lib, "sync")
	wantCounters(t, "sync after lifting", s, map[string]int{"new": 1, "ingested": 1})
}
