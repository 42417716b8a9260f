package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// bookFixture is a six-page book: a title page and a preface (roman page
// labels, no outline entry), then two chapters with sections, running
// heads and page numbers, a word hyphenated across lines, ligatures named
// by glyph names, a named destination and an outline level that folds.
func bookFixture() fixture {
	head := func(p *fxPage, n int) *fxPage {
		p.text("F1", 8, 72, 760, "THE TEST BOOK")
		p.text("F1", 8, 300, 40, fmt.Sprint(n))
		return p
	}
	title := newPage().
		text("F2", 28, 150, 600, "The Test Book").
		text("F1", 14, 250, 550, "Ada Lovelace")
	preface := newPage().
		text("F2", 16, 72, 700, "Preface").
		lines("F3", 11, 72, 670, 14, prose("pre", 60)...)
	ch1 := head(newPage(), 1).
		text("F2", 20, 72, 700, "Chapter One").
		lines("F3", 11, 72, 660, 14, prose("one", 90)...).
		text("F2", 13, 72, 500, "1.1 Beginnings").
		lines("F3", 11, 72, 475, 14, prose("beg", 70)...)
	ch1b := head(newPage(), 2).
		lines("F3", 11, 72, 700, 14, prose("cont", 40)...).
		text("F3", 11, 72, 630, "and the careful reader checks the docu-").
		text("F3", 11, 72, 616, "ment before the end of this paragraph.")
	ch1b.content.WriteString("BT /FL 11 Tf 72 580 Td (the \\200nal \\201ower of \\202e garden) Tj ET\n")
	ch2 := head(newPage(), 3).
		text("F2", 20, 72, 700, "Chapter Two").
		lines("F3", 11, 72, 660, 14, prose("two", 50)...).
		text("F2", 13, 72, 560, "2.1 Middle").
		lines("F3", 11, 72, 535, 14, prose("mid", 70)...)
	ch2b := head(newPage(), 4).
		text("F2", 13, 72, 700, "2.2 Ending").
		lines("F3", 11, 72, 675, 14, prose("end", 50)...).
		text("F2", 11, 72, 580, "2.2.1 Detail").
		lines("F3", 11, 72, 560, 14, prose("det", 40)...)
	return fixture{
		pages: []*fxPage{title, preface, ch1, ch1b, ch2, ch2b},
		outline: []fxEntry{
			{title: "Chapter One", level: 1, page: 2, y: 725},
			{title: "1.1 Beginnings", level: 2, page: 2, y: 516},
			{title: "Chapter Two", level: 1, page: 4, y: 725, named: true},
			{title: "2.1 Middle", level: 2, page: 4, y: 576, named: true},
			{title: "2.2 Ending", level: 2, page: 5, y: 716},
			{title: "2.2.1 Detail", level: 3, page: 5, y: 595},
		},
		labels: []fxLabel{{start: 0, style: "r"}, {start: 2, style: "D"}},
		info:   map[string]string{"Title": "Info Title", "Author": "Info Author"},
		xmp:    xmpPacket("The Test Book", "Ada Lovelace", "Charles Babbage"),
	}
}

// tagPages maps each tagged word ("one3") to the pages it was found on.
var tagWord = regexp.MustCompile(`\b(pre|one|beg|cont|two|mid|end|det|left|right|pg[0-9]+w)[0-9]+\b`)

func tagPages(d *doc.Document) map[string][]int {
	out := map[string][]int{}
	for _, c := range d.Chapters {
		for _, s := range c.Sections {
			for _, b := range s.Blocks {
				for _, w := range tagWord.FindAllString(b.Text, -1) {
					out[w] = append(out[w], b.Page)
				}
			}
		}
	}
	return out
}

func TestParseBook(t *testing.T) {
	d := parseBytes(t, bookFixture().build(t))
	if d.Title != "The Test Book" || !slices.Equal(d.Authors, []string{"Ada Lovelace", "Charles Babbage"}) || d.Language != "en-GB" {
		t.Errorf("metadata from XMP: %q %q %q", d.Title, d.Authors, d.Language)
	}
	if d.PageCount != 6 || !slices.Equal(d.PageLabels, []string{"i", "ii", "1", "2", "3", "4"}) {
		t.Errorf("pages %d, labels %q", d.PageCount, d.PageLabels)
	}
	type sec struct{ chapter, section string }
	var got []sec
	for _, c := range d.Chapters {
		for _, s := range c.Sections {
			got = append(got, sec{c.Title, s.Title})
		}
	}
	want := []sec{
		{frontMatter, ""},
		{"Chapter One", ""}, {"Chapter One", "1.1 Beginnings"},
		{"Chapter Two", ""}, {"Chapter Two", "2.1 Middle"}, {"Chapter Two", "2.2 Ending"},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("structure:\n%s", outline(d))
	}
	// Every tagged word is on the page it was set on, once.
	pageOf := map[string]int{"pre": 2, "one": 3, "beg": 3, "cont": 4, "two": 5, "mid": 5, "end": 6, "det": 6}
	tags := tagPages(d)
	if len(tags) < 40 {
		t.Fatalf("only %d tagged words found", len(tags))
	}
	for w, pages := range tags {
		prefix := strings.TrimRight(w, "0123456789")
		if len(pages) != 1 || pages[0] != pageOf[prefix] {
			t.Errorf("%s on pages %v, want [%d]", w, pages, pageOf[prefix])
		}
	}
	// Sections start at their headings, even mid-page.
	first := func(ci, si int) string { return d.Chapters[ci].Sections[si].Blocks[0].Text }
	if first(1, 1) != "1.1 Beginnings" || first(2, 1) != "2.1 Middle" || !strings.HasPrefix(first(2, 0), "Chapter Two") {
		t.Errorf("section starts: %q %q %q", first(1, 1), first(2, 1), first(2, 0))
	}
	text := d.Text()
	for _, s := range []string{"document before the end", "the final flower of The garden", "2.2.1 Detail"} {
		if !strings.Contains(text, s) {
			t.Errorf("missing %q", s)
		}
	}
	if strings.Contains(text, "THE TEST BOOK") || strings.Contains(text, "docu") && !strings.Contains(text, "document") {
		t.Errorf("running head kept or hyphen not joined:\n%s", text)
	}
	for _, c := range d.Chapters {
		for _, s := range c.Sections {
			for _, b := range s.Blocks {
				if regexp.MustCompile(`^\d+$`).MatchString(b.Text) {
					t.Errorf("page number kept as a block on page %d", b.Page)
				}
			}
		}
	}
}

func TestParseMetadataFallbacks(t *testing.T) {
	fx := bookFixture()
	fx.xmp = ""
	d := parseBytes(t, fx.build(t))
	if d.Title != "Info Title" || !slices.Equal(d.Authors, []string{"Info Author"}) {
		t.Errorf("Info: %q %q", d.Title, d.Authors)
	}
	fx.info = map[string]string{"Title": "Microsoft Word - draft3.docx"}
	fx.lang = "de-DE"
	d = parseBytes(t, fx.build(t))
	if d.Title != "The Test Book" || len(d.Authors) != 0 || d.Language != "de-DE" {
		t.Errorf("first page: %q %q %q", d.Title, d.Authors, d.Language)
	}
}

// twoColumnFixture sets a title across the page over two columns, whose
// lines the content stream interleaves (left, right, left, …) so that only
// the geometry says how to read them.
func twoColumnFixture() fixture {
	p := newPage()
	p.text("F2", 18, 160, 720, "Two Columns of Text")
	left := proseLines("left", 180, 6)
	right := proseLines("right", 180, 6)
	for i := range max(len(left), len(right)) {
		y := 680 - float64(i)*12
		if i < len(left) {
			p.text("F3", 9, 72, y, left[i])
		}
		if i < len(right) {
			p.text("F3", 9, 320, y, right[i])
		}
	}
	return fixture{pages: []*fxPage{p}}
}

func TestTwoColumns(t *testing.T) {
	d := parseBytes(t, twoColumnFixture().build(t))
	text := d.Text()
	if !strings.HasPrefix(text, "Two Columns of Text") {
		t.Errorf("title not first: %.80q", text)
	}
	var order []string
	for _, w := range tagWord.FindAllString(text, -1) {
		order = append(order, w)
	}
	lastLeft, firstRight := -1, len(order)
	for i, w := range order {
		if strings.HasPrefix(w, "left") {
			lastLeft = i
		} else if i < firstRight {
			firstRight = i
		}
	}
	if lastLeft > firstRight {
		t.Errorf("columns interleaved: %v", order)
	}
	for i := 1; i < len(order); i++ {
		if order[i-1][:4] == order[i][:4] && tagNum(order[i-1]) > tagNum(order[i]) {
			t.Errorf("out of order in a column: %s before %s", order[i-1], order[i])
		}
	}
}

func tagNum(w string) int {
	n := 0
	fmt.Sscan(strings.TrimLeft(w, "abcdefghijklmnopqrstuvwxyz"), &n)
	return n
}

// TestRotated reads a page turned by /Rotate and a landscape page whose
// text is set sideways.
func TestRotated(t *testing.T) {
	turned := newPage().lines("F3", 12, 72, 700, 16, "A page turned by its Rotate entry", "still reads line by line")
	turned.rotate = 90
	sideways := newPage()
	for i, l := range []string{"first sideways line of the table", "second sideways line of the table", "third sideways line of the table"} {
		// Text running up the page, lines moving right.
		sideways.textMatrix("F3", 12, 0, 1, -1, 0, 100+float64(i)*16, 100, l)
	}
	sideways.rotate = 270
	d := parseBytes(t, fixture{pages: []*fxPage{turned, sideways}}.build(t))
	texts := pageTexts(d)
	if !strings.Contains(texts[0], "A page turned by its Rotate entry still reads line by line") {
		t.Errorf("page 1: %q", texts[0])
	}
	want := "first sideways line of the table second sideways line of the table third sideways line of the table"
	if strings.Join(strings.Fields(texts[1]), " ") != want {
		t.Errorf("page 2: %q", texts[1])
	}
}

// TestInferredHeadings parses a document without an outline: larger bold
// lines become chapters and sections.
func TestInferredHeadings(t *testing.T) {
	var pages []*fxPage
	for _, ch := range []string{"Alpha", "Beta", "Gamma"} {
		p := newPage().
			text("F2", 20, 72, 700, ch+" Chapter").
			lines("F3", 10, 72, 670, 13, prose(strings.ToLower(ch[:1])+"x", 50)...).
			text("F2", 14, 72, 560, ch+" part one").
			lines("F3", 10, 72, 535, 13, prose(strings.ToLower(ch[:1])+"y", 50)...).
			text("F2", 14, 72, 430, ch+" part two").
			lines("F3", 10, 72, 405, 13, prose(strings.ToLower(ch[:1])+"z", 50)...)
		pages = append(pages, p)
	}
	d := parseBytes(t, fixture{pages: pages}.build(t))
	if got := chapterTitles(d); !slices.Equal(got, []string{"Alpha Chapter", "Beta Chapter", "Gamma Chapter"}) {
		t.Fatalf("chapters %q:\n%s", got, outline(d))
	}
	for _, c := range d.Chapters {
		var secs []string
		for _, s := range c.Sections {
			secs = append(secs, s.Title)
		}
		name := strings.TrimSuffix(c.Title, " Chapter")
		if !slices.Equal(secs, []string{"", name + " part one", name + " part two"}) {
			t.Errorf("%s: sections %q", c.Title, secs)
		}
	}
}

// TestNoHeadings: plain text of one size is one chapter.
func TestNoHeadings(t *testing.T) {
	d := parseBytes(t, fixture{pages: []*fxPage{
		newPage().lines("F3", 10, 72, 700, 13, prose("pga", 100)...),
		newPage().lines("F3", 10, 72, 700, 13, prose("pgb", 100)...),
	}}.build(t))
	if len(d.Chapters) != 1 || len(d.Chapters[0].Sections) != 1 {
		t.Errorf("want one chapter of one section:\n%s", outline(d))
	}
}

func TestEncrypted(t *testing.T) {
	plain := bookFixture().build(t)
	for _, tc := range []struct {
		name string
		aes  bool
	}{{"AES-256", true}, {"RC4-128", false}} {
		t.Run(tc.name+" empty user password", func(t *testing.T) {
			d := parseBytes(t, encrypt(t, plain, "", "owner", tc.aes))
			if len(d.Chapters) != 3 || !strings.Contains(d.Text(), "document before the end") {
				t.Errorf("encrypted book read wrong:\n%s", outline(d))
			}
		})
		t.Run(tc.name+" user password", func(t *testing.T) {
			_, err := testExtractor.Parse(context.Background(), encrypt(t, plain, "secret", "owner", tc.aes))
			if !errors.Is(err, ErrPassword) || !strings.Contains(err.Error(), "needs a password") {
				t.Errorf("error %v, want ErrPassword", err)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	book := bookFixture().build(t)
	scanned := newPage()
	scanned.image = true
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrNotPDF},
		{"png", []byte("\x89PNG\r\n\x1a\nrest of an image"), ErrNotPDF},
		{"text", []byte("just some words, no PDF here\n"), ErrNotPDF},
		{"header only", []byte("%PDF-1.7\n%%EOF\n"), ErrDamaged},
		{"truncated", book[:len(book)/3], ErrDamaged},
		{"scanned", fixture{pages: []*fxPage{scanned, scanned}}.build(t), doc.ErrNoText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := testExtractor.Parse(context.Background(), tc.data)
			if !errors.Is(err, tc.want) || d != nil {
				t.Errorf("got %v, %v; want %v", d != nil, err, tc.want)
			}
		})
	}
}

// TestTruncatedReason cuts PDFs short, as a file still being copied is:
// the reason says the file is truncated, in words, without what the
// libraries said (pdfcpu panics on some of these cuts).
func TestTruncatedReason(t *testing.T) {
	book := bookFixture().build(t)
	corpus := func(n int) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			return readCorpus(t, "books", "pdf", "freeculture.pdf")[:n]
		}
	}
	for _, tc := range []struct {
		name string
		data func(t *testing.T) []byte
	}{
		{"fixture cut at a third", func(*testing.T) []byte { return book[:len(book)/3] }},
		// Cuts at which pdfcpu panics rewriting the file.
		{"freeculture cut at 1408 KiB", corpus(22 << 16)},
		{"freeculture cut at 2496 KiB", corpus(39 << 16)},
		{"freeculture cut at 1 MiB", corpus(1 << 20)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testExtractor.Parse(context.Background(), tc.data(t))
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("error %v, want ErrDamaged", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "truncated") {
				t.Errorf("error %q does not say the file is truncated", msg)
			}
			for _, internal := range []string{"nil map", "pdfcpu", "PDFium", "panic", "runtime error", "xref", "obj#"} {
				if strings.Contains(msg, internal) {
					t.Errorf("error %q shows the libraries' own words (%q)", msg, internal)
				}
			}
		})
	}
}

// TestRepaired gives PDFium a file without a cross-reference table or
// trailer, which it cannot open; pdfcpu rebuilds it.
func TestRepaired(t *testing.T) {
	fx := bookFixture()
	fx.classic = true
	book := fx.build(t)
	i := bytes.LastIndex(book, []byte("\nxref"))
	if i < 0 {
		t.Fatal("no xref table in the fixture")
	}
	broken := append(append([]byte(nil), book[:i+1]...), "%%EOF\n"...)
	var log bytes.Buffer
	e := NewExtractor(Options{CacheDir: testCacheDir(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	defer e.Close()
	d, err := e.Parse(context.Background(), broken)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, d)
	if len(d.Chapters) != 3 {
		t.Errorf("repaired book:\n%s", outline(d))
	}
	if !strings.Contains(log.String(), "rebuilt") {
		t.Errorf("the file was not repaired by pdfcpu; log:\n%s", log.String())
	}
}

func TestTooManyPages(t *testing.T) {
	e := NewExtractor(Options{CacheDir: testCacheDir(), MaxPages: 3})
	defer e.Close()
	_, err := e.Parse(context.Background(), bookFixture().build(t))
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v, want ErrTooLarge", err)
	}
}

// TestLongDocument spreads a document over several instances and checks
// that every page's text comes back on its page.
func TestLongDocument(t *testing.T) {
	var pages []*fxPage
	for i := range 60 {
		pages = append(pages, newPage().lines("F3", 10, 72, 700, 13, prose(fmt.Sprintf("pg%dw", i+1), 40)...))
	}
	e := NewExtractor(Options{CacheDir: testCacheDir(), Workers: 3, RecyclePages: 25})
	defer e.Close()
	d, err := e.Parse(context.Background(), fixture{pages: pages}.build(t))
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, d)
	for w, ps := range tagPages(d) {
		var n int
		fmt.Sscanf(w, "pg%dw", &n)
		if len(ps) != 1 || ps[0] != n {
			t.Errorf("%s on pages %v", w, ps)
		}
	}
	if n := len(tagPages(d)); n != 60*5 {
		t.Errorf("%d tagged words, want %d", n, 60*5)
	}
}

// TestConcurrent parses from several goroutines at once.
func TestConcurrent(t *testing.T) {
	inputs := [][]byte{bookFixture().build(t), twoColumnFixture().build(t)}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			d, err := testExtractor.Parse(context.Background(), inputs[i%2])
			if err == nil && len(d.Chapters) == 0 {
				err = errors.New("no chapters")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := testExtractor.Parse(ctx, bookFixture().build(t)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Microsecond)
	defer cancel()
	time.Sleep(time.Millisecond)
	if _, err := testExtractor.Parse(ctx, bookFixture().build(t)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline: %v", err)
	}
}

// TestPageTimeout makes every page overrun a tiny budget: the document
// fails with a reason, and nothing hangs.
func TestPageTimeout(t *testing.T) {
	var pages []*fxPage
	for range 12 {
		pages = append(pages, newPage().lines("F3", 10, 72, 700, 13, prose("pga", 400)...))
	}
	e := NewExtractor(Options{CacheDir: testCacheDir(), PageTimeout: time.Nanosecond})
	defer e.Close()
	start := time.Now()
	_, err := e.Parse(context.Background(), fixture{pages: pages}.build(t))
	if err == nil {
		t.Skip("the pages were faster than the watchdog")
	}
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("error %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
}

// TestLazyStart: an extractor that meets no PDF never starts PDFium.
func TestLazyStart(t *testing.T) {
	e := NewExtractor(Options{NoDiskCache: true})
	if _, err := e.Parse(context.Background(), []byte("plain text")); !errors.Is(err, ErrNotPDF) {
		t.Fatal(err)
	}
	e.pool.mu.Lock()
	started := e.pool.starting != nil
	e.pool.mu.Unlock()
	if started {
		t.Error("PDFium was started for a file that is not a PDF")
	}
	if err := e.Close(); err != nil {
		t.Error(err)
	}
	if err := e.Close(); err != nil {
		t.Error("second Close:", err)
	}
	if _, err := e.Parse(context.Background(), bookFixture().build(t)); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// rawPDF writes objects (numbered from 1) with a correct cross-reference
// table, for structures pdfcpu's writer would refuse to produce.
func rawPDF(objects ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// TestHostileStructure feeds loops everywhere pdfcpu's objects are walked:
// the page tree, the outline, page labels, named destinations.
func TestHostileStructure(t *testing.T) {
	content := "BT /F1 12 Tf 72 700 Td (Hello hostile world) Tj ET"
	data := rawPDF(
		"<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R /PageLabels 8 0 R /Names << /Dests 9 0 R >> >>",
		"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Outlines /First 6 0 R /Last 7 0 R >>",
		"<< /Title (Loop) /Parent 5 0 R /Next 7 0 R /First 6 0 R /Dest (d1) >>",
		"<< /Title (Back) /Parent 5 0 R /Next 6 0 R /Dest [3 0 R /XYZ 0 800 0] >>",
		"<< /Kids [8 0 R] /Nums [0 << /S /r /St -5 >> 1 8 0 R] >>",
		"<< /Kids [9 0 R] /Names [(d1) (d1)] >>",
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := testExtractor.Parse(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, d)
	if !strings.Contains(d.Text(), "Hello hostile world") {
		t.Errorf("text lost:\n%s", outline(d))
	}
}
