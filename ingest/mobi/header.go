package mobi

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/meta"
)

// Compression schemes of the text records.
const (
	compressNone    = 1
	compressPalmDOC = 2
	compressHuff    = 17480
)

// Text encodings a MOBI header names.
const (
	encodingCP1252 = 1252
	encodingUTF8   = 65001
)

// unset is how MOBI headers say a record index is absent.
const unset = 0xFFFFFFFF

// header is what a book needs of record 0: the PalmDOC header, the MOBI
// header after it, and the EXTH metadata. Record indexes are absolute:
// the offset of a KF8 part inside a combined file is already added.
type header struct {
	compression int
	textLength  int
	textRecords int
	encryption  int
	encoding    int
	version     int
	// base is the index of this header's record 0; text records follow it.
	base int
	// extraFlags says which trailing entries the text records carry.
	extraFlags uint16
	// Indexes of records, or -1.
	huff       int
	huffCount  int
	ncx        int
	fdst       int
	skeleton   int
	fragment   int
	fullName   string
	localeLang int
	exth       exth
}

// exth is the metadata of the EXTH block.
type exth struct {
	title    string // 503, the updated title
	authors  []string
	language string
	// catalog holds the publisher (101), subjects (105), date (106) and
	// identifiers (104 ISBN, 112 source, 113 and 504 ASIN).
	catalog doc.Catalog
	// boundary is the record index of the KF8 part of a combined file, or
	// -1 (121).
	boundary int
}

// kf8 reports whether the header is KF8's (AZW3, or the second half of a
// combined file).
func (h *header) kf8() bool { return h.version >= 8 }

// readHeader reads the headers of the record at base.
func readHeader(db *palmDB, base int) (*header, error) {
	rec := db.record(base)
	if len(rec) < 16 {
		return nil, failf(ErrDamaged, "the header record %d is missing", base)
	}
	be := binary.BigEndian
	h := &header{
		compression: int(be.Uint16(rec[0:])),
		textLength:  int(be.Uint32(rec[4:])),
		textRecords: int(be.Uint16(rec[8:])),
		encryption:  int(be.Uint16(rec[12:])),
		encoding:    encodingCP1252,
		base:        base,
		huff:        -1, ncx: -1, fdst: -1, skeleton: -1, fragment: -1,
		exth: exth{boundary: -1},
	}
	if db.kind == "TEXtREAd" || len(rec) < 24 || string(rec[16:20]) != "MOBI" {
		// A plain PalmDOC book: the PalmDOC header is all there is.
		return h, nil
	}
	mobiLen := int(be.Uint32(rec[20:]))
	m := fields{rec: rec[:min(len(rec), 16+mobiLen)]}
	h.encoding = int(m.u32(28, encodingCP1252))
	h.version = int(m.u32(36, 0))
	if off, n := m.u32(84, 0), m.u32(88, 0); n > 0 && int(off) < len(rec) {
		h.fullName = decodeString(rec[off:min(len(rec), int(off)+int(n))], h.encoding)
	}
	h.localeLang = int(m.u32(92, 0) & 0xFF)
	h.huff = m.index(112, base)
	h.huffCount = int(m.u32(116, 0))
	if h.version >= 5 {
		// The flags live in the low half of the word at 0xF0, in headers
		// long enough to hold it.
		h.extraFlags = uint16(m.u32(0xF0, 0))
	}
	h.ncx = m.index(0xF4, base)
	if h.kf8() {
		h.fdst = m.index(0xC0, base)
		h.fragment = m.index(0xF8, base)
		h.skeleton = m.index(0xFC, base)
	}
	if m.u32(0x80, 0)&0x40 != 0 && 16+mobiLen < len(rec) {
		h.exth = readEXTH(rec[16+mobiLen:], h.encoding)
	}
	return h, nil
}

// fields reads the MOBI header's fields, each only where the header's own
// length says it has one.
type fields struct{ rec []byte }

// u32 returns the field at off, or def when the header is too short.
func (f fields) u32(off int, def uint32) uint32 {
	if off < 0 || off+4 > len(f.rec) {
		return def
	}
	return binary.BigEndian.Uint32(f.rec[off:])
}

// index returns the record index at off, made absolute by base, or -1.
func (f fields) index(off, base int) int {
	v := f.u32(off, unset)
	if v == unset || int64(v)+int64(base) > 1<<20 {
		return -1
	}
	return int(v) + base
}

// readEXTH reads the EXTH block; what does not fit is ignored.
func readEXTH(b []byte, encoding int) exth {
	out := exth{boundary: -1}
	if len(b) < 12 || string(b[:4]) != "EXTH" {
		return out
	}
	be := binary.BigEndian
	count := int(be.Uint32(b[8:]))
	b = b[12:]
	for i := 0; i < count && len(b) >= 8; i++ {
		typ, n := be.Uint32(b), int(be.Uint32(b[4:]))
		if n < 8 || n > len(b) {
			break
		}
		v := b[8:n]
		b = b[n:]
		switch typ {
		case 100:
			out.authors = append(out.authors, splitAuthors(decodeString(v, encoding))...)
		case 503:
			out.title = decodeString(v, encoding)
		case 101:
			if out.catalog.Publisher == "" {
				out.catalog.Publisher = decodeString(v, encoding)
			}
		case 105:
			// Older writers joined several subjects, as they did authors.
			for _, t := range strings.Split(decodeString(v, encoding), ";") {
				out.catalog.AddTag(t)
			}
		case 106:
			if out.catalog.Published == "" {
				out.catalog.Published = decodeString(v, encoding)
			}
		case 104:
			out.catalog.SetIdentifier(meta.Identifier("isbn", decodeString(v, encoding)))
		case 112:
			// A source that is an ISBN or an address; calibre writes its
			// own id here, which names no book.
			if scheme, id := meta.Identifier("", decodeString(v, encoding)); scheme != "uuid" {
				out.catalog.SetIdentifier(scheme, id)
			}
		case 113, 504:
			// calibre writes its own id here too, which is no ASIN.
			if id := decodeString(v, encoding); asin(id) {
				out.catalog.SetIdentifier("asin", id)
			}
		case 524:
			out.language = languageTag(decodeString(v, encoding))
		case 121:
			if len(v) == 4 {
				if r := be.Uint32(v); r != unset {
					out.boundary = int(r)
				}
			}
		}
	}
	return out
}

// asin reports an Amazon product number: ten letters and digits.
func asin(s string) bool {
	if len(s) != 10 {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// splitAuthors splits an author field that names several, as older
// writers did: "A & B", "A; B".
func splitAuthors(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '&' || r == ';' }) {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// decodeString decodes a metadata string in the book's encoding, dropping
// control characters.
func decodeString(b []byte, encoding int) string {
	var s string
	if encoding == encodingUTF8 {
		s = strings.ToValidUTF8(string(b), "")
	} else {
		s = decodeCP1252(b)
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// decodeCP1252 decodes Windows-1252, which every byte is valid in.
func decodeCP1252(b []byte) string {
	out, err := charmap.Windows1252.NewDecoder().Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(b), "")
	}
	return string(out)
}

// languageTag writes a language as BCP 47 spells it: "en-us" → "en-US".
func languageTag(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "_", "-"))
	lang, region, ok := strings.Cut(s, "-")
	if lang == "" || len(lang) > 8 {
		return ""
	}
	lang = strings.ToLower(lang)
	if ok && len(region) == 2 {
		return lang + "-" + strings.ToUpper(region)
	}
	if ok && region != "" {
		return lang + "-" + region
	}
	return lang
}

// language returns the book's language as a BCP 47 tag, or "".
func (h *header) language() string {
	if h.exth.language != "" {
		return h.exth.language
	}
	return doc.WindowsLanguage(h.localeLang)
}
