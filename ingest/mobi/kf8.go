package mobi

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
)

// kf8Text is a KF8 part reassembled: the XHTML of its files one after the
// other, and what maps the positions Kindle links name onto it.
type kf8Text struct {
	html  []byte
	files []kf8File
	// frags are the fragments in index order: a fragment's index is the
	// "fid" of kindle:pos links.
	frags []kf8Frag
	// byPos are the indexes of frags ordered by insert position.
	byPos []int
}

// kf8File is one reassembled file: where it starts in the book's position
// space (its skeleton's position in the text) and in html.
type kf8File struct {
	pos, at, length int
}

// kf8Frag is a fragment of a file's body: where it was inserted, in the
// book's position space, and its length.
type kf8Frag struct {
	insert, length int
}

// assembleKF8 decompresses a KF8 part's text and rebuilds its files: each
// is a skeleton, the outline of an XHTML file, into which the fragments
// that follow it in the text are inserted at the positions the fragment
// index gives.
func (b *book) assembleKF8(ctx context.Context, h *header) (*kf8Text, error) {
	raw, err := b.text(ctx, h)
	if err != nil {
		return nil, err
	}
	text := firstFlow(raw, b.db.record(h.fdst))
	if h.skeleton < 0 || h.fragment < 0 {
		return &kf8Text{html: text, files: []kf8File{{length: len(text)}}}, nil
	}
	skels, err := readIndex(b.db, h.skeleton, b.lim.maxIndexEntries)
	if err != nil {
		return nil, failf(ErrDamaged, "the KF8 skeleton index: %w", err)
	}
	fragIx, err := readIndex(b.db, h.fragment, b.lim.maxIndexEntries)
	if err != nil {
		return nil, failf(ErrDamaged, "the KF8 fragment index: %w", err)
	}
	t := &kf8Text{html: make([]byte, 0, len(text))}
	for _, e := range fragIx.entries {
		insert, err := strconv.Atoi(string(e.label))
		if err != nil {
			return nil, failf(ErrDamaged, "a KF8 fragment has no insert position (%q)", e.label)
		}
		var length int
		if v := e.tags[6]; len(v) >= 2 {
			length = int(v[1])
		}
		t.frags = append(t.frags, kf8Frag{insert: insert, length: length})
	}
	// Reassembly copies each skeleton once per fragment; a hostile index
	// of many fragments into a large skeleton is stopped here.
	budget := 4 * b.lim.maxText
	next := 0
	for i, e := range skels.entries {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("mobi: %w", err)
			}
		}
		count, _ := e.first(1)
		v := e.tags[6]
		if len(v) < 2 {
			return nil, failf(ErrDamaged, "KF8 skeleton %d has no position", i)
		}
		pos, length := int(v[0]), int(v[1])
		if pos > len(text) {
			break
		}
		end := min(pos+length, len(text))
		file := append([]byte(nil), text[pos:end]...)
		base := end
		for k := 0; k < count && next < len(t.frags); k++ {
			f := t.frags[next]
			next++
			part := text[min(base, len(text)):min(base+f.length, len(text))]
			base += f.length
			at := min(max(f.insert-pos, 0), len(file))
			if budget -= len(file) + len(part); budget < 0 {
				return nil, failf(ErrTooLarge, "the KF8 fragments take too long to reassemble")
			}
			file = append(file[:at], append(append([]byte(nil), part...), file[at:]...)...)
		}
		t.files = append(t.files, kf8File{pos: pos, at: len(t.html), length: len(file)})
		t.html = append(t.html, file...)
	}
	t.byPos = make([]int, len(t.frags))
	for i := range t.byPos {
		t.byPos[i] = i
	}
	sort.SliceStable(t.byPos, func(i, j int) bool { return t.frags[t.byPos[i]].insert < t.frags[t.byPos[j]].insert })
	return t, nil
}

// firstFlow returns the first flow of the text, its XHTML, as the FDST
// record divides it; the other flows are style sheets and images. Without
// a readable FDST the whole text is the first flow.
func firstFlow(text, fdst []byte) []byte {
	if len(fdst) < 12 || string(fdst[:4]) != "FDST" {
		return text
	}
	be := binary.BigEndian
	off, n := int(be.Uint32(fdst[4:])), int(be.Uint32(fdst[8:]))
	if n < 1 || off < 0 || off+8 > len(fdst) {
		return text
	}
	start, end := int(be.Uint32(fdst[off:])), int(be.Uint32(fdst[off+4:]))
	if start != 0 || end < start || end > len(text) {
		return text
	}
	return text[:end]
}

// htmlOffset maps a position of the book's position space to html, and
// false when no file holds it.
func (t *kf8Text) htmlOffset(pos int) (int, bool) {
	i := sort.Search(len(t.files), func(i int) bool { return t.files[i].pos > pos }) - 1
	if i < 0 {
		return 0, false
	}
	f := t.files[i]
	if pos < f.pos || pos-f.pos > f.length {
		return 0, false // skeletons out of order: no file holds it
	}
	return f.at + pos - f.pos, true
}

// fidPosition returns the position a kindle:pos link (fragment fid,
// offset off) names, and false when there is no such fragment.
func (t *kf8Text) fidPosition(fid, off int) (int, bool) {
	if fid < 0 || fid >= len(t.frags) {
		return 0, false
	}
	return t.htmlOffset(t.frags[fid].insert + off)
}

// anchor names the html offset at as a kindle:pos link, or "" when it lies
// in no fragment (in a skeleton's head).
func (t *kf8Text) anchor(at int) string {
	i := sort.Search(len(t.files), func(i int) bool { return t.files[i].at > at }) - 1
	if i < 0 {
		return ""
	}
	pos := t.files[i].pos + at - t.files[i].at
	k := sort.Search(len(t.byPos), func(k int) bool { return t.frags[t.byPos[k]].insert > pos }) - 1
	if k < 0 {
		return ""
	}
	fid := t.byPos[k]
	f := t.frags[fid]
	if pos >= f.insert+f.length {
		return ""
	}
	return "kindle:pos:fid:" + base32(fid, 4) + ":off:" + base32(pos-f.insert, 10)
}

// base32 writes n in Kindle's base 32 (digits 0-9, then A-V), padded with
// zeros to width.
func base32(n, width int) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUV"
	b := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		b[i] = digits[n&31]
		n >>= 5
	}
	return string(b)
}
