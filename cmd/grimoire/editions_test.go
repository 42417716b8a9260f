package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

type placeOut struct {
	Book, Path string
	ChunkIndex int `json:"chunk_index"`
}

type distinctHitOut struct {
	hitOut
	AlsoIn []placeOut `json:"also_in"`
}

// TestEditionsAreOneHit: three editions of Alice (the Gutenberg text and
// EPUB, and an abridged EPUB) in one library. A passage all three hold is
// one hit that lists the other two, in JSON and in the human output; the
// Gutenberg EPUB's licence is not searchable.
func TestEditionsAreOneHit(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	for _, p := range [][]string{{"text", "11-0.txt"}, {"epub", "pg11.epub"}, {"epub", "epubjs-alice.epub"}} {
		copyFile(t, testcorpus.Path(t, append([]string{"books"}, p...)...), filepath.Join(lib, p[1]))
	}
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != 3 || s.Failed != 0 {
		t.Fatalf("sync: %+v", s)
	}
	var books []bookOut
	okJSON(t, &books, lib, "list")
	var slugs []string
	for _, b := range books {
		slugs = append(slugs, b.Slug)
	}
	slices.Sort(slugs)

	q := "the Cheshire Cat grinned; I didn't know that Cheshire cats always grinned"
	var hits []distinctHitOut
	okJSON(t, &hits, lib, "query", q, "--limit", "10")
	var cat []distinctHitOut
	for _, h := range hits {
		if strings.Contains(strings.ToLower(h.Text), "always grinned") {
			cat = append(cat, h)
		}
	}
	// Neighbouring chunks of one edition overlap a little, and both may
	// hold the line; other editions' copies are never hits of their own.
	if len(cat) == 0 {
		t.Fatalf("no hit holds the Cheshire-cat passage: %+v", hits)
	}
	for _, h := range cat[1:] {
		if h.Book != cat[0].Book {
			t.Errorf("the passage is a hit from %s and from %s", cat[0].Book, h.Book)
		}
	}
	places := []string{cat[0].Book}
	for _, p := range cat[0].AlsoIn {
		places = append(places, p.Book)
		if p.Path == "" || p.Path == cat[0].Path {
			t.Errorf("also in %+v", p)
		}
	}
	slices.Sort(places)
	if !slices.Equal(places, slugs) {
		t.Errorf("the passage is in %v, want all three editions %v", places, slugs)
	}
	// A search still returns as many distinct passages as asked for.
	if len(hits) != 10 {
		t.Errorf("%d hits, want 10", len(hits))
	}

	out := ok(t, lib, "query", q, "--limit", "3")
	for _, p := range cat[0].AlsoIn {
		if !strings.Contains(out, "also in: "+p.Path) && !strings.Contains(out, "         "+p.Path) {
			t.Errorf("human output does not list %s:\n%s", p.Path, out)
		}
	}

	for _, words := range []string{"PROJECT GUTENBERG LICENSE", "Section 1. General Terms of Use"} {
		for _, mode := range []string{"hybrid", "fts"} {
			okJSON(t, &hits, lib, "query", words, "--mode", mode, "--limit", "20")
			for _, h := range hits {
				text := strings.ToLower(h.Text)
				if strings.Contains(text, "gutenberg license") || strings.Contains(text, "gutenberg™ license") || strings.Contains(text, "general terms of use") {
					t.Errorf("%q (%s) finds the licence in %s: %.100q", words, mode, h.Book, h.Text)
				}
			}
		}
	}
}
