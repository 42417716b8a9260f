package pdfium

import (
	"context"
	"errors"
	"fmt"
	"math"
	"unicode/utf16"
)

// Errors from OpenDocument, after FPDF_GetLastError.
var (
	ErrPassword = errors.New("the document needs a password")
	ErrFormat   = errors.New("not a readable PDF")
	ErrSecurity = errors.New("unsupported security handler")
)

// Document is an open PDF in one instance.
type Document struct {
	in  *Instance
	doc uint64
	buf uint32
}

// OpenDocument hands data to PDFium, which reads it in place: the copy in
// guest memory lives until Close. An empty password opens files that are
// encrypted without a user password.
func (in *Instance) OpenDocument(ctx context.Context, data []byte, password string) (*Document, error) {
	if len(data) == 0 {
		return nil, ErrFormat
	}
	if uint64(len(data)) >= math.MaxInt32 {
		return nil, errors.New("the file is too large for PDFium")
	}
	buf, err := in.malloc(ctx, len(data))
	if err != nil {
		return nil, err
	}
	if !in.mem.Write(buf, data) {
		in.free(ctx, buf)
		return nil, errors.New("PDFium is out of memory")
	}
	var pw uint64
	if password != "" {
		if len(password)+1 > scratchSize {
			in.free(ctx, buf)
			return nil, errors.New("the password is too long")
		}
		in.mem.Write(in.scratch, append([]byte(password), 0))
		pw = uint64(in.scratch)
	}
	doc, err := in.call(ctx, fnLoadMemDocument, uint64(buf), uint64(len(data)), pw)
	if err != nil {
		in.free(ctx, buf)
		return nil, err
	}
	if uint32(doc) == 0 {
		code, err := in.call(ctx, fnGetLastError)
		in.free(ctx, buf)
		if err != nil {
			return nil, err
		}
		switch uint32(code) {
		case 2:
			return nil, fmt.Errorf("%w (PDFium could not read the file)", ErrFormat)
		case 3:
			return nil, fmt.Errorf("%w (incorrect format)", ErrFormat)
		case 4:
			return nil, ErrPassword
		case 5:
			return nil, ErrSecurity
		default:
			return nil, fmt.Errorf("%w (PDFium error %d)", ErrFormat, uint32(code))
		}
	}
	in.docs++
	return &Document{in: in, doc: uint64(uint32(doc)), buf: buf}, nil
}

// Close closes the document and frees its bytes.
func (d *Document) Close(ctx context.Context) {
	if d.in == nil {
		return
	}
	if !d.in.dead {
		_, _ = d.in.call(ctx, fnCloseDocument, d.doc)
		d.in.free(ctx, d.buf)
	}
	d.in = nil
}

// PageCount is the number of pages PDFium found.
func (d *Document) PageCount(ctx context.Context) (int, error) {
	n, err := d.in.call(ctx, fnGetPageCount, d.doc)
	if err != nil {
		return 0, err
	}
	return int(int32(n)), nil
}

// PageLabel returns the page's printed label, or "" when it has none.
func (d *Document) PageLabel(ctx context.Context, index int) (string, error) {
	return d.in.utf16Call(ctx, func(buf uint32, n uint32) (uint64, error) {
		return d.in.call(ctx, fnGetPageLabel, d.doc, uint64(index), uint64(buf), uint64(n))
	})
}

// MetaText returns an Info dictionary entry ("Title", "Author").
func (d *Document) MetaText(ctx context.Context, tag string) (string, error) {
	if len(tag) > 64 {
		return "", errors.New("metadata tag too long")
	}
	// The tag lives at the end of the scratch buffer, the answer before it.
	tagPtr := d.in.scratch + scratchSize - 128
	d.in.mem.Write(tagPtr, append([]byte(tag), 0))
	return d.in.utf16CallN(ctx, scratchSize-128, func(buf uint32, n uint32) (uint64, error) {
		return d.in.call(ctx, fnGetMetaText, d.doc, uint64(tagPtr), uint64(buf), uint64(n))
	})
}

// utf16Call runs a PDFium "fill this buffer" call that returns the byte
// length it needs, first into the scratch buffer, then into a buffer of
// the right size when the answer did not fit.
func (in *Instance) utf16Call(ctx context.Context, f func(buf uint32, n uint32) (uint64, error)) (string, error) {
	return in.utf16CallN(ctx, scratchSize, f)
}

func (in *Instance) utf16CallN(ctx context.Context, room uint32, f func(buf uint32, n uint32) (uint64, error)) (string, error) {
	need, err := f(in.scratch, room)
	if err != nil {
		return "", err
	}
	n := uint32(need)
	if n <= 2 {
		return "", nil
	}
	if n <= room {
		return in.utf16String(in.scratch, n), nil
	}
	if n > 1<<20 {
		return "", errors.New("PDFium returned an oversized string")
	}
	p, err := in.malloc(ctx, int(n))
	if err != nil {
		return "", err
	}
	defer in.free(ctx, p)
	if _, err := f(p, n); err != nil {
		return "", err
	}
	return in.utf16String(p, n), nil
}

func decodeUTF16(u []uint16) string { return string(utf16.Decode(u)) }

// Bookmark is one outline entry as PDFium resolves it.
type Bookmark struct {
	Title string
	Level int // 1 for top-level entries
	// Page is the 0-based destination page, or -1 when the entry has none
	// that PDFium can resolve.
	Page int
	// HasX and HasY are set when the destination names a position, X
	// and Y, in page space (origin at the bottom left).
	HasX, HasY bool
	X, Y       float64
}

// Outline walks the outline, depth first, returning at most limit entries
// and going at most maxDepth levels deep. Loops in a damaged outline end
// the walk at the first repeated entry.
func (d *Document) Outline(ctx context.Context, limit, maxDepth int) ([]Bookmark, error) {
	var out []Bookmark
	seen := map[uint64]bool{}
	var walk func(parent uint64, level int) error
	walk = func(parent uint64, level int) error {
		bm, err := d.in.call(ctx, fnBookmarkFirstChild, d.doc, parent)
		if err != nil {
			return err
		}
		for bm = uint64(uint32(bm)); bm != 0 && len(out) < limit; {
			if seen[bm] {
				return nil
			}
			seen[bm] = true
			b := Bookmark{Level: level, Page: -1}
			b.Title, err = d.in.utf16Call(ctx, func(buf uint32, n uint32) (uint64, error) {
				return d.in.call(ctx, fnBookmarkTitle, bm, uint64(buf), uint64(n))
			})
			if err != nil {
				return err
			}
			if err := d.bookmarkDest(ctx, bm, &b); err != nil {
				return err
			}
			out = append(out, b)
			if level < maxDepth {
				if err := walk(bm, level+1); err != nil {
					return err
				}
			}
			next, err := d.in.call(ctx, fnBookmarkNextSibling, d.doc, bm)
			if err != nil {
				return err
			}
			bm = uint64(uint32(next))
		}
		return nil
	}
	if err := walk(0, 1); err != nil {
		return nil, err
	}
	return out, nil
}

func (d *Document) bookmarkDest(ctx context.Context, bm uint64, b *Bookmark) error {
	dest, err := d.in.call(ctx, fnBookmarkDest, d.doc, bm)
	if err != nil {
		return err
	}
	if uint32(dest) == 0 {
		act, err := d.in.call(ctx, fnBookmarkAction, bm)
		if err != nil {
			return err
		}
		if uint32(act) == 0 {
			return nil
		}
		if dest, err = d.in.call(ctx, fnActionDest, d.doc, uint64(uint32(act))); err != nil {
			return err
		}
		if uint32(dest) == 0 {
			return nil
		}
	}
	dest = uint64(uint32(dest))
	page, err := d.in.call(ctx, fnDestPageIndex, d.doc, dest)
	if err != nil {
		return err
	}
	b.Page = int(int32(page))
	// FPDFDest_GetLocationInPage(dest, &hasX, &hasY, &hasZoom, &x, &y, &zoom)
	s := uint64(d.in.scratch)
	ok, err := d.in.call(ctx, fnDestLocation, dest, s, s+4, s+8, s+12, s+16, s+20)
	if err != nil {
		return err
	}
	if int32(ok) != 0 {
		hasX, _ := d.in.mem.ReadUint32Le(d.in.scratch)
		hasY, _ := d.in.mem.ReadUint32Le(d.in.scratch + 4)
		x, _ := d.in.mem.ReadFloat32Le(d.in.scratch + 12)
		y, _ := d.in.mem.ReadFloat32Le(d.in.scratch + 16)
		if hasX != 0 {
			b.HasX, b.X = true, float64(x)
		}
		if hasY != 0 {
			b.HasY, b.Y = true, float64(y)
		}
	}
	return nil
}

// TextPage is a loaded page with PDFium's text analysis of it.
type TextPage struct {
	d        *Document
	page, tp uint64
	// Width and Height are the page's size in points, Rotation its /Rotate
	// in quarter turns clockwise.
	Width, Height float32
	Rotation      int
	// Box is the visible part of the page (the crop box, else the media
	// box) as left, bottom, right, top in the characters' coordinates;
	// HasBox is false when the page names neither.
	Box    [4]float32
	HasBox bool
}

// LoadPage loads a page and analyses its text.
func (d *Document) LoadPage(ctx context.Context, index int) (*TextPage, error) {
	in := d.in
	page, err := in.call(ctx, fnLoadPage, d.doc, uint64(index))
	if err != nil {
		return nil, err
	}
	if uint32(page) == 0 {
		return nil, fmt.Errorf("PDFium could not load page %d", index+1)
	}
	t := &TextPage{d: d, page: uint64(uint32(page))}
	w, err := in.call(ctx, fnPageWidth, t.page)
	if err != nil {
		return nil, err
	}
	h, err := in.call(ctx, fnPageHeight, t.page)
	if err != nil {
		return nil, err
	}
	r, err := in.call(ctx, fnPageRotation, t.page)
	if err != nil {
		return nil, err
	}
	t.Width, t.Height, t.Rotation = math.Float32frombits(uint32(w)), math.Float32frombits(uint32(h)), int(int32(r))
	for _, fn := range []int{fnPageCropBox, fnPageMediaBox} {
		s := uint64(in.scratch)
		ok, err := in.call(ctx, fn, t.page, s, s+4, s+8, s+12)
		if err != nil {
			return nil, err
		}
		if int32(ok) == 0 {
			continue
		}
		if b, ok := in.mem.Read(in.scratch, 16); ok {
			for k := range t.Box {
				t.Box[k] = f32(b[4*k:])
			}
			t.HasBox = true
			break
		}
	}
	tp, err := in.call(ctx, fnTextLoadPage, t.page)
	if err != nil {
		return nil, err
	}
	if uint32(tp) == 0 {
		_, _ = in.call(ctx, fnClosePage, t.page)
		return nil, fmt.Errorf("PDFium could not read the text of page %d", index+1)
	}
	t.tp = uint64(uint32(tp))
	in.pages++
	return t, nil
}

// Close releases the page.
func (t *TextPage) Close(ctx context.Context) {
	in := t.d.in
	if in == nil || in.dead || t.page == 0 {
		return
	}
	if t.tp != 0 {
		_, _ = in.call(ctx, fnTextClosePage, t.tp)
	}
	_, _ = in.call(ctx, fnClosePage, t.page)
	t.page, t.tp = 0, 0
}

// Char is one character of PDFium's text page, in PDFium's order, which
// includes the spaces and line breaks PDFium generates from the layout.
type Char struct {
	Rune rune
	// The loose box: the advance width across, the font's ascent to
	// descent up and down, in page space (origin at the bottom left).
	Left, Bottom, Right, Top float32
	// NoBox is set when PDFium has no box for the character.
	NoBox bool
	// Unmapped is set when the font gives no Unicode for the glyph, so
	// that Rune is the raw character code.
	Unmapped bool
}

// CountChars is the number of characters on the page.
func (t *TextPage) CountChars(ctx context.Context) (int, error) {
	n, err := t.d.in.call(ctx, fnTextCountChars, t.tp)
	if err != nil {
		return 0, err
	}
	return max(0, int(int32(n))), nil
}

// Chars reads the first n characters. ctx is checked between calls by the
// runtime itself, so a deadline interrupts a long page.
func (t *TextPage) Chars(ctx context.Context, n int, dst []Char) ([]Char, error) {
	in := t.d.in
	if in.dead {
		return nil, ErrDead
	}
	uni, box, unmapped := in.fns[fnTextGetUnicode], in.fns[fnTextGetLooseCharBox], in.fns[fnTextHasUnicodeMapError]
	st := in.stack[:]
	rect := in.scratch
	mem := in.mem
	for i := range n {
		st[0], st[1] = t.tp, uint64(i)
		if err := uni.CallWithStack(ctx, st); err != nil {
			return nil, in.failed(ctx, fnTextGetUnicode, err)
		}
		c := Char{Rune: rune(uint32(st[0]))}
		st[0], st[1] = t.tp, uint64(i)
		if err := unmapped.CallWithStack(ctx, st); err != nil {
			return nil, in.failed(ctx, fnTextHasUnicodeMapError, err)
		}
		c.Unmapped = int32(st[0]) == 1
		st[0], st[1], st[2] = t.tp, uint64(i), uint64(rect)
		if err := box.CallWithStack(ctx, st); err != nil {
			return nil, in.failed(ctx, fnTextGetLooseCharBox, err)
		}
		if int32(st[0]) != 0 {
			// FS_RECTF is {left, top, right, bottom}.
			b, ok := mem.Read(rect, 16)
			if ok {
				c.Left = f32(b[0:])
				c.Top = f32(b[4:])
				c.Right = f32(b[8:])
				c.Bottom = f32(b[12:])
			} else {
				c.NoBox = true
			}
		} else {
			c.NoBox = true
		}
		dst = append(dst, c)
	}
	return dst, nil
}

func f32(b []byte) float32 {
	return math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
}

func (in *Instance) failed(ctx context.Context, fn int, err error) error {
	in.dead = true
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("PDFium %s: %w", fnNames[fn], err)
}

// Style is the font of one character.
type Style struct {
	// Size is the rendered font size in points: the font size scaled by
	// the text matrix (many producers set 1 Tf and scale with Tm).
	Size float32
	// Weight is the font's weight (400 regular, 700 bold), or 0 when
	// unknown.
	Weight int
	// Flags are the font descriptor flags (PDF 32000-1, 9.8.2).
	Flags int
	// Font is the font's base name, subset prefix included.
	Font string
}

// Style returns the font of character i.
func (t *TextPage) Style(ctx context.Context, i int) (Style, error) {
	in := t.d.in
	var s Style
	size, err := in.call(ctx, fnTextGetFontSize, t.tp, uint64(i))
	if err != nil {
		return s, err
	}
	s.Size = float32(math.Float64frombits(size))
	// FS_MATRIX is {a, b, c, d, e, f}; the vertical scale is |(c, d)|.
	ok, err := in.call(ctx, fnTextGetMatrix, t.tp, uint64(i), uint64(in.scratch))
	if err != nil {
		return s, err
	}
	if int32(ok) != 0 {
		if b, ok := in.mem.Read(in.scratch, 24); ok {
			c, d := float64(f32(b[8:])), float64(f32(b[12:]))
			if scale := math.Hypot(c, d); scale > 0 && !math.IsInf(scale, 0) && !math.IsNaN(scale) {
				s.Size = float32(float64(s.Size) * scale)
			}
		}
	}
	w, err := in.call(ctx, fnTextGetFontWeight, t.tp, uint64(i))
	if err != nil {
		return s, err
	}
	s.Weight = max(0, int(int32(w)))
	// FPDFText_GetFontInfo(tp, i, buf, buflen, &flags) returns the name's
	// length with its NUL; the flags go to the start of the scratch.
	flags := in.scratch
	name := in.scratch + 8
	n, err := in.call(ctx, fnTextGetFontInfo, t.tp, uint64(i), uint64(name), 256, uint64(flags))
	if err != nil {
		return s, err
	}
	if n := uint32(n); n > 1 && n <= 256 {
		if b, ok := in.mem.Read(name, n-1); ok {
			s.Font = string(b)
		}
		if f, ok := in.mem.ReadUint32Le(flags); ok {
			s.Flags = int(int32(f))
		}
	}
	return s, nil
}

// FontName returns the base name of character i's font.
func (t *TextPage) FontName(ctx context.Context, i int) (string, error) {
	in := t.d.in
	name := in.scratch + 8
	n, err := in.call(ctx, fnTextGetFontInfo, t.tp, uint64(i), uint64(name), 256, uint64(in.scratch))
	if err != nil {
		return "", err
	}
	if n := uint32(n); n > 1 && n <= 256 {
		if b, ok := in.mem.Read(name, n-1); ok {
			return string(b), nil
		}
	}
	return "", nil
}
