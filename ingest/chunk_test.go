package ingest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

func TestCountTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"Hello, world!", 4},
		{"internationalization", 4}, // 20 letters: 1 + 19/6
		{"世界人権", 4},
		{"naïve café", 2},
	}
	for _, tc := range tests {
		if got := CountTokens(tc.in); got != tc.want {
			t.Errorf("CountTokens(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func words(n int, prefix string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s%d", prefix, i)
		if i%10 == 9 {
			b.WriteByte('.')
		}
	}
	return b.String()
}

func TestLayoutChunksNeverCrossSections(t *testing.T) {
	d := &doc.Document{Chapters: []doc.Chapter{{
		Title: "One",
		Sections: []doc.Section{
			{Title: "A", Blocks: []doc.Block{{Text: words(300, "a"), Line: 3}}},
			{Title: "B", Blocks: []doc.Block{{Text: words(50, "b"), Line: 40}}},
		},
	}}}
	b := layout(d, "Book", Chunking{ChunkTokens: 100, OverlapTokens: 20, SectionSplitTokens: 1000})
	if len(b.chapters) != 1 || len(b.chapters[0].Sections) != 2 {
		t.Fatalf("outline: %+v", b.chapters)
	}
	for i, k := range b.chunks {
		if k.Index != i {
			t.Errorf("chunk %d has index %d", i, k.Index)
		}
		hasA, hasB := strings.Contains(k.Text, "a1"), strings.Contains(k.Text, "b1")
		if hasA && hasB {
			t.Errorf("chunk %d crosses sections: %q", i, k.Text)
		}
		if k.Tokens > 100 {
			t.Errorf("chunk %d has %d tokens, over the limit", i, k.Tokens)
		}
	}
	secA := b.chapters[0].Sections[0]
	if secA.ChunkCount < 3 || secA.FirstChunk != 0 {
		t.Errorf("section A: %+v", secA)
	}
	if got := b.chunks[0].Heading; got != "Book › One › A" {
		t.Errorf("heading = %q", got)
	}
	if b.chunks[0].Anchor != "L3" {
		t.Errorf("anchor = %q", b.chunks[0].Anchor)
	}
	// Overlap: consecutive chunks of one section share a sentence.
	c0, c1 := b.chunks[0].Text, b.chunks[1].Text
	last := c0[strings.LastIndex(strings.TrimSuffix(c0, "."), ".")+1:]
	if !strings.Contains(c1, strings.TrimSpace(last)) {
		t.Errorf("no overlap between\n%q\nand\n%q", c0, c1)
	}
}

func TestLayoutEveryWordKept(t *testing.T) {
	text := words(1000, "w")
	d := &doc.Document{Chapters: []doc.Chapter{{Title: "C", Sections: []doc.Section{{Blocks: []doc.Block{{Text: text}}}}}}}
	b := layout(d, "B", Chunking{ChunkTokens: 64, OverlapTokens: 8, SectionSplitTokens: 10000})
	all := ""
	for _, k := range b.chunks {
		all += " " + k.Text
	}
	for i := range 1000 {
		if !strings.Contains(all, fmt.Sprintf("w%d ", i)) && !strings.Contains(all, fmt.Sprintf("w%d.", i)) && !strings.HasSuffix(all, fmt.Sprintf("w%d", i)) {
			t.Fatalf("word w%d lost", i)
		}
	}
}

func TestLongChapterIsSplitIntoSynthesizedSections(t *testing.T) {
	var blocks []doc.Block
	for i := range 20 {
		blocks = append(blocks, doc.Block{Text: fmt.Sprintf("Paragraph %d. ", i) + words(100, "x")})
	}
	d := &doc.Document{Chapters: []doc.Chapter{{Title: "Long", Sections: []doc.Section{{Blocks: blocks}}}}}
	b := layout(d, "B", Chunking{ChunkTokens: 200, OverlapTokens: 20, SectionSplitTokens: 500})
	secs := b.chapters[0].Sections
	if len(secs) < 4 {
		t.Fatalf("%d sections", len(secs))
	}
	for i, s := range secs {
		// Titled by its first words, with no number that could be taken
		// for its index.
		if !s.Synthesized || !strings.HasPrefix(s.Title, "Paragraph ") || !strings.HasSuffix(s.Title, "…") {
			t.Errorf("section %d: %q synthesized=%v", i, s.Title, s.Synthesized)
		}
		if s.Tokens > 1000 {
			t.Errorf("section %d has %d tokens", i, s.Tokens)
		}
	}
}

func TestUntitledChapters(t *testing.T) {
	chapter := func(title, text string) doc.Chapter {
		return doc.Chapter{Title: title, Sections: []doc.Section{{Blocks: []doc.Block{{Text: text}}}}}
	}
	tests := []struct {
		name     string
		chapters []doc.Chapter
		want     []string
	}{
		{"the only chapter takes the book's title",
			[]doc.Chapter{chapter("", "Some notes on tides.")},
			[]string{"Book"}},
		{"a preface before the first heading is named by its words",
			[]doc.Chapter{chapter("", "A word before we begin, which runs on a little longer than eight words."), chapter("Chapter 1", "It begins.")},
			[]string{"A word before we begin, which runs on…", "Chapter 1"}},
		{"an empty chapter does not count",
			[]doc.Chapter{chapter("Blank", " "), chapter("", "Only this.")},
			[]string{"Book"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := layout(&doc.Document{Chapters: tc.chapters}, "Book", DefaultChunking())
			var got []string
			for _, c := range b.chapters {
				got = append(got, c.Title)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("titles %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCodeBlockKeptWhole(t *testing.T) {
	code := strings.Repeat("fn main() { println!(\"x\"); }\n", 10)
	d := &doc.Document{Chapters: []doc.Chapter{{Title: "C", Sections: []doc.Section{{Blocks: []doc.Block{
		{Text: words(90, "p")},
		{Kind: doc.Code, Text: code},
	}}}}}}
	b := layout(d, "B", Chunking{ChunkTokens: 100, OverlapTokens: 10, SectionSplitTokens: 10000})
	found := false
	for _, k := range b.chunks {
		if strings.Contains(k.Text, strings.TrimSpace(code)) {
			found = true
		}
	}
	if !found {
		t.Errorf("code block split: %+v", b.chunks)
	}
}

func TestHugeLineStillChunks(t *testing.T) {
	line := strings.Repeat("word ", 100000) // no sentence ends at all
	d := &doc.Document{Chapters: []doc.Chapter{{Title: "C", Sections: []doc.Section{{Blocks: []doc.Block{{Text: line}}}}}}}
	b := layout(d, "B", DefaultChunking())
	if len(b.chunks) < 200 {
		t.Fatalf("%d chunks from 100k words", len(b.chunks))
	}
	for _, k := range b.chunks {
		if k.Tokens > 400 {
			t.Fatalf("chunk of %d tokens", k.Tokens)
		}
	}
}

func TestEmptyChaptersDropped(t *testing.T) {
	d := &doc.Document{Chapters: []doc.Chapter{
		{Title: "Empty", Sections: []doc.Section{{Blocks: []doc.Block{{Text: "  "}}}}},
		{Title: "Full", Sections: []doc.Section{{Blocks: []doc.Block{{Text: "text"}}}}},
	}}
	b := layout(d, "B", DefaultChunking())
	if len(b.chapters) != 1 || b.chapters[0].Title != "Full" || b.chapters[0].Index != 0 {
		t.Fatalf("chapters %+v", b.chapters)
	}
}

func TestPagesCarried(t *testing.T) {
	d := &doc.Document{Chapters: []doc.Chapter{{Title: "C", Sections: []doc.Section{{Blocks: []doc.Block{
		{Text: words(60, "a"), Page: 3},
		{Text: words(60, "b"), Page: 4, PageEnd: 5},
	}}}}}}
	b := layout(d, "B", Chunking{ChunkTokens: 1000})
	k := b.chunks[0]
	if k.PageStart != 3 || k.PageEnd != 5 {
		t.Errorf("pages %d–%d", k.PageStart, k.PageEnd)
	}
	if c := b.chapters[0]; c.PageStart != 3 || c.PageEnd != 5 {
		t.Errorf("chapter pages %d–%d", c.PageStart, c.PageEnd)
	}
}

func TestChunkingForModel(t *testing.T) {
	c := DefaultChunking()
	tests := []struct {
		name    string
		context int
		want    int
	}{
		{"context unknown", 0, 400},
		{"room to spare", 8192, 400},
		// 400·1.5+100 = 700 tokens must fit in 4/5 of the context.
		{"just fits", 875, 400},
		{"just too small", 874, (874*4/5 - 100) * 2 / 3},
		{"512-token model", 512, 206},
		{"tiny model", 100, 64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := c.ForModel(tc.context)
			if got.ChunkTokens != tc.want || got.OverlapTokens != c.OverlapTokens || got.SectionSplitTokens != c.SectionSplitTokens {
				t.Errorf("ForModel(%d) = %+v, want chunk_tokens %d and the rest as it was", tc.context, got, tc.want)
			}
		})
	}
}

func TestNamesFromFirstWordsAreBounded(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	tests := []struct {
		name, in, want string
	}{
		{"short", "Call me Ishmael.", "Call me Ishmael."},
		{"eight words", "one two three four five six seven eight nine", "one two three four five six seven eight…"},
		{"one long word", long, strings.Repeat("a", maxNameRunes) + "…"},
		{"wide runes", strings.Repeat("ÿ", 1000), strings.Repeat("ÿ", maxNameRunes) + "…"},
		{"long words", strings.Repeat("b", 50) + " " + long, strings.Repeat("b", 50) + " " + strings.Repeat("a", maxNameRunes-51) + "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := firstWords(tc.in, 8); got != tc.want {
				t.Errorf("firstWords = %q, want %q", got, tc.want)
			}
		})
	}
	// A title a parser read is cut too: every chunk repeats it.
	d := &doc.Document{Chapters: []doc.Chapter{{Title: long, Sections: []doc.Section{{Blocks: []doc.Block{{Text: words(3000, "w")}}}}}}}
	b := layout(d, long, DefaultChunking())
	for _, k := range b.chunks {
		if len(k.Heading) > 3*4*maxTitle {
			t.Fatalf("chunk %d has a heading of %d bytes", k.Index, len(k.Heading))
		}
	}
}
