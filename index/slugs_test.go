package index

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/library"
)

var librarySlugs = []string{
	"alice-s-adventures-in-wonderland",
	"alice-s-adventures-in-wonderland-3",
	"moby-dick",
	"moby-dick-or-the-whale",
	"pride-and-prejudice",
}

func TestResolveSlug(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  string
		want string
		code fault.Code
		// msg is a part of the error's text.
		msg string
	}{
		{name: "whole slug", key: "pride-and-prejudice", want: "pride-and-prejudice"},
		{name: "unique prefix", key: "pride", want: "pride-and-prejudice"},
		{name: "prefix in capitals, with space", key: " Pride ", want: "pride-and-prejudice"},
		{name: "a whole slug that begins another", key: "moby-dick", want: "moby-dick"},
		{name: "a prefix of both", key: "moby", code: fault.Invalid, msg: `"moby" could be 2 books: moby-dick, moby-dick-or-the-whale`},
		{name: "ambiguous prefix", key: "alice", code: fault.Invalid, msg: "alice-s-adventures-in-wonderland, alice-s-adventures-in-wonderland-3"},
		{name: "typo", key: "prdie", code: fault.NotFound, msg: `no book "prdie": did you mean "pride-and-prejudice"?`},
		{name: "a word inside", key: "whale", code: fault.NotFound, msg: `did you mean "moby-dick-or-the-whale"?`},
		{name: "nearest first", key: "ALICE-S-ADVENTURES-IN-WONDERLAND-4", code: fault.NotFound, msg: `did you mean "alice-s-adventures-in-wonderland-3" or "alice-s-adventures-in-wonderland"?`},
		{name: "nothing near", key: "zzzzzz", code: fault.NotFound, msg: `no book "zzzzzz" — `},
		{name: "empty", key: "  ", code: fault.Invalid, msg: "no book given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveSlug(tc.key, librarySlugs)
			if tc.msg == "" {
				if err != nil || got != tc.want {
					t.Fatalf("ResolveSlug(%q) = %q, %v; want %q", tc.key, got, err, tc.want)
				}
				return
			}
			if err == nil || fault.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("ResolveSlug(%q) = %q, %v; want code %d and %q", tc.key, got, err, tc.code, tc.msg)
			}
		})
	}
}

func FuzzResolveSlug(f *testing.F) {
	f.Add("alice", "alice-a", "alice-b")
	f.Add("Moby", "moby-dick", "moby")
	f.Add("", "", "x")
	f.Add("\xff", "\xff-a", "é")
	f.Fuzz(func(t *testing.T, key, a, b string) {
		if len(key)+len(a)+len(b) > 600 {
			return // long inputs only slow the fuzzer down
		}
		slugs := []string{a, b}
		got, err := ResolveSlug(key, slugs)
		k := strings.ToLower(strings.TrimSpace(key))
		var begun int
		for _, s := range slices.Compact(slices.Sorted(slices.Values(slugs))) {
			if s != "" && strings.HasPrefix(s, k) {
				begun++
			}
		}
		switch {
		case err == nil:
			if !slices.Contains(slugs, got) || !(got == key || got == k || strings.HasPrefix(got, k) && begun == 1) {
				t.Fatalf("ResolveSlug(%q, %q) = %q", key, slugs, got)
			}
		case slices.Contains(slugs, key) && key != "" && strings.TrimSpace(key) != "":
			t.Fatalf("ResolveSlug(%q, %q): %v, but it is a slug", key, slugs, err)
		case fault.CodeOf(err) == fault.Invalid && k != "" && begun < 2:
			t.Fatalf("ResolveSlug(%q, %q): ambiguous with %d candidates: %v", key, slugs, begun, err)
		case fault.CodeOf(err) == fault.NotFound && begun > 0:
			t.Fatalf("ResolveSlug(%q, %q): not found, but %d slugs begin with it: %v", key, slugs, begun, err)
		case fault.CodeOf(err) != fault.Invalid && fault.CodeOf(err) != fault.NotFound:
			t.Fatalf("ResolveSlug(%q, %q): code %d: %v", key, slugs, fault.CodeOf(err), err)
		}
	})
}

// TestBookAndDeleteByPrefix looks a book up, and deletes it, by a prefix
// of its slug.
func TestBookAndDeleteByPrefix(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	for _, title := range []string{"The Owl Book", "The Owl Book Again", "Whales"} {
		h, _ := put(t, w, "/lib/"+title+".txt", title, library.Hash{})
		ingestFake(t, w, h, title, title)
	}
	b, err := w.Book(ctx, "wha")
	if err != nil || b.Title != "Whales" {
		t.Fatalf("Book(wha) = %q, %v", b.Title, err)
	}
	if _, err := w.Book(ctx, "the-owl"); fault.CodeOf(err) != fault.Invalid || !strings.Contains(err.Error(), "the-owl-book, the-owl-book-again") {
		t.Errorf("Book(the-owl): %v", err)
	}
	if _, err := w.Book(ctx, "whaels"); !errors.Is(err, fault.ErrNotFound) || !strings.Contains(err.Error(), `did you mean "whales"?`) {
		t.Errorf("Book(whaels): %v", err)
	}
	if b, err = w.DeleteBook(ctx, "the-owl-book-a"); err != nil || b.Title != "The Owl Book Again" {
		t.Fatalf("DeleteBook(the-owl-book-a) = %q, %v", b.Title, err)
	}
	if b, err = w.Book(ctx, "the-owl"); err != nil || b.Title != "The Owl Book" {
		t.Errorf("Book(the-owl) after the other went = %q, %v", b.Title, err)
	}
}
