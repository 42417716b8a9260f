package mobi

import (
	"context"
	"errors"
	"fmt"
)

// book is a Kindle book being read.
type book struct {
	db  *palmDB
	lim limits
	// first is record 0's header; kf8 is the KF8 part's, which is first
	// itself in an AZW3 and nil in a MOBI6-only book.
	first, kf8 *header
}

// readBook reads the headers and refuses what cannot be read: encrypted
// text, unknown compression.
func readBook(ctx context.Context, db *palmDB, lim limits) (*book, error) {
	h, err := readHeader(db, 0)
	if err != nil {
		return nil, err
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	b := &book{db: db, lim: lim, first: h}
	switch {
	case h.kf8():
		b.kf8 = h
	case h.exth.boundary > 0:
		// A combined file: the KF8 part starts at the boundary record.
		for _, at := range []int{h.exth.boundary, h.exth.boundary + 1} {
			k, err := readHeader(db, at)
			if err == nil && k.kf8() {
				if err := k.check(); err != nil {
					return nil, err
				}
				b.kf8 = k
				break
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mobi: %w", err)
	}
	return b, nil
}

// check refuses a header whose text cannot be read.
func (h *header) check() error {
	if h.encryption != 0 {
		return failf(ErrDRM, "the Kindle book's text is encrypted (Mobipocket encryption type %d), so it cannot be indexed; only DRM-free books can be read", h.encryption)
	}
	switch h.compression {
	case compressNone, compressPalmDOC, compressHuff:
	default:
		return failf(ErrDamaged, "unknown text compression %d", h.compression)
	}
	if h.encoding != encodingCP1252 && h.encoding != encodingUTF8 {
		return failf(ErrDamaged, "unknown text encoding %d", h.encoding)
	}
	return nil
}

// text decompresses the text records of the part whose header is h.
func (b *book) text(ctx context.Context, h *header) ([]byte, error) {
	unpack, err := b.decompressor(h)
	if err != nil {
		return nil, err
	}
	var in int
	for i := 1; i <= h.textRecords; i++ {
		in += len(b.db.record(h.base + i))
	}
	out := make([]byte, 0, min(h.textLength, b.lim.maxText, 8*in))
	for i := 1; i <= h.textRecords; i++ {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("mobi: %w", err)
			}
		}
		raw := b.db.record(h.base + i)
		if !b.db.whole(h.base + i) {
			return nil, failf(ErrDamaged, "text record %d of %d is missing: the file is cut short or its record list is broken", i, h.textRecords)
		}
		out, err = unpack(out, trimTrailing(raw, h.extraFlags), b.lim.maxRecordText)
		switch {
		case errors.Is(err, errOverflow):
			return nil, failf(ErrTooLarge, "text record %d decompresses to more than %d bytes", i, b.lim.maxRecordText)
		case err != nil:
			return nil, failf(ErrDamaged, "text record %d does not decompress: %w", i, err)
		case len(out) > b.lim.maxText:
			return nil, failf(ErrTooLarge, "the text decompresses to more than %d MB", b.lim.maxText>>20)
		}
	}
	return out, nil
}

// decompressor returns the function that decompresses h's text records.
func (b *book) decompressor(h *header) (func(dst, src []byte, max int) ([]byte, error), error) {
	switch h.compression {
	case compressPalmDOC:
		return unpackPalmDOC, nil
	case compressHuff:
		if h.huff < 0 || h.huffCount < 1 {
			return nil, failf(ErrDamaged, "HUFF/CDIC compression without a HUFF record")
		}
		var cdics [][]byte
		for i := 1; i < min(h.huffCount, 256); i++ {
			cdics = append(cdics, b.db.record(h.huff+i))
		}
		hc, err := newHuffCDIC(b.db.record(h.huff), cdics, b.lim.maxHuffDepth)
		if err != nil {
			return nil, failf(ErrDamaged, "%w", err)
		}
		return hc.unpack, nil
	}
	return func(dst, src []byte, max int) ([]byte, error) {
		if len(src) > max {
			return dst, errOverflow
		}
		return append(dst, src...), nil
	}, nil
}

// trimTrailing strips the entries that writers append to each text record
// (indexing hints, the bytes of a character cut at the record's end), as
// the header's extra flags list them.
func trimTrailing(rec []byte, flags uint16) []byte {
	for bit := 1; bit < 16; bit++ {
		if flags&(1<<bit) == 0 {
			continue
		}
		n := trailingSize(rec)
		if n > len(rec) {
			return nil
		}
		rec = rec[:len(rec)-n]
	}
	if flags&1 != 0 && len(rec) > 0 {
		n := int(rec[len(rec)-1]&3) + 1
		if n > len(rec) {
			return nil
		}
		rec = rec[:len(rec)-n]
	}
	return rec
}

// trailingSize reads the size of a trailing entry, written at its end as a
// variable-width integer whose first byte has the high bit set; the size
// counts the integer's own bytes.
func trailingSize(rec []byte) int {
	n := 0
	for _, c := range rec[max(0, len(rec)-4):] {
		if c&0x80 != 0 {
			n = 0
		}
		n = n<<7 | int(c&0x7F)
	}
	return n
}
