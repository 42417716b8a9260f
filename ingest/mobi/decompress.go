package mobi

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// errOverflow reports a record that decompresses past its cap.
var errOverflow = errors.New("decompresses past its limit")

// unpackPalmDOC appends the PalmDOC (LZ77) decompression of src to dst and
// returns it, failing when the record would grow dst by more than max
// bytes or refers back past its own start.
func unpackPalmDOC(dst, src []byte, max int) ([]byte, error) {
	start := len(dst)
	for i := 0; i < len(src); {
		if len(dst)-start > max {
			return dst, errOverflow
		}
		c := src[i]
		i++
		switch {
		case c >= 1 && c <= 8:
			// c literal bytes follow.
			n := min(int(c), len(src)-i)
			dst = append(dst, src[i:i+n]...)
			i += n
		case c < 0x80:
			dst = append(dst, c)
		case c >= 0xC0:
			// A space and a letter.
			dst = append(dst, ' ', c^0x80)
		default:
			if i >= len(src) {
				return dst, nil // a pair cut at the end: nothing to copy
			}
			pair := int(c)<<8 | int(src[i])
			i++
			dist, n := (pair>>3)&0x7FF, pair&7+3
			if dist == 0 || dist > len(dst)-start {
				return dst, fmt.Errorf("a back reference of %d bytes points before the record's start", dist)
			}
			// Byte by byte: the copy may overlap what it writes.
			from := len(dst) - dist
			for k := range n {
				dst = append(dst, dst[from+k])
			}
		}
	}
	return dst, nil
}

// huffCDIC decompresses HUFF/CDIC text records: a Huffman code over a
// dictionary of phrases, each of which may itself be compressed.
type huffCDIC struct {
	// dict1 is indexed by a code's first byte: its length, whether that
	// length is final, and the largest code of that length, left-aligned.
	dict1 [256]struct {
		codeLen uint8
		term    bool
		damaged bool
		maxCode uint64
	}
	// minCode and maxCode bound the codes of each length, left-aligned in
	// 32 bits.
	minCode, maxCode [33]uint64
	phrases          []phrase
	maxDepth         int
}

// phrase is a dictionary entry: its bytes, and whether they are final or
// still compressed.
type phrase struct {
	data  []byte
	final bool
	busy  bool // being decompressed: a phrase that contains itself
}

// newHuffCDIC reads the HUFF record and the CDIC records that follow it.
func newHuffCDIC(huff []byte, cdics [][]byte, maxDepth int) (*huffCDIC, error) {
	be := binary.BigEndian
	if len(huff) < 24 || string(huff[:8]) != "HUFF\x00\x00\x00\x18" {
		return nil, errors.New("the HUFF record has no HUFF header")
	}
	off1, off2 := int(be.Uint32(huff[8:])), int(be.Uint32(huff[12:]))
	if off1 < 0 || off1+256*4 > len(huff) || off2 < 0 || off2+64*4 > len(huff) {
		return nil, errors.New("the HUFF tables lie outside the HUFF record")
	}
	h := &huffCDIC{maxDepth: maxDepth}
	for i := range 256 {
		v := be.Uint32(huff[off1+4*i:])
		e := &h.dict1[i]
		e.codeLen, e.term = uint8(v&0x1F), v&0x80 != 0
		if e.codeLen == 0 || (e.codeLen <= 8 && !e.term) {
			e.damaged = true
			continue
		}
		e.maxCode = ((uint64(v>>8) + 1) << (32 - e.codeLen)) - 1
	}
	for l := 1; l <= 32; l++ {
		lo, hi := be.Uint32(huff[off2+8*(l-1):]), be.Uint32(huff[off2+8*(l-1)+4:])
		h.minCode[l] = uint64(lo) << (32 - l)
		h.maxCode[l] = ((uint64(hi) + 1) << (32 - l)) - 1
	}
	for _, c := range cdics {
		if len(c) < 16 || string(c[:8]) != "CDIC\x00\x00\x00\x10" {
			return nil, errors.New("a CDIC record has no CDIC header")
		}
		total, bits := int(be.Uint32(c[8:])), be.Uint32(c[12:])
		n := total - len(h.phrases)
		if bits < 32 {
			n = min(n, 1<<bits)
		}
		n = min(n, (len(c)-16)/2)
		for i := range n {
			off := 16 + int(be.Uint16(c[16+2*i:]))
			if off+2 > len(c) {
				return nil, errors.New("a CDIC phrase lies outside its record")
			}
			l := int(be.Uint16(c[off:]))
			end := off + 2 + l&0x7FFF
			if end > len(c) {
				return nil, errors.New("a CDIC phrase runs past its record")
			}
			h.phrases = append(h.phrases, phrase{data: c[off+2 : end], final: l&0x8000 != 0})
		}
	}
	return h, nil
}

// unpack appends the decompression of src to dst, which may grow by at
// most max bytes.
func (h *huffCDIC) unpack(dst, src []byte, max int) ([]byte, error) {
	return h.unpackDepth(dst, src, len(dst)+max, 0)
}

func (h *huffCDIC) unpackDepth(dst, src []byte, limit, depth int) ([]byte, error) {
	if depth > h.maxDepth {
		return dst, errors.New("HUFF/CDIC phrases nest too deep")
	}
	bitsLeft := len(src) * 8
	buf := make([]byte, len(src)+8)
	copy(buf, src)
	pos := 0
	x := binary.BigEndian.Uint64(buf)
	n := 32
	for {
		if n <= 0 {
			pos += 4
			if pos+8 > len(buf) {
				return dst, nil
			}
			x = binary.BigEndian.Uint64(buf[pos:])
			n += 32
		}
		code := (x >> uint(n)) & 0xFFFFFFFF
		e := h.dict1[code>>24]
		if e.damaged {
			return dst, errors.New("a HUFF code has no length")
		}
		codeLen, maxCode := int(e.codeLen), e.maxCode
		if !e.term {
			for codeLen <= 32 && code < h.minCode[codeLen] {
				codeLen++
			}
			if codeLen > 32 {
				return dst, errors.New("a HUFF code is longer than 32 bits")
			}
			maxCode = h.maxCode[codeLen]
		}
		n -= codeLen
		bitsLeft -= codeLen
		if bitsLeft < 0 {
			return dst, nil
		}
		if maxCode < code {
			return dst, errors.New("a HUFF code is out of range")
		}
		r := (maxCode - code) >> uint(32-codeLen)
		if r >= uint64(len(h.phrases)) {
			return dst, fmt.Errorf("a HUFF code names phrase %d of %d", r, len(h.phrases))
		}
		p := &h.phrases[r]
		if !p.final {
			if p.busy {
				return dst, errors.New("a CDIC phrase contains itself")
			}
			p.busy = true
			// The phrase's own bytes, decompressed once and kept.
			out, err := h.unpackDepth(nil, p.data, limit-len(dst), depth+1)
			p.busy = false
			if err != nil {
				return dst, err
			}
			p.data, p.final = out, true
		}
		if len(dst)+len(p.data) > limit {
			return dst, errOverflow
		}
		dst = append(dst, p.data...)
	}
}
