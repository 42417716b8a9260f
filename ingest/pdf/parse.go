package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"golang.org/x/text/language"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/pdf/internal/pdfium"
	nouns "github.com/grimoire-search/grimoire/internal/plural"
)

// parse is one document on its way through the parser.
type parse struct {
	e    *Extractor
	data []byte

	meta    *meta // nil when pdfcpu could not read the file
	metaErr error
	pd      *pdfiumDoc
	// gate holds PDFium back until pdfcpu's audit has cleared a page.
	gate *gate

	pages  []framedPage
	blocks []block
	body   float64

	// scanning: the caller recognises scanned pages, and recognised holds
	// the text of those done (by 1-based page). scanned lists the scans.
	scanning   bool
	recognised map[int]string
	scanned    []int
	// read are the pages (0-based) whose blocks OCR read.
	read map[int]bool
}

type metaResult struct {
	m   *meta
	err error
}

func (p *parse) run(ctx context.Context) error {
	// pdfcpu reads the structure while PDFium reads the text, a page
	// behind pdfcpu's audit; it stops when Parse returns, whatever it is
	// doing then.
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.gate = newGate()
	metaCh := make(chan metaResult, 1)
	go func() {
		m, err := p.e.readMeta(mctx, p.data, p.gate)
		metaCh <- metaResult{m, err}
	}()
	gotMeta := false
	waitMeta := func() error {
		if gotMeta {
			return nil
		}
		select {
		case r := <-metaCh:
			p.meta, p.metaErr, gotMeta = r.m, r.err, true
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	raw, pd, err := p.extract(ctx, p.data)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			if errors.Is(cerr, context.DeadlineExceeded) {
				return fmt.Errorf("reading the PDF took longer than allowed: %w", cerr)
			}
			return cerr
		}
		var eo errOpen
		switch {
		case errors.Is(err, ErrTooLarge), errors.Is(err, ErrResourceLimit):
			return err
		case errors.Is(err, pdfium.ErrPassword):
			return fmt.Errorf("%w: it is encrypted with a user password, and grimoire reads only PDFs that open without one; save an unprotected copy or remove the file from the library", ErrPassword)
		case errors.Is(err, pdfium.ErrSecurity):
			return fmt.Errorf("%w: it is protected by a security handler other than the standard one (DRM), which grimoire cannot open; save an unprotected copy or remove the file from the library", ErrPassword)
		case errors.As(err, &eo) && errors.Is(err, pdfium.ErrFormat):
			// Handled below.
		case errors.As(err, &eo):
			return fmt.Errorf("%w: PDFium cannot open it (%v)", ErrDamaged, eo.err)
		default:
			return err
		}
		// PDFium cannot read the file's structure; pdfcpu rebuilds
		// cross-reference tables it cannot make sense of.
		if werr := waitMeta(); werr != nil {
			return werr
		}
		if errors.Is(p.metaErr, ErrResourceLimit) {
			return p.metaErr
		}
		if p.metaErr != nil {
			return p.damaged(err, p.metaErr)
		}
		var buf bytes.Buffer
		if werr := rewrite(p.meta, &buf); werr != nil {
			return p.damaged(err, werr)
		}
		raw, pd, err = p.extract(ctx, buf.Bytes())
		if err != nil {
			if errors.Is(err, pdfium.ErrFormat) {
				return p.damaged(err, nil)
			}
			return err
		}
		p.e.log.Warn("pdf: damaged file read after pdfcpu rebuilt it")
	}
	p.pd = pd
	if err := waitMeta(); err != nil {
		return err
	}
	if errors.Is(p.metaErr, ErrResourceLimit) {
		// PDFium read fewer pages than pdfcpu audited.
		return p.metaErr
	}
	if p.metaErr != nil {
		// PDFium read it; the outline and labels come from PDFium then.
		p.e.log.Debug("pdf: pdfcpu could not read the structure", "err", p.metaErr)
	}
	return p.layout(ctx, raw)
}

// damaged explains a file neither library can read. What the libraries
// said (a pdfcpu panic among it) goes to the debug log only: it names
// their internals, not the file's trouble.
func (p *parse) damaged(pdfiumErr, pdfcpuErr error) error {
	p.e.log.Debug("pdf: neither PDFium nor pdfcpu can read the file", "pdfium", pdfiumErr, "pdfcpu", pdfcpuErr)
	if !bytes.Contains(p.data, []byte(" obj")) && !bytes.Contains(p.data, []byte("\nobj")) {
		return fmt.Errorf("%w: it has a PDF header but no objects (an empty or cut-off file)", ErrDamaged)
	}
	// Writers end a PDF with %%EOF; a file cut short has none near its end.
	if !bytes.Contains(p.data[max(0, len(p.data)-1024):], []byte("%%EOF")) {
		return fmt.Errorf("%w: its structure cannot be read: the file is truncated (it stops before its end)", ErrDamaged)
	}
	return fmt.Errorf("%w: its structure cannot be read: the file is corrupt", ErrDamaged)
}

// rewrite writes pdfcpu's reading of the file back out, with a fresh
// cross-reference table. pdfcpu panics on some broken files.
func rewrite(m *meta, w *bytes.Buffer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pdfcpu failed rewriting the file: %v", r)
		}
	}()
	return api.WriteContext(m.ctx, w)
}

// layout turns PDFium's pages into blocks.
func (p *parse) layout(ctx context.Context, raw []*rawPage) error {
	var fonts map[string]map[uint32]string
	if p.meta != nil {
		fonts = p.meta.fonts
	}
	p.pages = make([]framedPage, len(raw))
	chars, letters, truncated, empty := 0, 0, 0, 0
	for i, pg := range raw {
		if pg == nil {
			p.pages[i] = framedPage{index: i}
			continue
		}
		chars += pg.chars
		if pg.truncated {
			truncated++
		}
		p.pages[i] = framePage(i, pg, fonts)
		before := letters
		for _, l := range p.pages[i].lines {
			for _, r := range l.text {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					letters++
				}
			}
		}
		if letters-before < 20 {
			empty++
		}
		if pg.image && letters-before < scanLetters {
			p.scanned = append(p.scanned, i+1)
		}
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if truncated > 0 {
		p.e.log.Warn("pdf: pages with too many characters were cut short", "pages", truncated, "limit", p.e.opts.MaxCharsPerPage)
	}
	recognised := 0
	for _, n := range p.scanned {
		if _, ok := p.recognised[n]; ok {
			recognised++
		}
	}
	if letters == 0 && !(p.scanning && len(p.scanned) > 0) {
		if chars == 0 {
			return fmt.Errorf("%w: no text layer — needs OCR (%s of images or drawings only)", doc.ErrNoText, nouns.Count(len(raw), "page"))
		}
		return fmt.Errorf("%w: no text layer — needs OCR (its %s of text map to no readable characters: fonts without a Unicode mapping)", doc.ErrNoText, nouns.Count(chars, "character"))
	}
	if len(raw) >= 4 && 2*empty > len(raw) && !p.scanning {
		// Indexed for what text it has; the rest would need OCR.
		p.e.log.Warn("pdf: most pages have no text layer (scanned pages need OCR)", "pages", len(raw), "without text", empty)
	}
	p.body = dropPageFurniture(p.pages)
	scans := make(map[int]bool, len(p.scanned))
	for _, n := range p.scanned {
		scans[n-1] = true
	}
	// What little text a scan's layer had (a stamp) is in the recognised
	// text as well.
	read := map[int]int{} // page → its place in readPages
	var readPages [][]block
	p.read = map[int]bool{}
	for i := range p.pages {
		if text, ok := p.recognised[i+1]; ok && scans[i] {
			read[i] = len(readPages)
			p.read[i] = true
			readPages = append(readPages, recognisedBlocks(i, text))
		}
	}
	dropScanFurniture(readPages)
	for i := range p.pages {
		if at, ok := read[i]; ok {
			p.blocks = append(p.blocks, readPages[at]...)
			continue
		}
		pg := &p.pages[i]
		p.blocks = append(p.blocks, paragraphs(i, order(pg.lines))...)
	}
	p.blocks = joinAcrossPages(p.blocks)
	dehyphenate(p.blocks)
	if len(p.blocks) == 0 && !(p.scanning && len(p.scanned) > recognised) {
		return fmt.Errorf("%w: no text layer — needs OCR (its only text is running heads and page numbers)", doc.ErrNoText)
	}
	return nil
}

// joinAcrossPages mends words hyphenated across a page break: the word's
// tail moves to the page its head is on, so both blocks keep their page.
func joinAcrossPages(bs []block) []block {
	for i := 0; i+1 < len(bs); i++ {
		a, b := &bs[i], &bs[i+1]
		if !a.hyphen || b.page != a.page+1 || a.kind != doc.Paragraph || b.kind != doc.Paragraph {
			continue
		}
		first, _ := utf8.DecodeRuneInString(b.text)
		if !unicode.IsLower(first) {
			continue
		}
		word, rest, _ := strings.Cut(b.text, " ")
		a.text = strings.TrimSuffix(a.text, "-") + string(hyphenMark) + word
		b.text = rest
	}
	out := bs[:0]
	for _, b := range bs {
		if strings.TrimSpace(b.text) != "" {
			out = append(out, b)
		}
	}
	return out
}

// document assembles the tree.
func (p *parse) document() *doc.Document {
	d := &doc.Document{SourceType: doc.PDF, PageCount: len(p.pages), Scanned: p.scanned}
	var entries []outlineEntry
	var labels []string
	var infoTitle, infoAuthor string
	var info infoCatalog
	var x xmpMeta
	lang := ""
	if m := p.meta; m != nil {
		entries, labels, infoTitle, infoAuthor, x, lang = m.outline, m.labels, m.title, m.author, m.xmp, m.lang
		info = m.info
		if m.pages != len(p.pages) {
			// The two libraries disagree on the page tree (a damaged
			// file): page indices from pdfcpu would point elsewhere.
			entries, labels = fromPDFium(p.pd)
		} else if len(entries) == 0 {
			// PDFium may still make sense of an outline pdfcpu found
			// broken.
			entries, _ = fromPDFium(p.pd)
		}
		if m.encrypted {
			p.e.log.Debug("pdf: encrypted, with an empty user password")
		}
	} else if p.pd != nil {
		entries, labels = fromPDFium(p.pd)
		infoTitle, infoAuthor = cleanMeta(p.pd.title), cleanMeta(p.pd.author)
		info = p.pd.info
	}
	if len(labels) == len(p.pages) {
		d.PageLabels = labels
	}
	d.Title = firstGood(goodTitle, x.title, infoTitle)
	if d.Title == "" {
		d.Title = p.firstPageTitle()
	}
	for _, c := range x.creators {
		d.Authors = append(d.Authors, splitAuthors(c)...)
	}
	if len(d.Authors) == 0 && goodAuthor(infoAuthor) {
		d.Authors = splitAuthors(infoAuthor)
	}
	d.Language = languageTag(firstGood(func(s string) bool { return s != "" }, x.language, lang))
	d.Catalog = info.catalog()

	marks := outlineMarks(entries, p.blocks, p.pages)
	if len(marks) == 0 {
		marks = inferHeadings(p.blocks, p.body)
	}
	d.Chapters = chapters(p.blocks, marks, d.Title)
	return d
}

func fromPDFium(pd *pdfiumDoc) ([]outlineEntry, []string) {
	if pd == nil {
		return nil, nil
	}
	entries := make([]outlineEntry, 0, len(pd.outline))
	for _, b := range pd.outline {
		entries = append(entries, outlineEntry{title: cleanTitle(b.Title), level: b.Level, page: b.Page,
			hasX: b.HasX, x: b.X, hasY: b.HasY, y: b.Y})
	}
	labels := make([]string, len(pd.labels))
	plain := true
	for i, l := range pd.labels {
		labels[i] = cleanMeta(l)
		if labels[i] == "" {
			labels[i] = fmt.Sprint(i + 1)
		}
		plain = plain && labels[i] == fmt.Sprint(i+1)
	}
	if plain {
		labels = nil
	}
	return entries, labels
}

// firstPageTitle is the block set largest on the first page with text,
// when it is short enough to be a title. A page OCR read has no sizes to
// tell a title by: its first line is as likely a printer's slug or a
// running head, so a scan is left to be called by its file name.
func (p *parse) firstPageTitle() string {
	if len(p.blocks) == 0 || p.read[p.blocks[0].page] {
		return ""
	}
	page := p.blocks[0].page
	var best *block
	for i := range p.blocks {
		b := &p.blocks[i]
		if b.page != page {
			break
		}
		if best == nil || b.size > best.size+0.1 {
			best = b
		}
	}
	if n := len([]rune(best.text)); best.lines > 4 || n < 3 || n > 200 {
		return ""
	}
	return best.text
}

func firstGood(ok func(string) bool, vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); ok(v) {
			return v
		}
	}
	return ""
}

// goodTitle rejects the titles that producers fill in by themselves.
func goodTitle(s string) bool {
	if len([]rune(s)) < 2 || len(s) > 500 {
		return false
	}
	l := strings.ToLower(s)
	for _, junk := range []string{"untitled", "microsoft word", "microsoft powerpoint", "powerpoint presentation", "title", "document", "slide 1", "no title", "<unknown>", "unknown"} {
		if l == junk || strings.HasPrefix(l, "microsoft ") && strings.Contains(l, " - ") || strings.HasPrefix(l, "untitled") {
			return false
		}
	}
	for _, ext := range []string{".doc", ".docx", ".pdf", ".dvi", ".tex", ".indd", ".qxd", ".ps", ".rtf", ".txt", ".odt", ".pages", ".ppt", ".pptx", ".xls", ".html", ".htm"} {
		if strings.HasSuffix(l, ext) {
			return false
		}
	}
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 2
}

func goodAuthor(s string) bool {
	if len([]rune(s)) < 2 || len(s) > 500 {
		return false
	}
	switch strings.ToLower(s) {
	case "administrator", "admin", "user", "owner", "unknown", "author", "anonymous", "default", "test":
		return false
	}
	return true
}

// splitAuthors splits "A; B", "A and B", "A & B", and "A, B" when every
// part is a full name (so "Smith, John" stays one author).
func splitAuthors(s string) []string {
	s = cleanMeta(s)
	if s == "" {
		return nil
	}
	var parts []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' }) {
		p = strings.ReplaceAll(p, " & ", " and ")
		for _, q := range strings.Split(p, " and ") {
			q = strings.TrimSpace(strings.Trim(q, ","))
			if q == "" {
				continue
			}
			commas := strings.Split(q, ",")
			full := len(commas) > 1
			for _, c := range commas {
				if len(strings.Fields(c)) < 2 {
					full = false
				}
			}
			if full {
				for _, c := range commas {
					parts = append(parts, strings.TrimSpace(c))
				}
			} else {
				parts = append(parts, q)
			}
		}
	}
	return parts
}

// languageTag canonicalises a language ("en-US", "DE") to BCP 47, or "".
func languageTag(s string) string {
	if s == "" {
		return ""
	}
	t, err := language.Parse(s)
	if err != nil || t == language.Und {
		return ""
	}
	return t.String()
}
