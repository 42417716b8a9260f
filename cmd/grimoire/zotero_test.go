package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/internal/testbook"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
	"github.com/grimoire-search/grimoire/source/zotero/zoterotest"
)

// zoteroShelf builds a Zotero data directory: a journal article with a PDF
// in storage, highlighted and commented, with a child note, filed in a
// sub-collection; a book whose EPUB is a linked file outside the data
// directory; a report with a PDF and an HTML snapshot; and an item in
// the trash. It returns the data directory.
func zoteroShelf(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := filepath.Join(dir, "made")
	var tide [][]string
	for p := 1; p <= 3; p++ {
		var lines []string
		for l := range 30 {
			lines = append(lines, fmt.Sprintf("On page %d of the harbour survey the tide gauge line %d reads the spring flood.", p, l))
		}
		tide = append(tide, lines)
	}
	tide[1][5] = "The lighthouse keeper logs every tide in the brass-bound ledger."
	write := func(name string, data []byte) string {
		p := filepath.Join(files, name)
		if err := os.MkdirAll(files, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	harbours := write("harbours.pdf", textPDF(tide))
	gardens := write("gardens.epub", testbook.EPUB(t, "Stone Gardens", "The rock garden keeps saxifrage and houseleeks between the limestone slabs all winter."))
	report := write("report.pdf", textPDF([][]string{{"The dredging report counts silt in the outer channel every spring."}}))
	snapshot := write("report.html", testbook.HTML(t, "Dredging report", "The snapshot of the dredging page mentions the pilot cutter Merlin."))
	trashed := write("trashed.pdf", textPDF([][]string{{"Nobody should find the discarded quokka manuscript."}}))

	zdir := filepath.Join(dir, "Zotero")
	fixture := zoterotest.Library{
		Collections: []zoterotest.Collection{
			{Key: "THESIS01", Name: "Thesis"},
			{Key: "METHODS1", Name: "Methods", Parent: "THESIS01"},
			{Key: "READING1", Name: "Reading"},
		},
		Items: []zoterotest.Item{
			{
				Key: "HARBOUR1", Type: "journalArticle",
				Fields:      map[string]string{"title": "Tidal Harbours of the North", "date": "2019-03-00 March 2019", "publicationTitle": "Journal of Coasts", "DOI": "10.1234/tides.2019"},
				Creators:    [][2]string{{"Ada", "Lovelace"}, {"Mary", "Somerville"}},
				Tags:        []string{"coastal", "harbours"},
				Collections: []string{"METHODS1"},
				Attachments: []zoterotest.Attachment{{Key: "HARBPDF1", Title: "Full Text PDF", File: harbours, Annotations: []zoterotest.Annotation{
					{Key: "ANNOT001", Kind: "highlight", Text: "The lighthouse keeper logs every tide", Comment: "Compare with the quillwort survey of 1850", PageLabel: "2", PageIndex: 1},
				}}},
				Notes: []zoterotest.Note{{Key: "NOTE0001", HTML: `<div data-schema-version="9"><p>Summary: the barnacle census is what matters here.</p></div>`}},
			},
			{
				Key: "GARDEN01", Type: "book",
				Fields:      map[string]string{"title": "Gardens of Stone", "publisher": "Alpine Press", "date": "2001-00-00 2001"},
				Creators:    [][2]string{{"Jane", "Doe"}},
				Tags:        []string{"botany"},
				Collections: []string{"READING1"},
				Attachments: []zoterotest.Attachment{{Key: "GARDEPUB", File: gardens, Linked: filepath.Join(dir, "Papers", "gardens.epub")}},
			},
			{
				Key: "REPORT01", Type: "report",
				Fields:      map[string]string{"title": "Channel Dredging Report"},
				Creators:    [][2]string{{"", "Harbour Board"}},
				Attachments: []zoterotest.Attachment{{Key: "REPPDF01", File: report}, {Key: "REPHTML1", Title: "Snapshot", File: snapshot}},
			},
			{
				Key: "TRASHED1", Type: "journalArticle", Trashed: true,
				Fields:      map[string]string{"title": "Discarded Draft"},
				Attachments: []zoterotest.Attachment{{Key: "TRASHPDF", File: trashed}},
			},
		},
	}
	zoterotest.Build(t, zdir, fixture)
	return zdir
}

type zoteroBook struct {
	Slug        string
	Title       string
	Authors     []string
	SourceType  string `json:"source_type"`
	Tags        []string
	Collections []string
	ItemType    string `json:"item_type"`
	Publication string
	Published   string
	Identifiers map[string]string
}

func listZotero(t *testing.T, zdir string, args ...string) []zoteroBook {
	t.Helper()
	var books []zoteroBook
	out := ok(t, zdir, append([]string{"--library", zdir, "list", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &books); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	return books
}

func titles(books []zoteroBook) []string {
	var out []string
	for _, b := range books {
		out = append(out, b.Title)
	}
	slices.Sort(out)
	return out
}

// TestZoteroLibrary: a Zotero data directory is a library of its items,
// each one book with Zotero's title, creators and catalogue, its
// attachments' text and the user's notes and highlights, which are cited
// to their page and marked as the user's; the collection, tag and item
// type filters select items in the CLI and the MCP server.
func TestZoteroLibrary(t *testing.T) {
	t.Parallel()
	zdir := zoteroShelf(t)
	ok(t, zdir, "--library", zdir, "sync")

	books := listZotero(t, zdir)
	if got, want := titles(books), []string{"Channel Dredging Report", "Gardens of Stone", "Tidal Harbours of the North"}; !slices.Equal(got, want) {
		t.Fatalf("list shows %q, want one book per item that is not in the trash: %q", got, want)
	}
	for _, b := range books {
		if b.SourceType != "zotero" {
			t.Errorf("%s: type %q, want zotero", b.Title, b.SourceType)
		}
		if b.Title == "Tidal Harbours of the North" {
			if !slices.Equal(b.Authors, []string{"Ada Lovelace", "Mary Somerville"}) || b.ItemType != "journalArticle" ||
				!slices.Equal(b.Tags, []string{"coastal", "harbours"}) || !slices.Equal(b.Collections, []string{"Thesis/Methods"}) ||
				b.Published != "2019-03" || b.Publication != "Journal of Coasts" || b.Identifiers["doi"] != "10.1234/tides.2019" {
				t.Errorf("the article's catalogue is not Zotero's: %+v", b)
			}
		}
	}

	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--collection", "Thesis"}, []string{"Tidal Harbours of the North"}},
		{[]string{"--collection", "thesis/methods"}, []string{"Tidal Harbours of the North"}},
		{[]string{"--collection", "Methods"}, []string{"Tidal Harbours of the North"}},
		{[]string{"--tag", "botany"}, []string{"Gardens of Stone"}},
		{[]string{"--item-type", "report"}, []string{"Channel Dredging Report"}},
	} {
		if got := titles(listZotero(t, zdir, c.args...)); !slices.Equal(got, c.want) {
			t.Errorf("list %v: %q, want %q", c.args, got, c.want)
		}
	}
	if r := grimoire(t, zdir, "--library", zdir, "list", "--collection", "Methds"); r.code != exitNotFound || !strings.Contains(r.stderr, `did you mean "Methods"`) {
		t.Errorf("a misspelt collection: exit %d, %s; want not found naming the nearest collection", r.code, r.stderr)
	}
	if r := grimoire(t, zdir, "--library", zdir, "query", "tide", "--item-type", "jurnalArticle"); r.code != exitNotFound || !strings.Contains(r.stderr, `no book is a Zotero item of type "jurnalArticle": did you mean "journalArticle"?`) {
		t.Errorf("a misspelt item type: exit %d, %s; want not found naming the nearest item type", r.code, r.stderr)
	}

	// The linked EPUB, both attachments of the report, and the user's
	// own words are found; the trash is not.
	for q, want := range map[string]string{
		"saxifrage houseleeks limestone": "Gardens of Stone",
		"silt outer channel":             "Channel Dredging Report",
		"pilot cutter Merlin":            "Channel Dredging Report",
		"barnacle census":                "Tidal Harbours of the North",
		"quillwort survey":               "Tidal Harbours of the North",
		"lighthouse keeper brass ledger": "Tidal Harbours of the North",
		"discarded quokka manuscript":    "",
	} {
		var hits []struct {
			Title, Chapter, Section, Citation string
			Yours                             bool
		}
		out := ok(t, zdir, "--library", zdir, "query", q, "--mode", "fts", "--json")
		if err := json.Unmarshal([]byte(out), &hits); err != nil {
			t.Fatalf("query %q: %v\n%s", q, err, out)
		}
		switch {
		case want == "" && len(hits) > 0 && strings.Contains(out, "quokka"):
			t.Errorf("query %q finds an item in the trash: %s", q, out)
		case want != "" && (len(hits) == 0 || hits[0].Title != want):
			t.Errorf("query %q: %s; want %q first", q, out, want)
		case q == "quillwort survey":
			h := hits[0]
			if !h.Yours || h.Chapter != "Your notes and highlights in Zotero" || !strings.Contains(h.Citation, "Your highlight, p. 2") || strings.Count(h.Citation, "p. 2") != 1 {
				t.Errorf("a highlight's comment is not cited as the user's, to its page: %+v", h)
			}
		case q == "lighthouse keeper brass ledger":
			if hits[0].Yours {
				t.Errorf("the paper's own text is marked as the user's: %+v", hits[0])
			}
		}
	}

	c, _ := serveClient(t, binary, zdir, "--library", zdir, "serve")
	res := callTool(t, c, "search", map[string]any{"query": "tide gauge spring flood", "collection": "Reading"})
	if !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if strings.Contains(string(b), "Tidal Harbours") {
			t.Errorf("search in collection Reading found an item of Thesis/Methods: %s", b)
		}
	}
	res = callTool(t, c, "search", map[string]any{"query": "tide gauge spring flood", "collection": "Thesis"})
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || !strings.Contains(string(b), "Tidal Harbours") {
		t.Errorf("search in collection Thesis: %s", b)
	}
	res = callTool(t, c, "list_books", map[string]any{"item_type": "book"})
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || !strings.Contains(string(b), "Gardens of Stone") || strings.Contains(string(b), "Tidal") {
		t.Errorf("list_books of item type book: %s", b)
	}
	res = callTool(t, c, "search", map[string]any{"query": "quillwort survey", "tag": "harbours"})
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || !strings.Contains(string(b), `"yours":true`) || !strings.Contains(contentText(res), "the user's own") {
		t.Errorf("search by tag for a highlight's comment: %s\n%s", b, contentText(res))
	}

	var st struct {
		Zotero []struct {
			Dir, From string
			Locked    bool
			Items     int
		}
	}
	if err := json.Unmarshal([]byte(ok(t, zdir, "--library", zdir, "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Zotero) != 1 || st.Zotero[0].From != "zotero.sqlite" || st.Zotero[0].Locked || st.Zotero[0].Items != 3 {
		t.Errorf("status says of the Zotero library: %+v", st.Zotero)
	}
}

// TestZoteroLockedAndEditedUnderWatch: while Zotero holds its database a
// sync reads a copy of it and says so in status, without waiting; an
// item tagged and renamed in Zotero reaches the index through the watcher.
func TestZoteroLockedAndEditedUnderWatch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a watcher")
	}
	zdir := zoteroShelf(t)

	// The lock is this process's, which only other processes see: the
	// sync and status run as processes of their own.
	release := zoterotest.Lock(t, zdir)
	begin := time.Now()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, append([]string{"--library", zdir}, args...)...)
		cmd.Dir, cmd.Env = zdir, cleanEnv()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("grimoire %v: %v\n%s%s", args, err, out.String(), errb.String())
		}
		return out.String()
	}
	run("sync")
	t.Logf("a sync of a locked Zotero library took %v", time.Since(begin).Round(time.Millisecond))
	status := run("status")
	if !strings.Contains(status, "taken while Zotero was running") {
		t.Errorf("status does not say that Zotero held the database:\n%s", status)
	}
	if got := len(listZotero(t, zdir)); got != 3 {
		t.Errorf("a locked library gave %d books, want 3", got)
	}
	release()

	w := start(t, zdir, nil, "--library", zdir, "watch")
	eventually(t, "the watch's first pass", 60*time.Second, func() bool {
		return strings.Contains(w.errb.String(), "watching")
	})
	zoterotest.AddTag(t, zdir, "GARDEN01", "alpine")
	zoterotest.Rename(t, zdir, "REPORT01", "Outer Channel Dredging Report")
	eventually(t, "the tag added in Zotero", 60*time.Second, func() bool {
		r := grimoire(t, zdir, "--library", zdir, "list", "--tag", "alpine")
		return r.code == 0 && strings.Contains(r.stdout, "Gardens of Stone")
	})
	eventually(t, "the title changed in Zotero", 60*time.Second, func() bool {
		return slices.Contains(titles(listZotero(t, zdir)), "Outer Channel Dredging Report")
	})
	if got := len(listZotero(t, zdir)); got != 3 {
		t.Errorf("after the edits, %d books, want 3: an edited item is the same book", got)
	}
	w.stopped(t, 30*time.Second)
}

// TestZoteroCorpus: a Zotero library of the corpus's real papers and
// books, one imported with a highlight made in Zotero's reader, one a
// linked EPUB outside the data directory, reads as Zotero describes them,
// and the highlight's comment is found and cited to its page.
func TestZoteroCorpus(t *testing.T) {
	t.Parallel()
	nist := testcorpus.Path(t, "books", "pdf", "NIST.SP.800-207.pdf")
	alice := testcorpus.Path(t, "books", "epub", "pg11.epub")
	dir := t.TempDir()
	zdir := filepath.Join(dir, "Zotero")
	zoterotest.Build(t, zdir, zoterotest.Library{
		Collections: []zoterotest.Collection{{Key: "SECURITY", Name: "Security"}, {Key: "NETWORKS", Name: "Networks", Parent: "SECURITY"}},
		Items: []zoterotest.Item{
			{
				Key: "ZTA00001", Type: "report",
				Fields:      map[string]string{"title": "Zero Trust Architecture (SP 800-207)", "date": "2020-08", "institution": "NIST", "DOI": "10.6028/NIST.SP.800-207"},
				Creators:    [][2]string{{"Scott", "Rose"}, {"Oliver", "Borchert"}},
				Tags:        []string{"zero trust"},
				Collections: []string{"NETWORKS"},
				Attachments: []zoterotest.Attachment{{Key: "ZTAPDF01", Title: "Full Text PDF", File: nist, Annotations: []zoterotest.Annotation{{
					Key: "ZTAHIGH1", Kind: "highlight", PageLabel: "4", PageIndex: 3,
					Text:    "Zero trust (ZT) is the term for an evolving set of cybersecurity paradigms",
					Comment: "The perimeterless marmoset argument for chapter two",
				}}}},
			},
			{
				Key: "ALICE001", Type: "book",
				Fields:      map[string]string{"title": "Alice in Wonderland (annotated reading copy)", "date": "1865"},
				Creators:    [][2]string{{"Lewis", "Carroll"}},
				Attachments: []zoterotest.Attachment{{Key: "ALICEPUB", File: alice, Linked: filepath.Join(dir, "Books", "alice.epub")}},
			},
		},
	})
	ok(t, zdir, "--library", zdir, "sync")
	books := listZotero(t, zdir)
	if got, want := titles(books), []string{"Alice in Wonderland (annotated reading copy)", "Zero Trust Architecture (SP 800-207)"}; !slices.Equal(got, want) {
		t.Fatalf("list: %q, want Zotero's titles %q", got, want)
	}
	for q, want := range map[string]string{
		"perimeterless marmoset":        "Zero Trust Architecture (SP 800-207)",
		"White Rabbit waistcoat pocket": "Alice in Wonderland (annotated reading copy)",
		"policy enforcement point":      "Zero Trust Architecture (SP 800-207)",
	} {
		var hits []struct {
			Title, Citation string
			Yours           bool
		}
		out := ok(t, zdir, "--library", zdir, "query", q, "--mode", "fts", "--json", "--collection", map[bool]string{true: "Security", false: ""}[strings.Contains(want, "Zero")])
		if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits) == 0 || hits[0].Title != want {
			t.Errorf("query %q: %s; want %q first", q, out, want)
			continue
		}
		if q == "perimeterless marmoset" && (!hits[0].Yours || !strings.Contains(hits[0].Citation, "Your highlight, p. 4")) {
			t.Errorf("the highlight's comment: %+v, want the user's own, cited to page 4", hits[0])
		}
	}
}

// TestZoteroLinkedBaseDir: a linked file Zotero stores relative to its
// base directory is read once [zotero] base_dir names that directory, and
// named in status as unreadable until then.
func TestZoteroLinkedBaseDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := filepath.Join(dir, "Papers")
	epub := filepath.Join(dir, "made", "moss.epub")
	if err := os.MkdirAll(filepath.Dir(epub), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(epub, testbook.EPUB(t, "Mosses", "Sphagnum holds twenty times its weight in water."), 0o644); err != nil {
		t.Fatal(err)
	}
	zoterotest.Build(t, filepath.Join(dir, "Zotero"), zoterotest.Library{BaseDir: base, Items: []zoterotest.Item{{
		Key: "MOSSES01", Type: "book", Fields: map[string]string{"title": "Mosses of the Bog"},
		Attachments: []zoterotest.Attachment{{Key: "MOSSEPUB", File: epub, Linked: filepath.Join(base, "bog", "moss.epub")}},
	}}})
	writeFile(t, filepath.Join(dir, "grimoire.toml"), "library = [\"Zotero\"]\n")
	ok(t, dir, "sync")
	if r := grimoire(t, dir, "status"); !strings.Contains(r.stdout, "MOSSEPUB") && !strings.Contains(r.stdout, "attachments:") {
		t.Errorf("status does not name the linked file it cannot find:\n%s", r.stdout)
	}
	writeFile(t, filepath.Join(dir, "grimoire.toml"), "library = [\"Zotero\"]\n\n[zotero]\nbase_dir = \"Papers\"\n")
	ok(t, dir, "sync")
	if out := ok(t, dir, "query", "sphagnum water weight", "--mode", "fts"); !strings.Contains(out, "Mosses of the Bog") {
		t.Errorf("the linked file under base_dir is not read:\n%s", out)
	}
}

// TestZoteroTakesOverLooseFiles: an index made before grimoire read
// Zotero libraries holds the attachments in storage/ as books of their
// own; the first sync that reads the library replaces them with its items.
func TestZoteroTakesOverLooseFiles(t *testing.T) {
	t.Parallel()
	zdir := zoteroShelf(t)
	db := filepath.Join(zdir, "zotero.sqlite")
	if err := os.Rename(db, db+".away"); err != nil {
		t.Fatal(err)
	}
	ok(t, zdir, "--library", zdir, "sync")
	if n := len(listZotero(t, zdir)); n < 4 {
		t.Fatalf("without its database, %d books from storage/, want the loose files", n)
	}
	if err := os.Rename(db+".away", db); err != nil {
		t.Fatal(err)
	}
	ok(t, zdir, "--library", zdir, "sync")
	if got := titles(listZotero(t, zdir)); len(got) != 3 {
		t.Errorf("after the library is read, the books are %q, want the 3 items alone", got)
	}
	if out := ok(t, zdir, "--library", zdir, "status"); strings.Contains(out, "held") {
		t.Errorf("the loose files' removal is held:\n%s", out)
	}
}

// TestZoteroDamagedDatabase: a database that does not read, without a
// backup, fails no sync, is named in status, and removes no book.
func TestZoteroDamagedDatabase(t *testing.T) {
	t.Parallel()
	zdir := zoteroShelf(t)
	ok(t, zdir, "--library", zdir, "sync")
	db := filepath.Join(zdir, "zotero.sqlite")
	good, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, bytes.Repeat([]byte("not a database "), 400), 0o644); err != nil {
		t.Fatal(err)
	}
	ok(t, zdir, "--library", zdir, "sync")
	if got := len(listZotero(t, zdir)); got != 3 {
		t.Errorf("a damaged database left %d books, want the 3 it had", got)
	}
	if out := ok(t, zdir, "--library", zdir, "status"); !strings.Contains(out, "zotero.sqlite: does not read as SQLite") {
		t.Errorf("status does not name the damaged database:\n%s", out)
	}
	if err := os.WriteFile(db, good, 0o644); err != nil {
		t.Fatal(err)
	}
	ok(t, zdir, "--library", zdir, "sync")
	if out := ok(t, zdir, "--library", zdir, "status"); strings.Contains(out, "does not read") {
		t.Errorf("the problem stays once the database reads again:\n%s", out)
	}
}
