package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// The read views as people and models meet them: the numbers printed are
// the ones the commands and tools take, the answers carry no repeats, and
// the tools' schemas and descriptions say what they return.

// seaNotes is a text book whose first chapter has no heading and whose
// second is long enough to be cut into sections (with the chunking of
// seaConfig), each paragraph marked with a word of its own (mark07).
func seaNotes() string {
	var b strings.Builder
	b.WriteString("These notes were gathered over many winters by the harbour, before the first chapter was ever written down.\n\n")
	b.WriteString("CHAPTER I.\n\n")
	for p := range 20 {
		for s := range 10 {
			fmt.Fprintf(&b, "Sentence %d of paragraph mark%02d tells how the keeper trimmed wick %d and watched the tide turn. ", s, p, s)
		}
		b.WriteString("\n\n")
	}
	b.WriteString("CHAPTER II.\n\nThe clove hitch binds a line to a post.\n")
	return b.String()
}

// seaConfig chunks small: sentences (22 tokens) are the pieces, one
// repeats between chunks, and a section is a paragraph or two.
const seaConfig = "library = [\"Books\"]\n\n[chunking]\nchunk_tokens = 100\noverlap_tokens = 30\nsection_split_tokens = 400\n"

func seaLibrary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "grimoire.toml"), seaConfig)
	writeFile(t, filepath.Join(dir, "Books", "sea-notes.txt"), seaNotes())
	ok(t, dir, "sync")
	return dir
}

// stdioClient starts `grimoire serve` in dir and connects to it.
func stdioClient(t *testing.T, dir string) *client.Client {
	t.Helper()
	c, _ := serveClient(t, binary, dir, "serve")
	return c
}

// serveClient starts bin with args (its MCP server over stdio) in folder
// dir and initializes a session, closed when the test ends.
func serveClient(t *testing.T, bin, dir string, args ...string) (*client.Client, *mcpgo.InitializeResult) {
	t.Helper()
	c, err := client.NewStdioMCPClientWithOptions(bin, cleanEnv(), args, transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, command, args...)
		cmd.Env, cmd.Dir = env, dir
		return cmd, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init, err := c.Initialize(ctx, mcpgo.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return c, init
}

// callOK calls a tool and fails the test on a tool error; it decodes the
// structured content into v and returns the text content.
func callOK(t *testing.T, c *client.Client, v any, name string, args map[string]any) string {
	t.Helper()
	res := callTool(t, c, name, args)
	text := contentText(res)
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, text)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, b)
	}
	return text
}

func contentText(res *mcpgo.CallToolResult) string {
	// The readable text is the first block; a result's second is its
	// structured content as JSON.
	if len(res.Content) == 0 {
		return ""
	}
	return mcpgo.GetTextFromContent(res.Content[0])
}

// numberedTitle is a title that reads as a number: "Chapter 3", "Section 2 — …".
var numberedTitle = regexp.MustCompile(`^(?i:chapter|section|part) (\d+)\b`)

// TestPrintedIndexesArePasteable: every number the CLI and the tools print
// for a chapter or a section is the one `section` and get_section take,
// and titles made up by grimoire carry no other number.
func TestPrintedIndexesArePasteable(t *testing.T) {
	t.Parallel()
	dir := seaLibrary(t)
	out := ok(t, dir, "outline", "sea-notes")
	entry := regexp.MustCompile(`^( *)(\d+)  (.*)$`)
	var chapters, sections int
	for _, line := range strings.Split(out, "\n") {
		m := entry.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if len(m[1]) > 3 {
			sections++
		} else {
			chapters++
		}
		if n := numberedTitle.FindStringSubmatch(m[3]); n != nil && n[1] != m[2] {
			t.Errorf("outline entry %s is titled %q: a number that is not its index", m[2], m[3])
		}
	}
	if chapters != 3 || sections < 4 {
		t.Fatalf("outline: %d chapters, %d sections listed:\n%s", chapters, sections, out)
	}
	if !strings.Contains(out, "  0  These notes were gathered over many winters") {
		t.Errorf("the chapter before the first heading is not named by its words:\n%s", out)
	}
	if !strings.Contains(out, "grimoire section sea-notes CHAPTER SECTION") {
		t.Errorf("outline does not say how to read a section:\n%s", out)
	}

	// The hit line gives the arguments of `section`; pasted, they read
	// the section that holds the passage.
	out = ok(t, dir, "query", "mark13", "--limit", "1")
	m := regexp.MustCompile(`\[section (\S+) (\d+) (\d+) · chunk \d+ · score`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("hit line without the section to paste:\n%s", out)
	}
	if sec := ok(t, dir, "section", m[1], m[2], m[3]); !strings.Contains(sec, "paragraph mark13 tells") {
		t.Errorf("section %s %s %s does not hold the hit:\n%.300s", m[1], m[2], m[3], sec)
	}
	if strings.Contains(out, "Section ") {
		t.Errorf("a citation numbers a section:\n%s", out)
	}

	// The tools: a hit's chapter_index and section_index, given to
	// get_section, read the section that holds it.
	c := stdioClient(t, dir)
	var sr struct {
		Results []struct {
			Book, Citation string
			ChapterIndex   int `json:"chapter_index"`
			SectionIndex   int `json:"section_index"`
		}
	}
	callOK(t, c, &sr, "search", map[string]any{"query": "mark13", "limit": 1})
	if len(sr.Results) != 1 {
		t.Fatalf("search: %+v", sr)
	}
	h := sr.Results[0]
	if strings.Contains(h.Citation, "Section ") {
		t.Errorf("the citation numbers a section: %s", h.Citation)
	}
	var sv struct{ Text string }
	callOK(t, c, &sv, "get_section", map[string]any{"book": h.Book, "chapter_index": h.ChapterIndex, "section_index": h.SectionIndex})
	if !strings.Contains(sv.Text, "paragraph mark13 tells") {
		t.Errorf("get_section %d %d does not hold the hit", h.ChapterIndex, h.SectionIndex)
	}
	// And every index the outline gives is one get_section takes.
	var o outlineOut
	callOK(t, c, &o, "get_book_outline", map[string]any{"book": "sea-notes"})
	for _, ch := range o.Chapters {
		secs := []int{0}
		if len(ch.Sections) > 0 {
			secs = nil
			for _, s := range ch.Sections {
				secs = append(secs, s.Index)
			}
		}
		for _, s := range secs {
			if res := callTool(t, c, "get_section", map[string]any{"book": "sea-notes", "chapter_index": ch.Index, "section_index": s}); res.IsError {
				t.Errorf("get_section %d %d from the outline: %s", ch.Index, s, contentText(res))
			}
		}
	}
}

type outlineOut struct {
	Chapters []struct {
		Index     int
		Title     string
		PageStart *int `json:"page_start"`
		Sections  []struct {
			Index int
			Title string
		}
	}
}

// TestMCPOutlineIsCompact: a chapter that is one section of its own title
// is one line of text and one entry without sections, and null fields are
// absent, not null.
func TestMCPOutlineIsCompact(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	c := stdioClient(t, lib)
	res := callTool(t, c, "get_book_outline", map[string]any{"book": "knots"})
	text := contentText(res)
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError || strings.Contains(string(raw), "null") || strings.Contains(string(raw), `"sections"`) {
		t.Errorf("structured outline of one-section chapters: %s", raw)
	}
	want := "0 CHAPTER I.\n1 CHAPTER II.\n"
	if !strings.HasSuffix(text, want) || strings.Count(text, "CHAPTER I.") != 1 {
		t.Errorf("outline text:\n%s\nwant it to end with\n%s", text, want)
	}
	// The section not listed is section 0.
	var sv struct{ Text string }
	callOK(t, c, &sv, "get_section", map[string]any{"book": "knots", "chapter_index": 1, "section_index": 0})
	if !strings.Contains(sv.Text, "clove hitch") {
		t.Errorf("section 0 of chapter 1: %q", sv.Text)
	}
	// The CLI's JSON keeps every section, and its nulls.
	var o outlineOut
	okJSON(t, &o, lib, "outline", "knots")
	if len(o.Chapters) != 2 || len(o.Chapters[0].Sections) != 1 {
		t.Errorf("outline --json: %+v", o)
	}
}

// TestMCPOutlineSizeMobyDick: the outline of a long novel fits a model's
// context: 69 KB of text and structured content before, with every
// one-section chapter listed twice and null pages.
func TestMCPOutlineSizeMobyDick(t *testing.T) {
	t.Parallel()
	src := testcorpus.Path(t, "books", "epub", "moby-dick.epub")
	lib := t.TempDir()
	copyFile(t, src, filepath.Join(lib, "moby-dick.epub"))
	ok(t, lib, "sync")
	c := stdioClient(t, lib)
	res := callTool(t, c, "get_book_outline", map[string]any{"book": "moby-dick"})
	raw, _ := json.Marshal(res.StructuredContent)
	text := contentText(res)
	if total := len(raw) + len(text); res.IsError || total > 32_000 {
		t.Errorf("outline of Moby-Dick: %d bytes of structured content and %d of text", len(raw), len(text))
	}
	if strings.Contains(text, "Chapter 1. Loomings.\n  0 Chapter 1. Loomings.") {
		t.Error("a one-section chapter lists its section")
	}
}

// textPDF writes a PDF whose pages hold the given lines in Helvetica, as a
// plain word processor would.
func textPDF(pages [][]string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	var kids []string
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+2*i))
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, lines := range pages {
		var c strings.Builder
		for j, l := range lines {
			fmt.Fprintf(&c, "BT /F1 11 Tf 72 %d Td (%s) Tj ET\n", 740-14*j, l)
		}
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", c.Len(), c.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// pageWord tags each line with the page it is on: "pg7w12".
var pageWord = regexp.MustCompile(`\bpg(\d+)w\d+\b`)

// TestMCPSectionPagesPerPage: a long section comes in pages of text, and
// each gives the pages of the book it spans, not the whole section's.
func TestMCPSectionPagesPerPage(t *testing.T) {
	t.Parallel()
	var pages [][]string
	for p := 1; p <= 12; p++ {
		var lines []string
		for l := range 45 {
			lines = append(lines, fmt.Sprintf("The harbour log of pg%dw%d says the wind backed west and the glass fell again.", p, l))
		}
		pages = append(pages, lines)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "grimoire.toml"), "library = [\"Books\"]\n\n[chunking]\nsection_split_tokens = 100000\n")
	if err := os.MkdirAll(filepath.Join(dir, "Books"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Books", "harbour-log.pdf"), textPDF(pages), 0o644); err != nil {
		t.Fatal(err)
	}
	ok(t, dir, "sync")
	c := stdioClient(t, dir)
	type page struct {
		Text       string
		Citation   string
		PageStart  int  `json:"page_start"`
		PageEnd    int  `json:"page_end"`
		NextOffset *int `json:"next_offset"`
	}
	var got []page
	offset := 0
	for {
		var p page
		callOK(t, c, &p, "get_section", map[string]any{"book": "harbour-log", "chapter_index": 0, "section_index": 0, "offset": offset})
		got = append(got, p)
		if p.NextOffset == nil || len(got) > 5 {
			break
		}
		offset = *p.NextOffset
	}
	if len(got) < 2 {
		t.Fatalf("the section came in %d page", len(got))
	}
	for i, p := range got {
		lo, hi := 0, 0
		for _, m := range pageWord.FindAllStringSubmatch(p.Text, -1) {
			n, _ := strconv.Atoi(m[1])
			if lo == 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
		// The pages given cover the text's, and at most the page on
		// either side that a chunk across the cut shares.
		if p.PageStart > lo || p.PageEnd < hi || p.PageStart < lo-1 || p.PageEnd > hi+1 {
			t.Errorf("page %d of the section holds the book's pages %d–%d but says %d–%d", i, lo, hi, p.PageStart, p.PageEnd)
		}
		// The book's one chapter and section, untitled, take its title,
		// which the citation gives once.
		if want := fmt.Sprintf("“harbour-log”, pp. %d–%d", p.PageStart, p.PageEnd); p.Citation != want {
			t.Errorf("page %d cites %q, want %q", i, p.Citation, want)
		}
	}
	if first, last := got[0], got[len(got)-1]; first.PageStart != 1 || last.PageEnd != 12 || first.PageEnd >= 12 || last.PageStart <= 1 {
		t.Errorf("first page %d–%d, last %d–%d", first.PageStart, first.PageEnd, last.PageStart, last.PageEnd)
	}
}

// words is s as its words, one space apart.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestMCPNeighborsReadOnce: the chunks around a hit read on from one
// another, without the sentences that chunking repeats between them.
func TestMCPNeighborsReadOnce(t *testing.T) {
	t.Parallel()
	dir := seaLibrary(t)
	c := stdioClient(t, dir)
	type chunk struct {
		Text         string
		ChunkIndex   int `json:"chunk_index"`
		ChapterIndex int `json:"chapter_index"`
		SectionIndex int `json:"section_index"`
	}
	var sr struct {
		Results []struct {
			ChunkIndex int `json:"chunk_index"`
		}
	}
	callOK(t, c, &sr, "search", map[string]any{"query": "mark10", "limit": 1})
	if len(sr.Results) == 0 {
		t.Fatal("no hit")
	}
	at := sr.Results[0].ChunkIndex
	var v struct{ Chunks []chunk }
	text := callOK(t, c, &v, "read_chunk_neighbors", map[string]any{"book": "sea-notes", "chunk_index": at, "before": 3, "after": 3})
	if len(v.Chunks) < 5 {
		t.Fatalf("%d chunks around %d", len(v.Chunks), at)
	}
	// Asked for alone, a chunk comes as stored, and in this library it
	// begins with the sentence that ends the one before it: the check
	// below can fail.
	overlapped := false
	for i := 1; i < len(v.Chunks); i++ {
		if v.Chunks[i].SectionIndex != v.Chunks[i-1].SectionIndex {
			continue
		}
		var prev, cur struct{ Chunks []chunk }
		callOK(t, c, &prev, "read_chunk_neighbors", map[string]any{"book": "sea-notes", "chunk_index": v.Chunks[i-1].ChunkIndex, "before": 0, "after": 0})
		callOK(t, c, &cur, "read_chunk_neighbors", map[string]any{"book": "sea-notes", "chunk_index": v.Chunks[i].ChunkIndex, "before": 0, "after": 0})
		firstSentence, _, _ := strings.Cut(cur.Chunks[0].Text, ". ")
		if strings.Contains(prev.Chunks[0].Text, firstSentence+".") {
			overlapped = true
		}
	}
	if !overlapped {
		t.Fatal("no chunk repeats the one before it: the chunking of this test makes no overlap")
	}
	// Joined, the chunks of a section are a stretch of its text.
	var run []string
	flush := func(ch, sec int) {
		if len(run) == 0 {
			return
		}
		var sv struct{ Text string }
		callOK(t, c, &sv, "get_section", map[string]any{"book": "sea-notes", "chapter_index": ch, "section_index": sec})
		if joined := words(strings.Join(run, " ")); !strings.Contains(words(sv.Text), joined) {
			t.Errorf("chunks of section %d.%d, joined, are not its text:\n%s", ch, sec, joined)
		}
		run = nil
	}
	for i, k := range v.Chunks {
		if i > 0 && (k.ChapterIndex != v.Chunks[i-1].ChapterIndex || k.SectionIndex != v.Chunks[i-1].SectionIndex) {
			flush(v.Chunks[i-1].ChapterIndex, v.Chunks[i-1].SectionIndex)
		}
		run = append(run, k.Text)
	}
	last := v.Chunks[len(v.Chunks)-1]
	flush(last.ChapterIndex, last.SectionIndex)
	// A heading path is said once for the chunks under it.
	if n := strings.Count(text, "sea-notes › CHAPTER I. › Sentence 0 of paragraph mark10 tells how the…\n"); n != 1 {
		t.Errorf("the heading path of the hit's section is said %d times:\n%s", n, text)
	}
}

// schemaProblems lists what strict clients refuse in a tool's JSON schema.
// It covers the rules of the MCP Inspector's --strict check (2.12: a type
// that is a list, a boolean where a schema belongs, a schema that
// constrains nothing, a remote $ref) and goes further, as single-type
// dialects (Gemini's OpenAPI subset, strict tool use) need: a "null" type,
// a schema without a type, an array without items, additionalProperties
// other than false or a schema, combinators and any $ref, a required name
// that is not a property, and an enum value of another type.
func schemaProblems(path string, s any) []string {
	m, ok := s.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: a %T, not a schema object", path, s)}
	}
	var out []string
	bad := func(format string, args ...any) { out = append(out, path+": "+fmt.Sprintf(format, args...)) }
	typ, _ := m["type"].(string)
	switch t := m["type"].(type) {
	case string:
		if !slices.Contains([]string{"string", "number", "integer", "boolean", "array", "object"}, t) {
			bad("type %q", t)
		}
	case nil:
		bad("no type")
	default:
		bad("type %v is not one type", t)
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "not", "$ref", "$defs", "definitions"} {
		if _, ok := m[k]; ok {
			bad("uses %s", k)
		}
	}
	if ap, ok := m["additionalProperties"]; ok && ap != false {
		if _, isSchema := ap.(map[string]any); !isSchema {
			bad("additionalProperties is %v", ap)
		} else {
			out = append(out, schemaProblems(path+"/additionalProperties", ap)...)
		}
	}
	if e, ok := m["enum"].([]any); ok {
		for _, v := range e {
			if _, isString := v.(string); (typ == "string") != isString {
				bad("enum value %v is not a %s", v, typ)
			}
		}
	}
	switch typ {
	case "array":
		if items, ok := m["items"]; !ok {
			bad("an array without items")
		} else {
			out = append(out, schemaProblems(path+"/items", items)...)
		}
	case "object":
		props, _ := m["properties"].(map[string]any)
		for name, p := range props {
			out = append(out, schemaProblems(path+"/"+name, p)...)
		}
		req, _ := m["required"].([]any)
		for _, r := range req {
			if _, ok := props[r.(string)]; !ok {
				bad("requires %v, which is not a property", r)
			}
		}
	}
	return out
}

// TestMCPSchemasArePortable walks every tool's input and output schema as
// a real server lists them.
func TestMCPSchemasArePortable(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	c := stdioClient(t, lib)
	tools, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(tools.Tools)
	var listed []map[string]any
	json.Unmarshal(raw, &listed)
	if len(listed) != 6 {
		t.Fatalf("%d tools", len(listed))
	}
	for _, tl := range listed {
		for _, key := range []string{"inputSchema", "outputSchema"} {
			s, ok := tl[key]
			if !ok {
				t.Errorf("%s has no %s", tl["name"], key)
				continue
			}
			if s.(map[string]any)["type"] != "object" {
				t.Errorf("%s.%s is not an object", tl["name"], key)
			}
			for _, p := range schemaProblems(fmt.Sprintf("%s.%s", tl["name"], key), s) {
				t.Error(p)
			}
		}
	}
}

// TestSchemaProblemsFindsThem: the walk above finds what it looks for.
func TestSchemaProblemsFindsThem(t *testing.T) {
	t.Parallel()
	var s any
	json.Unmarshal([]byte(`{"type":"object","required":["a","z"],"properties":{
		"a":{"type":["null","integer"]},
		"b":{"type":"array"},
		"c":{"anyOf":[{"type":"string"}]},
		"d":true,
		"e":{"type":"object","additionalProperties":true},
		"f":{"type":"null"}}}`), &s)
	got := strings.Join(schemaProblems("x", s), "\n")
	for _, want := range []string{"x/a: type [null integer] is not one type", "x/b: an array without items", "x/c: no type", "x/c: uses anyOf",
		"x/d: a bool", "x/e: additionalProperties is true", `x/f: type "null"`, "x: requires z"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// identifier is a field or argument name as descriptions quote them.
var identifier = regexp.MustCompile(`\b[a-z]+(?:_[a-z]+)+\b`)

// schemaNames collects every property name in a schema.
func schemaNames(s any, into map[string]bool) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			into[name] = true
			schemaNames(p, into)
		}
	}
	schemaNames(m["items"], into)
}

// TestMCPDescriptionsMatchOutputs: a tool's description names only fields
// and arguments its schemas have (or the tools and their arguments), and the search
// description names every score that a search in the default mode returns.
func TestMCPDescriptionsMatchOutputs(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	c := stdioClient(t, lib)
	tools, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(tools.Tools)
	var listed []map[string]any
	json.Unmarshal(raw, &listed)
	descriptions := map[string]string{}
	for _, tl := range listed {
		// A description may name the tools and their arguments, as
		// where it says what to call next.
		names := map[string]bool{}
		for _, other := range listed {
			names[other["name"].(string)] = true
			schemaNames(other["inputSchema"], names)
		}
		schemaNames(tl["inputSchema"], names)
		schemaNames(tl["outputSchema"], names)
		desc := tl["description"].(string)
		descriptions[tl["name"].(string)] = desc
		for _, id := range identifier.FindAllString(desc, -1) {
			if !names[id] {
				t.Errorf("%s's description names %s, which neither its schemas nor the tools have", tl["name"], id)
			}
		}
		if strings.Contains(desc, "not null") {
			t.Errorf("%s's description speaks of null, which results leave out", tl["name"])
		}
	}
	var sr struct {
		Results []struct {
			Scores map[string]any
		}
	}
	callOK(t, c, &sr, "search", map[string]any{"query": "bowline loop"})
	if len(sr.Results) == 0 {
		t.Fatal("no hit")
	}
	for name := range sr.Results[0].Scores {
		if !strings.Contains(descriptions["search"], name) {
			t.Errorf("search returns scores.%s, which its description does not explain", name)
		}
	}
}

// cliCommand is a grimoire command as a hint at a terminal gives it.
var cliCommand = regexp.MustCompile("`grimoire|grimoire (list|outline|status|section|query)\\b")

// TestMCPToolErrorsNameTools: a mistake the model can mend points it at
// the tool that mends it, not at a command it cannot run.
func TestMCPToolErrorsNameTools(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	writeFile(t, filepath.Join(lib, "tides-two.md"), "# Tides again\n\nA second book on tides.\n")
	ok(t, lib, "sync")
	c := stdioClient(t, lib)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get_book_outline", map[string]any{"book": "tieds"}, "list_books"},
		{"get_book_outline", map[string]any{"book": "tides"[:3]}, "list_books"},
		{"get_book_outline", map[string]any{"book": " "}, "list_books"},
		{"get_book_outline", map[string]any{"book": "a/b"}, "list_books"},
		{"get_section", map[string]any{"book": "knots", "chapter_index": 0, "section_index": 9}, "get_book_outline"},
		{"read_chunk_neighbors", map[string]any{"book": "knots", "chunk_index": 999}, "chunk_index of a search hit"},
		{"search", map[string]any{"query": "tides", "book": "nope"}, "list_books"},
	}
	for _, tc := range tests {
		res := callTool(t, c, tc.tool, tc.args)
		text := contentText(res)
		if !res.IsError || !strings.Contains(text, tc.want) || cliCommand.MatchString(text) {
			t.Errorf("%s %v: %q; want a tool error naming %s and no command", tc.tool, tc.args, text, tc.want)
		}
	}
	// The CLI keeps its own hints.
	r := grimoire(t, lib, "outline", "tieds")
	if !strings.Contains(r.stderr, "`grimoire list`") || strings.Contains(r.stderr, "list_books") {
		t.Errorf("outline of an unknown slug: %s", r.stderr)
	}
}

// TestCountsInWords: one of a thing is said in the singular, by the tools
// and in the reasons a sync gives for holding removals back.
func TestCountsInWords(t *testing.T) {
	t.Parallel()
	dir, lib := evidenceLibrary(t, 0)
	writeFile(t, filepath.Join(lib, "knots.md"), "# Knots\n\nThe bowline makes a fixed loop.\n")
	ok(t, dir, "sync")
	c := stdioClient(t, dir)
	var v any
	for _, tc := range []struct {
		tool        string
		args        map[string]any
		want, wrong string
	}{
		{"list_books", map[string]any{}, "1 book\n", "1 books"},
		{"list_books", map[string]any{}, "(markdown, 1 chapter, ready)", "1 chapters"},
		{"get_book_outline", map[string]any{"book": "knots"}, ": 1 chapter\n", "1 chapters"},
		{"library_status", map[string]any{}, "1 book ready", "1 books"},
		{"library_status", map[string]any{}, "; 1 chunk;", "1 chunks"},
	} {
		if text := callOK(t, c, &v, tc.tool, tc.args); !strings.Contains(text, tc.want) || strings.Contains(text, tc.wrong) {
			t.Errorf("%s: %q, want %q", tc.tool, text, tc.want)
		}
	}
	// The library's only file gone with its folder left empty: held, for
	// want of evidence, and said so in the singular.
	os.Remove(filepath.Join(lib, "knots.md"))
	ok(t, dir, "sync")
	out := ok(t, dir, "status")
	if !strings.Contains(out, "the removal of 1 file under") || !strings.Contains(out, "the folder is empty but held 1 file (") {
		t.Errorf("status:\n%s", out)
	}
	text := callOK(t, c, &v, "library_status", map[string]any{})
	if !strings.Contains(text, "held the removal of 1 file under") || strings.Contains(text, "1 files") {
		t.Errorf("library_status: %s", text)
	}
}
