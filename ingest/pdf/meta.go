package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/grimoire-search/grimoire/internal/roman"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// meta is what pdfcpu reads of a document's structure.
type meta struct {
	ctx       *model.Context
	pages     int
	encrypted bool
	// From the Info dictionary.
	title, author string
	info          infoCatalog
	xmp           xmpMeta
	lang          string
	labels        []string
	outline       []outlineEntry
	// fonts maps a font's name and a character code to text, from the
	// font's ToUnicode CMap and glyph names, for the characters PDFium
	// cannot map (glyphs named "T_h", CMaps PDFium rejects).
	fonts map[string]map[uint32]string
}

// outlineEntry is one outline item with its resolved destination.
type outlineEntry struct {
	title string
	level int // 1 for the top level
	// page is the 0-based destination page, -1 when unresolved.
	page int
	// x and y are the destination's left and top in page space, when
	// hasX and hasY.
	hasX, hasY bool
	x, y       float64
}

// newPDFCPUConfig returns the configuration every read copies. pdfcpu
// otherwise writes a config.yml into the user's config directory.
func newPDFCPUConfig() *model.Configuration {
	api.DisableConfigDir()
	c := model.NewDefaultConfiguration()
	c.ValidationMode = model.ValidationRelaxed
	c.Optimize = false
	c.OptimizeBeforeWriting = false
	return c
}

// readMeta reads the document with pdfcpu and audits what its pages will
// make PDFium inflate, clearing g as it goes. pdfcpu signals some failures
// by panicking; they become errors.
func (e *Extractor) readMeta(ctx context.Context, data []byte, g *gate) (m *meta, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("pdfcpu failed: %v", r)
		}
	}()
	defer g.finish()
	conf := *e.pdfcpuConf
	// pdfcpu inflates the cross-reference and object streams as it reads.
	conf.Limits.MaxDecodeBytes = e.opts.MaxObjectBytes
	mctx, err := pdfcpu.ReadWithContext(ctx, bytes.NewReader(data), &conf)
	if err != nil {
		switch {
		case errors.Is(err, pdfcpu.ErrWrongPassword):
			return nil, ErrPassword
		case errors.Is(err, filter.ErrDecodeLimitExceeded):
			err = objectsError(e.opts.MaxObjectBytes)
			g.fail(err)
		}
		return nil, err
	}
	x := mctx.XRefTable
	m = &meta{ctx: mctx, encrypted: x.Encrypt != nil || x.E != nil}
	au := newAuditor(x, e.opts)
	if err := au.objectStreams(); err != nil {
		g.fail(err)
		return nil, err
	}
	root, err := x.Catalog()
	if err != nil || root == nil {
		return nil, fmt.Errorf("no document catalog: %v", err)
	}
	g.opened()
	pages := pageIndex(x, root, e.opts.MaxPages+1)
	m.pages = pages.count
	for i, pg := range pages.list {
		if err := au.auditPage(i, pg); err != nil {
			g.fail(err)
			return nil, err
		}
		g.cleared(i + 1)
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	g.finish()
	if x.Info != nil {
		if info, err := x.DereferenceDict(*x.Info); err == nil && info != nil {
			m.title = infoText(x, info, "Title")
			m.author = infoText(x, info, "Author")
			m.info = infoCatalog{infoText(x, info, "Subject"), infoText(x, info, "Keywords")}
		}
	}
	if o, ok := root.Find("Metadata"); ok {
		if sd, _, err := x.DereferenceStreamDict(o); err == nil && sd != nil {
			if _, err := sd.DecodeLengthWithLimit(-1, maxXMP); err == nil {
				m.xmp = parseXMP(sd.Content)
			}
		}
	}
	m.lang = infoText(x, root, "Lang")
	if m.pages > 0 && m.pages <= e.opts.MaxPages {
		m.labels = pageLabels(x, root, m.pages)
	}
	m.outline = readOutline(x, root, pages)
	m.fonts = fontMaps(x, e.opts.MaxFontBytes)
	return m, nil
}

const maxXMP = 4 << 20

func infoText(x *model.XRefTable, d types.Dict, key string) string {
	o, ok := d.Find(key)
	if !ok {
		return ""
	}
	s, err := x.DereferenceText(o)
	if err != nil {
		return ""
	}
	return cleanMeta(s)
}

// pages maps page objects to their 0-based index.
type pages struct {
	count int
	index map[int]int // object number → page index
	// list has the pages in order, with the resources each inherits.
	list []pageRef
}

// pageIndex walks the page tree once, guarding against loops and absurd
// depth, and stops counting after limit pages.
func pageIndex(x *model.XRefTable, root types.Dict, limit int) pages {
	p := pages{index: map[int]int{}}
	o, ok := root.Find("Pages")
	if !ok {
		return p
	}
	seen := map[int]bool{}
	var walk func(o, res types.Object, depth int)
	walk = func(o, res types.Object, depth int) {
		if depth > 64 || p.count >= limit {
			return
		}
		nr := -1
		if ir, ok := o.(types.IndirectRef); ok {
			nr = ir.ObjectNumber.Value()
			if seen[nr] {
				return
			}
			seen[nr] = true
		}
		d, err := x.DereferenceDict(o)
		if err != nil || d == nil {
			return
		}
		if r, ok := d.Find("Resources"); ok {
			res = r
		}
		kids, hasKids := d.Find("Kids")
		if t := d.NameEntry("Type"); (t != nil && *t == "Page") || !hasKids {
			if nr >= 0 {
				p.index[nr] = p.count
			}
			p.list = append(p.list, pageRef{dict: d, res: res})
			p.count++
			return
		}
		arr, err := x.DereferenceArray(kids)
		if err != nil {
			return
		}
		for _, k := range arr {
			walk(k, res, depth+1)
		}
	}
	walk(o, nil, 0)
	return p
}

// readOutline walks /Outlines depth first. Unlike pdfcpu's Bookmarks it
// keeps items without a destination (their children still count), skips a
// broken item instead of failing the whole outline, and resolves named
// destinations from both the /Dests name tree and the older /Dests
// dictionary.
func readOutline(x *model.XRefTable, root types.Dict, pg pages) []outlineEntry {
	o, ok := root.Find("Outlines")
	if !ok {
		return nil
	}
	top, err := x.DereferenceDict(o)
	if err != nil || top == nil {
		return nil
	}
	var oldDests types.Dict
	if o, ok := root.Find("Dests"); ok {
		oldDests, _ = x.DereferenceDict(o)
	}
	r := outlineReader{x: x, root: root, pages: pg, oldDests: oldDests, seen: map[int]bool{}}
	if first, ok := top.Find("First"); ok {
		r.walk(first, 1)
	}
	return r.out
}

type outlineReader struct {
	x        *model.XRefTable
	root     types.Dict
	pages    pages
	oldDests types.Dict
	// dests is the /Names /Dests tree, read on the first named lookup.
	dests map[string]types.Object
	seen  map[int]bool
	out   []outlineEntry
}

func (r *outlineReader) walk(o types.Object, level int) {
	for steps := 0; o != nil && level <= 16 && len(r.out) < maxOutline && steps < maxOutline; steps++ {
		ir, ok := o.(types.IndirectRef)
		if !ok || r.seen[ir.ObjectNumber.Value()] {
			return
		}
		r.seen[ir.ObjectNumber.Value()] = true
		d, err := r.x.DereferenceDict(ir)
		if err != nil || d == nil {
			return
		}
		e := outlineEntry{level: level, page: -1}
		if t, ok := d.Find("Title"); ok {
			if s, err := r.x.DereferenceText(t); err == nil {
				e.title = cleanTitle(s)
			}
		}
		r.resolve(d, &e)
		r.out = append(r.out, e)
		if first, ok := d.Find("First"); ok {
			r.walk(first, level+1)
		}
		o, _ = d.Find("Next")
	}
}

func (r *outlineReader) resolve(d types.Dict, e *outlineEntry) {
	dest, ok := d.Find("Dest")
	if !ok {
		a, ok := d.Find("A")
		if !ok {
			return
		}
		ad, err := r.x.DereferenceDict(a)
		if err != nil || ad == nil {
			return
		}
		if s := ad.NameEntry("S"); s == nil || *s != "GoTo" {
			return
		}
		if dest, ok = ad.Find("D"); !ok {
			return
		}
	}
	for range 4 { // a named destination may point to a dict holding /D
		o, err := r.x.Dereference(dest)
		if err != nil || o == nil {
			return
		}
		switch v := o.(type) {
		case types.Array:
			r.fromArray(v, e)
			return
		case types.Dict:
			if dest, ok = v.Find("D"); !ok {
				return
			}
		case types.Name:
			if dest = r.named(string(v)); dest == nil {
				return
			}
		case types.StringLiteral, types.HexLiteral:
			s, err := r.x.DereferenceText(v)
			if err != nil {
				return
			}
			if dest = r.named(s); dest == nil {
				return
			}
		default:
			return
		}
	}
}

func (r *outlineReader) named(name string) types.Object {
	if r.dests == nil {
		r.dests = nameTree(r.x, r.root, "Dests")
	}
	if o, ok := r.dests[name]; ok {
		return o
	}
	if r.oldDests != nil {
		if o, ok := r.oldDests.Find(name); ok {
			return o
		}
	}
	return nil
}

// nameTree reads a name tree of the catalog's /Names dictionary into a
// map, guarding against loops and depth.
func nameTree(x *model.XRefTable, root types.Dict, name string) map[string]types.Object {
	out := map[string]types.Object{}
	o, ok := root.Find("Names")
	if !ok {
		return out
	}
	names, err := x.DereferenceDict(o)
	if err != nil || names == nil {
		return out
	}
	top, ok := names.Find(name)
	if !ok {
		return out
	}
	seen := map[int]bool{}
	var walk func(o types.Object, depth int)
	walk = func(o types.Object, depth int) {
		if depth > 32 || len(out) > maxNames {
			return
		}
		if ir, ok := o.(types.IndirectRef); ok {
			if seen[ir.ObjectNumber.Value()] {
				return
			}
			seen[ir.ObjectNumber.Value()] = true
		}
		d, err := x.DereferenceDict(o)
		if err != nil || d == nil {
			return
		}
		if arr, ok := d.Find("Names"); ok {
			if a, err := x.DereferenceArray(arr); err == nil {
				for i := 0; i+1 < len(a); i += 2 {
					if k, err := x.DereferenceText(a[i]); err == nil {
						out[k] = a[i+1]
					}
				}
			}
		}
		if kids, ok := d.Find("Kids"); ok {
			if a, err := x.DereferenceArray(kids); err == nil {
				for _, k := range a {
					walk(k, depth+1)
				}
			}
		}
	}
	walk(top, 0)
	return out
}

// maxNames bounds the named destinations read.
const maxNames = 1 << 20

// fromArray reads [page /XYZ left top zoom], [page /FitH top] and the
// like; page is a page object, or an index in some producers' output.
func (r *outlineReader) fromArray(a types.Array, e *outlineEntry) {
	if len(a) == 0 {
		return
	}
	switch p := a[0].(type) {
	case types.IndirectRef:
		if i, ok := r.pages.index[p.ObjectNumber.Value()]; ok {
			e.page = i
		}
	case types.Integer:
		if i := p.Value(); i >= 0 && i < r.pages.count {
			e.page = i
		}
	}
	if len(a) < 2 {
		return
	}
	kind, _ := a[1].(types.Name)
	xAt, yAt := -1, -1
	switch kind {
	case "XYZ":
		xAt, yAt = 2, 3
	case "FitH", "FitBH":
		yAt = 2
	case "FitV", "FitBV":
		xAt = 2
	case "FitR":
		xAt, yAt = 2, 5
	}
	if xAt > 0 && xAt < len(a) {
		if x, err := r.x.DereferenceNumber(a[xAt]); err == nil {
			e.hasX, e.x = true, x
		}
	}
	if yAt > 0 && yAt < len(a) {
		if y, err := r.x.DereferenceNumber(a[yAt]); err == nil {
			e.hasY, e.y = true, y
		}
	}
}

// pageLabels reads the /PageLabels number tree (PDF 32000-1, 12.4.2) into
// one label per page, or nil when the document defines none or they are
// just the page numbers.
func pageLabels(x *model.XRefTable, root types.Dict, n int) []string {
	o, ok := root.Find("PageLabels")
	if !ok {
		return nil
	}
	type rng struct {
		start  int
		style  string
		prefix string
		first  int
	}
	var ranges []rng
	seen := map[int]bool{}
	var walk func(o types.Object, depth int)
	walk = func(o types.Object, depth int) {
		if depth > 32 || len(ranges) > 10*n+16 {
			return
		}
		if ir, ok := o.(types.IndirectRef); ok {
			if seen[ir.ObjectNumber.Value()] {
				return
			}
			seen[ir.ObjectNumber.Value()] = true
		}
		d, err := x.DereferenceDict(o)
		if err != nil || d == nil {
			return
		}
		if nums, ok := d.Find("Nums"); ok {
			arr, err := x.DereferenceArray(nums)
			if err == nil {
				for i := 0; i+1 < len(arr); i += 2 {
					k, err := x.DereferenceInteger(arr[i])
					if err != nil || k == nil {
						continue
					}
					ld, err := x.DereferenceDict(arr[i+1])
					if err != nil || ld == nil {
						continue
					}
					r := rng{start: k.Value(), first: 1}
					if s := ld.NameEntry("S"); s != nil {
						r.style = *s
					}
					if p, ok := ld.Find("P"); ok {
						if s, err := x.DereferenceText(p); err == nil {
							r.prefix = s
						}
					}
					if st, ok := ld.Find("St"); ok {
						if v, err := x.DereferenceInteger(st); err == nil && v != nil && v.Value() >= 1 {
							r.first = v.Value()
						}
					}
					ranges = append(ranges, r)
				}
			}
		}
		if kids, ok := d.Find("Kids"); ok {
			if arr, err := x.DereferenceArray(kids); err == nil {
				for _, k := range arr {
					walk(k, depth+1)
				}
			}
		}
	}
	walk(o, 0)
	if len(ranges) == 0 {
		return nil
	}
	sort.SliceStable(ranges, func(i, j int) bool { return ranges[i].start < ranges[j].start })
	labels := make([]string, n)
	plain := true
	ri := -1
	for i := range n {
		for ri+1 < len(ranges) && ranges[ri+1].start <= i {
			ri++
		}
		if ri < 0 {
			labels[i] = fmt.Sprint(i + 1)
			continue
		}
		r := ranges[ri]
		labels[i] = cleanMeta(r.prefix) + formatLabel(r.style, r.first+i-r.start)
		plain = plain && labels[i] == fmt.Sprint(i+1)
	}
	if plain {
		return nil
	}
	return labels
}

func formatLabel(style string, n int) string {
	switch style {
	case "D":
		return fmt.Sprint(n)
	case "R":
		return romanLabel(n)
	case "r":
		return strings.ToLower(romanLabel(n))
	case "A":
		return letters(n, 'A')
	case "a":
		return letters(n, 'a')
	}
	return ""
}

// romanLabel writes n in Roman numerals, or in figures where they cannot.
func romanLabel(n int) string {
	if s := roman.Format(n); s != "" {
		return s
	}
	return fmt.Sprint(n)
}

// letters is the A..Z, AA..ZZ, AAA.. numbering of the PDF specification.
func letters(n int, base byte) string {
	if n <= 0 {
		return ""
	}
	n--
	return strings.Repeat(string(rune(base+byte(n%26))), min(n/26+1, 16))
}

// fontMaps reads, for every font, the character codes it maps to text by
// its own means: the ToUnicode CMap (read more leniently than PDFium does)
// and, for simple fonts, the glyph names of /Differences. They stand in
// for PDFium's answer when PDFium has none. Fonts are keyed by their full
// name, subset prefix included, and by the name without it.
//
// PDFium names a character's font by its BaseFont for TrueType and CID
// fonts ("NRTHWC+Unifont-JPMedium") but by the embedded program's own name
// for Type 1 ("LinLibertineT" for "BAMIGE+LinLibertineT"), hence both keys.
//
// The CMaps read count against budget, so that fonts no page uses, which
// the audit did not see, cannot make it inflate without end.
func fontMaps(x *model.XRefTable, budget int64) map[string]map[uint32]string {
	out := map[string]map[uint32]string{}
	family := map[string]map[uint32]string{}
	for nr, entry := range x.Table {
		if entry == nil || entry.Free || len(out) > 4096 {
			continue
		}
		// Objects in object streams are decoded on first use.
		gen := 0
		if entry.Generation != nil {
			gen = *entry.Generation
		}
		o, err := x.Dereference(*types.NewIndirectRef(nr, gen))
		if err != nil {
			continue
		}
		d, ok := o.(types.Dict)
		if !ok {
			continue
		}
		if t := d.NameEntry("Type"); t == nil || *t != "Font" {
			continue
		}
		sub := d.NameEntry("Subtype")
		if sub == nil || *sub == "CIDFontType0" || *sub == "CIDFontType2" {
			// Descendants are reached through their Type 0 parent.
			continue
		}
		codes := map[uint32]string{}
		if *sub != "Type0" {
			differences(x, d, codes)
		}
		if tu, ok := d.Find("ToUnicode"); ok {
			if sd, _, err := x.DereferenceStreamDict(tu); err == nil && sd != nil {
				if budget > 0 {
					if _, err := sd.DecodeLengthWithLimit(-1, min(maxCMap, budget)); err == nil {
						parseToUnicode(sd.Content, codes)
						budget -= int64(len(sd.Content))
					} else {
						budget -= min(maxCMap, budget)
					}
				}
			}
		}
		if len(codes) == 0 {
			continue
		}
		name := ""
		if bf := d.NameEntry("BaseFont"); bf != nil {
			name = *bf
		}
		mergeCodes(out, name, codes)
		if fam := fontFamilyName(name); fam != name {
			mergeCodes(family, fam, codes)
		}
	}
	for fam, codes := range family {
		if _, ok := out[fam]; !ok {
			out[fam] = codes
		}
	}
	return out
}

// mergeCodes adds a font's codes under name. Fonts that share a name (the
// subsets of one font with different encodings, Type 3 fonts, which have
// none) keep the codes they agree on: PDFium names the font, not the
// subset, so a code they disagree on cannot be told apart.
func mergeCodes(into map[string]map[uint32]string, name string, codes map[uint32]string) {
	old, ok := into[name]
	if !ok {
		into[name] = maps.Clone(codes)
		return
	}
	for c, s := range codes {
		if t, ok := old[c]; !ok {
			old[c] = s
		} else if t != s {
			old[c] = ""
		}
	}
}

const maxCMap = 8 << 20

// differences adds the codes whose /Differences glyph names spell text.
func differences(x *model.XRefTable, font types.Dict, codes map[uint32]string) {
	enc, ok := font.Find("Encoding")
	if !ok {
		return
	}
	ed, err := x.DereferenceDict(enc)
	if err != nil || ed == nil {
		return
	}
	diffs, ok := ed.Find("Differences")
	if !ok {
		return
	}
	arr, err := x.DereferenceArray(diffs)
	if err != nil {
		return
	}
	code := -1
	for _, o := range arr {
		switch v := o.(type) {
		case types.Integer:
			code = v.Value()
		case types.Name:
			if code >= 0 && code < 256 {
				if s := glyphText(string(v)); s != "" {
					codes[uint32(code)] = s
				}
			}
			code++
		}
	}
}
