package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// A few hundred kilobytes of PDF can inflate to gigabytes: a content
// stream of spaces or of path points compresses a thousandfold, and PDFium
// inflates and parses a page's streams whole when it loads the page. The
// audit measures, with pdfcpu's reading of the file and before PDFium
// reads a page, what each page will make PDFium inflate and parse: its
// content streams and the forms it draws, as often as it draws them (PDFium
// parses a form at every use). Fonts are counted apart, once each, the
// first time a page sets them: PDFium keeps them for the whole document.
// The audit inflates as it goes, counting and never keeping the bytes,
// and stops at the limit.

// limitError is a document refused by the audit.
type limitError struct{ msg string }

func (e *limitError) Error() string {
	return ErrResourceLimit.Error() + ": " + e.msg + "; the file is probably hostile or broken"
}
func (e *limitError) Is(target error) bool { return target == ErrResourceLimit }

// maxFormDepth is how deep forms drawn inside forms are followed.
const maxFormDepth = 32

// auditor measures one document against the limits.
type auditor struct {
	x   *model.XRefTable
	lim Options

	book     int64 // content charged to the whole document so far
	page     int   // 1-based page being audited
	used     int64 // content charged to that page so far
	fontUsed int64 // fonts charged so far
	// formCost holds the cost of the forms measured on this page; active
	// the forms being measured, which a form cannot draw again (PDFium
	// refuses that recursion too).
	formCost map[int]int64
	active   map[int]bool
	// fonts and fontStreams were charged already, by object number.
	fonts       map[int]bool
	fontStreams map[int]bool
	inf         inflater
}

func newAuditor(x *model.XRefTable, lim Options) *auditor {
	return &auditor{x: x, lim: lim, fonts: map[int]bool{}, fontStreams: map[int]bool{}}
}

// objectStreams measures the object streams, which hold the document's
// dictionaries and which PDFium inflates whole when it needs one object.
func (a *auditor) objectStreams() error {
	var total int64
	nrs := make([]int, 0, len(a.x.Table))
	for nr, e := range a.x.Table {
		if e != nil && !e.Free {
			if _, ok := e.Object.(types.ObjectStreamDict); ok {
				nrs = append(nrs, nr)
			}
		}
	}
	slices.Sort(nrs)
	for _, nr := range nrs {
		osd := a.x.Table[nr].Object.(types.ObjectStreamDict)
		n := a.inf.inflate(&osd.StreamDict, a.lim.MaxObjectBytes-total, io.Discard)
		total += n
		if total > a.lim.MaxObjectBytes {
			return objectsError(a.lim.MaxObjectBytes)
		}
	}
	return nil
}

func objectsError(limit int64) error {
	return &limitError{fmt.Sprintf("its object streams inflate past %s (the limit for a document's objects)", sizeText(limit))}
}

// pageRef is a page of the page tree with the resources it inherits.
type pageRef struct {
	dict types.Dict
	res  types.Object
}

// auditPage charges page i (0-based).
func (a *auditor) auditPage(i int, pg pageRef) error {
	a.page, a.used = i+1, 0
	a.formCost, a.active = map[int]int64{}, map[int]bool{}
	res, _ := a.x.DereferenceDict(pg.res)
	sc := newContentScanner()
	if o, ok := pg.dict.Find("Contents"); ok {
		// Every entry counts, repeated ones too: PDFium joins them all
		// into one stream before parsing.
		var parts []types.Object
		switch v := a.deref(o).(type) {
		case types.Array:
			parts = v
		default:
			parts = []types.Object{o}
		}
		for _, part := range parts {
			if err := a.chargeStream(part, "content stream", sc); err != nil {
				return err
			}
		}
	}
	return a.uses(res, sc, 0)
}

func (a *auditor) deref(o types.Object) types.Object {
	d, err := a.x.Dereference(o)
	if err != nil {
		return nil
	}
	return d
}

func objNr(o types.Object) int {
	if ir, ok := o.(types.IndirectRef); ok {
		return ir.ObjectNumber.Value()
	}
	return -1
}

// uses charges what a content stream read by sc uses from res: the forms
// it draws and the fonts it sets.
func (a *auditor) uses(res types.Dict, sc *contentScanner, depth int) error {
	if res == nil {
		return nil
	}
	if len(sc.draws) > 0 {
		xobjects, _ := a.x.DereferenceDict(res["XObject"])
		for _, name := range sortedKeys(sc.draws) {
			o, ok := xobjects.Find(name)
			if !ok {
				continue
			}
			if err := a.form(name, o, res, sc.draws[name], depth); err != nil {
				return err
			}
		}
	}
	if len(sc.fonts) > 0 {
		fonts, _ := a.x.DereferenceDict(res["Font"])
		for _, name := range sortedKeys(sc.fonts) {
			if o, ok := fonts.Find(name); ok {
				if err := a.font(name, o); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// form charges a form XObject drawn times times. A form without resources
// uses those of whoever draws it.
func (a *auditor) form(name string, o types.Object, parentRes types.Dict, times, depth int) error {
	nr := objNr(o)
	if depth >= maxFormDepth || nr < 0 || a.active[nr] {
		return nil
	}
	sd, _, err := a.x.DereferenceStreamDict(o)
	if err != nil || sd == nil {
		return nil
	}
	if st := sd.Dict.NameEntry("Subtype"); st == nil || *st != "Form" {
		return nil // images are not inflated to read text
	}
	what := "form /" + name
	if cost, ok := a.formCost[nr]; ok {
		return a.charge(satMul(cost, int64(times)), what)
	}
	before := a.used
	sc := newContentScanner()
	a.active[nr] = true
	err = a.chargeStream(o, what, sc)
	if err == nil {
		res := parentRes
		if r, _ := a.x.DereferenceDict(sd.Dict["Resources"]); r != nil {
			res = r
		}
		err = a.uses(res, sc, depth+1)
	}
	delete(a.active, nr)
	if err != nil {
		return err
	}
	cost := a.used - before
	a.formCost[nr] = cost
	return a.charge(satMul(cost, int64(times-1)), what)
}

// font charges the streams PDFium inflates to load a font: its program,
// its character maps and, for a Type 3 font, its glyph procedures. PDFium
// loads a font once per document.
func (a *auditor) font(name string, o types.Object) error {
	nr := objNr(o)
	if nr >= 0 {
		if a.fonts[nr] {
			return nil
		}
		a.fonts[nr] = true
	}
	fd, _ := a.x.DereferenceDict(o)
	if fd == nil {
		return nil
	}
	what := "font /" + name
	streams := []types.Object{fd["ToUnicode"], fd["Encoding"]}
	descriptors := []types.Object{fd["FontDescriptor"]}
	if desc, _ := a.x.DereferenceArray(fd["DescendantFonts"]); len(desc) > 0 {
		if cid, _ := a.x.DereferenceDict(desc[0]); cid != nil {
			descriptors = append(descriptors, cid["FontDescriptor"])
			streams = append(streams, cid["CIDToGIDMap"])
		}
	}
	for _, d := range descriptors {
		if dd, _ := a.x.DereferenceDict(d); dd != nil {
			streams = append(streams, dd["FontFile"], dd["FontFile2"], dd["FontFile3"])
		}
	}
	if procs, _ := a.x.DereferenceDict(fd["CharProcs"]); procs != nil {
		for _, k := range sortedKeys(procs) {
			streams = append(streams, procs[k])
		}
	}
	for _, s := range streams {
		if s == nil {
			continue
		}
		if snr := objNr(s); snr >= 0 {
			if a.fontStreams[snr] {
				continue
			}
			a.fontStreams[snr] = true
		}
		sd, _, err := a.x.DereferenceStreamDict(s)
		if err != nil || sd == nil {
			continue
		}
		a.fontUsed += a.inf.inflate(sd, a.lim.MaxFontBytes-a.fontUsed, io.Discard)
		if a.fontUsed > a.lim.MaxFontBytes {
			return &limitError{fmt.Sprintf("its fonts inflate past %s in all (the limit for a document's fonts), at page %d's %s", sizeText(a.lim.MaxFontBytes), a.page, what)}
		}
	}
	return nil
}

// chargeStream inflates a content stream (a no-op for anything else),
// feeding sc, and charges its size.
func (a *auditor) chargeStream(o types.Object, what string, sc *contentScanner) error {
	sd, _, err := a.x.DereferenceStreamDict(o)
	if err != nil || sd == nil {
		return nil
	}
	room := max(0, min(a.lim.MaxPageBytes-a.used, a.lim.MaxBookBytes-a.book))
	n := a.inf.inflate(sd, room, sc)
	sc.end()
	return a.charge(n, what)
}

func (a *auditor) charge(n int64, what string) error {
	a.used = satAdd(a.used, n)
	a.book = satAdd(a.book, n)
	switch {
	case a.used > a.lim.MaxPageBytes:
		return &limitError{fmt.Sprintf("page %d's content inflates past %s (the per-page limit), at its %s", a.page, sizeText(a.lim.MaxPageBytes), what)}
	case a.book > a.lim.MaxBookBytes:
		return &limitError{fmt.Sprintf("its pages' content inflates past %s in all (the per-book limit), at page %d", sizeText(a.lim.MaxBookBytes), a.page)}
	}
	return nil
}

func satAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return 1<<63 - 1
}

func satMul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > (1<<63-1)/b {
		return 1<<63 - 1
	}
	return a * b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// inflater inflates streams one after another, reusing its decompressor
// and buffer: a book has thousands of streams, and a fresh decompressor
// costs more to allocate than a small stream costs to inflate.
type inflater struct {
	zr  io.ReadCloser // a zlib reader, once made
	fr  io.ReadCloser // a raw deflate reader, once made
	buf []byte
}

// inflate writes a stream's decoded bytes to w, at most limit+1 of them,
// and returns how many it produced: more than limit means the stream goes
// past it. Flate, the filter of nearly every stream and of every bomb, is
// inflated streaming; other filters are decoded by pdfcpu into a buffer
// that stops past limit. Corrupt data counts up to where it breaks, as
// far as PDFium would read it; a filter that cannot be decoded counts the
// raw bytes.
func (f *inflater) inflate(sd *types.StreamDict, limit int64, w io.Writer) int64 {
	limit = max(limit, 0)
	var src io.Reader
	switch fpl := sd.FilterPipeline; {
	case sd.Content != nil:
		src = bytes.NewReader(sd.Content)
	case len(fpl) == 0:
		src = bytes.NewReader(sd.Raw)
	case len(fpl) == 1 && fpl[0].Name == filter.Flate:
		src = f.flate(sd.Raw)
	default:
		c := *sd
		// pdfcpu reads a limit of 0 as its default of 512 MB.
		data, err := c.DecodeLengthWithLimit(-1, max(limit, 1))
		switch {
		case errors.Is(err, filter.ErrDecodeLimitExceeded):
			return limit + 1
		case err != nil:
			data = sd.Raw
		}
		src = bytes.NewReader(data)
	}
	if f.buf == nil {
		f.buf = make([]byte, 32<<10)
	}
	cw := &countWriter{w: w}
	io.CopyBuffer(cw, io.LimitReader(src, limit+1), f.buf)
	return cw.n
}

// flate returns a reader of raw inflated as zlib data, or as a bare
// deflate stream when it has no zlib header.
func (f *inflater) flate(raw []byte) io.Reader {
	r := bytes.NewReader(raw)
	var err error
	if f.zr == nil {
		f.zr, err = zlib.NewReader(r)
	} else {
		err = f.zr.(zlib.Resetter).Reset(r, nil)
	}
	if err == nil {
		return f.zr
	}
	r.Reset(raw)
	if f.fr == nil {
		f.fr = flate.NewReader(r)
	} else {
		f.fr.(flate.Resetter).Reset(r, nil)
	}
	return f.fr
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}

// sizeText prints a limit: "2 GB", "64 MB", "512 KB", "300 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
