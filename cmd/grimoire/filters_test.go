package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/grimoire-search/grimoire/ingest"
)

// filterLibrary holds a novel by Herman Melville in novels/ and notes of
// no author in notes/, both about whales.
func filterLibrary(t *testing.T) (dir, lib string) {
	t.Helper()
	dir = t.TempDir()
	lib = filepath.Join(dir, "Books")
	writeFile(t, filepath.Join(lib, "novels", "moby.md"), "---\ntitle: Moby-Dick\nauthor: Herman Melville\n---\n# Loomings\n\nCall me Ishmael. I went to sea to hunt the white whale.\n")
	writeFile(t, filepath.Join(lib, "notes", "whales.txt"), "Whale notes\n\nThe sperm whale dives deep for squid.\n")
	writeFile(t, filepath.Join(lib, "novelties.txt"), "Novelties\n\nA whale-shaped teapot.\n")
	ok(t, dir, "--library", "Books", "sync")
	return dir, lib
}

// TestQueryFiltersSayWhyNothingMatches: a filter that can select no book
// is an error that says so, rather than "no matches".
func TestQueryFiltersSayWhyNothingMatches(t *testing.T) {
	t.Parallel()
	dir, lib := filterLibrary(t)
	cases := []struct {
		name  string
		dir   string
		args  []string
		code  int
		want  string   // in stderr, for an error
		books []string // the books hit, for a success
	}{
		{"a type no format has", dir, []string{"--type", "pdfs"}, exitInvalid, `unknown type "pdfs": did you mean "pdf"? — the types are ` + strings.Join(ingest.Formats().Types(), ", "), nil},
		{"a type no book has", dir, []string{"--type", "pdf"}, exitNotFound, "no book is of type pdf (the library holds markdown, text)", nil},
		{"a type in capitals", dir, []string{"--type", "Markdown"}, 0, "", []string{"moby-dick"}},
		{"a misspelt author", dir, []string{"--author", "Melvile"}, exitNotFound, `no book's author contains "Melvile": did you mean "Herman Melville"?`, nil},
		{"part of an author, in lower case", dir, []string{"--author", "melville"}, 0, "", []string{"moby-dick"}},
		{"filters that each match, not together", dir, []string{"--author", "Melville", "--type", "text"}, exitNotFound, `no book matches author "Melville", type text together`, nil},
		{"a folder, relative to the library", dir, []string{"--path", "notes"}, 0, "", []string{"whale-notes"}},
		{"a folder, relative to the current folder", dir, []string{"--path", "Books/novels"}, 0, "", []string{"moby-dick"}},
		{"the current folder, inside the library", filepath.Join(lib, "notes"), []string{"--path", "."}, 0, "", []string{"whale-notes"}},
		{"a file", dir, []string{"--path", filepath.Join(lib, "novels", "moby.md")}, 0, "", []string{"moby-dick"}},
		{"the beginning of a name is no folder", dir, []string{"--path", "novel"}, exitNotFound, "no book has a file at or under " + filepath.Join(lib, "novel"), nil},
		{"a folder without books", dir, []string{"--path", "papers"}, exitNotFound, "no book has a file at or under " + filepath.Join(lib, "papers"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--library", lib, "query", "whale", "--json"}, tc.args...)
			r := grimoire(t, tc.dir, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.code != 0 {
				if !strings.Contains(r.stderr, tc.want) {
					t.Errorf("stderr %q, want %q", r.stderr, tc.want)
				}
				return
			}
			var hits []hitOut
			if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil {
				t.Fatal(err)
			}
			var books []string
			for _, h := range hits {
				if !slices.Contains(books, h.Book) {
					books = append(books, h.Book)
				}
			}
			if !slices.Equal(books, tc.books) {
				t.Errorf("books hit %v, want %v", books, tc.books)
			}
		})
	}

	help := ok(t, dir, "query", "--help")
	if !strings.Contains(help, "only books of this type: "+strings.Join(ingest.Formats().Types(), ", ")) {
		t.Errorf("query --help does not list the types:\n%s", help)
	}
	if r := grimoire(t, dir, "--library", lib, "list", "--author", "Melvile"); r.code != exitNotFound || r.stdout != "" ||
		!strings.Contains(r.stderr, `no book's author contains "Melvile": did you mean "Herman Melville"?`) {
		t.Errorf("list --author Melvile: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := grimoire(t, dir, "--library", lib, "list", "--type", "pdfs"); r.code != exitInvalid || !strings.Contains(r.stderr, "the types are "+strings.Join(ingest.Formats().Types(), ", ")) {
		t.Errorf("list --type pdfs: exit %d, %s", r.code, r.stderr)
	}
}

// TestMCPSearchFiltersSayWhyNothingMatches: the search tool's filters
// fail as the CLI's do, as tool errors the model can act on, and the
// tools' schemas offer the types there are.
func TestMCPSearchFiltersSayWhyNothingMatches(t *testing.T) {
	t.Parallel()
	dir, lib := filterLibrary(t)
	c, _ := serveClient(t, binary, dir, "--library", lib, "serve")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tl := range tools.Tools {
		if tl.Name != "search" && tl.Name != "list_books" {
			continue
		}
		checked++
		b, _ := json.Marshal(tl.InputSchema.Properties["type"])
		var prop struct{ Enum []string }
		json.Unmarshal(b, &prop)
		if want := ingest.Formats().Types(); !slices.Equal(slices.Sorted(slices.Values(prop.Enum)), slices.Sorted(slices.Values(want))) {
			t.Errorf("%s's type enum %v, want the formats' types %v", tl.Name, prop.Enum, want)
		}
	}
	if checked != 2 {
		t.Errorf("%d of search and list_books found", checked)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"type": "pdfs"}, `unknown type "pdfs": did you mean "pdf"? — the types are ` + strings.Join(ingest.Formats().Types(), ", ")},
		{map[string]any{"type": "epub"}, "no book is of type epub (the library holds markdown, text)"},
		{map[string]any{"author": "Melvile"}, `no book's author contains "Melvile": did you mean "Herman Melville"?`},
	} {
		tc.args["query"] = "whale"
		res := callTool(t, c, "search", tc.args)
		if text := mcpgo.GetTextFromContent(res.Content[0]); !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("search %v: error %v, %q; want %q", tc.args, res.IsError, text, tc.want)
		}
	}
	res := callTool(t, c, "search", map[string]any{"query": "whale", "author": "melville"})
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || !strings.Contains(string(b), `"book":"moby-dick"`) {
		t.Errorf("search by part of an author: %s", b)
	}
}
