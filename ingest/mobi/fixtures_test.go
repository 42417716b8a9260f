package mobi

import (
	"bytes"
	"encoding/binary"
	"strconv"
)

// The builders here write small Kindle books the way kindlegen and calibre
// lay them out, so that the tests need no corpus: a Palm database, record
// 0 with its MOBI header and EXTH, compressed text records with trailing
// entries, INDX tables, and for KF8 the FDST, skeleton and fragment
// indexes.

// testBook describes a book to build.
type testBook struct {
	title, author, language string
	// html is a MOBI6 book's text; toc entries give their byte offsets.
	html string
	toc  []testTOC
	// files make a KF8 book: each one a skeleton and its fragments.
	files []testFile
	// compression is compressNone, compressPalmDOC (the default) or
	// compressHuff.
	compression int
	encryption  int
	encoding    int // encodingUTF8 by default
	// noTrailing leaves out the trailing entries of text records.
	noTrailing bool
	// records, when set, are the text records as they are written,
	// instead of html compressed.
	records [][]byte
	// cdic, when set, replaces the CDIC record of a HUFF book.
	cdic []byte
	// exth are more EXTH records, in order.
	exth []exthRecord
}

type exthRecord struct {
	typ uint32
	v   string
}

// testTOC is an NCX entry: in MOBI6 at byte pos of html; in KF8 at offset
// off of fragment fid.
type testTOC struct {
	title    string
	level    int
	pos      int
	fid, off int
}

// testFile is a KF8 file: head and tail make its skeleton, and the
// fragments go between them.
type testFile struct {
	head, tail string
	frags      []string
}

// bytes builds the book as a file.
func (b testBook) bytes() []byte {
	var db palmWriter
	b.part(&db)
	return db.bytes("TEST_BOOK")
}

// combined builds a MOBI6 book and a KF8 book in one file, as kindlegen
// does: the MOBI6 part, a BOUNDARY record, the KF8 part.
func combined(mobi6, kf8 testBook) []byte {
	var db palmWriter
	first, h := mobi6.part(&db)
	db.add([]byte("BOUNDARY"))
	boundary, _ := kf8.part(&db)
	// EXTH 121 in the first header names the KF8 part's record 0.
	db.records[first] = mobi6.record0(h, boundary)
	return db.bytes("TEST_BOOK")
}

// part adds the records of one part (record 0, text, indexes) and returns
// the index of its record 0 and the header fields it wrote there.
func (b testBook) part(db *palmWriter) (int, map[int]uint32) {
	base := db.add(nil)
	text, offsets := b.text()
	compression := b.compression
	if compression == 0 {
		compression = compressPalmDOC
	}
	h := map[int]uint32{}
	var huff *huffTables
	if compression == compressHuff {
		huff = newHuffTables()
	}
	records := 0
	for _, rec := range b.records {
		db.add(rec)
		records++
	}
	for at := 0; at < len(text) && b.records == nil; at += 4096 {
		chunk := text[at:min(at+4096, len(text))]
		var rec []byte
		switch compression {
		case compressPalmDOC:
			rec = palmdocCompress(chunk)
		case compressHuff:
			rec = huff.encode(chunk)
		default:
			rec = append([]byte(nil), chunk...)
		}
		if !b.noTrailing {
			// A multibyte entry of two bytes, then an indexing entry of
			// three, sized at its end.
			rec = append(rec, 0xE2, 0x80, 0x02, 0xAA, 0xBB, 0x83)
		}
		db.add(rec)
		records++
	}
	h[0] = uint32(compression)
	h[4] = uint32(len(text))
	h[8] = uint32(records)
	h[112], h[116] = unset, 0
	if huff != nil {
		h[112] = uint32(db.add(huff.huff()) - base)
		if b.cdic != nil {
			db.add(b.cdic)
		} else {
			db.add(huff.cdic())
		}
		h[116] = 2
	}
	h[0xF4], h[0xF8], h[0xFC], h[0xC0] = unset, unset, unset, unset
	if b.files != nil {
		h[0xC0] = uint32(db.add(fdst(len(text))) - base)
		skel, frag := b.kf8Indexes(offsets)
		h[0xFC] = uint32(db.addAll(skel) - base)
		h[0xF8] = uint32(db.addAll(frag) - base)
	}
	if len(b.toc) > 0 {
		h[0xF4] = uint32(db.addAll(b.ncx(offsets)) - base)
	}
	h[0x50] = uint32(len(db.records) - base)
	db.records[base] = b.record0(h, -1)
	return base, h
}

// text returns the part's text, and for KF8 where each file and fragment
// starts in it.
func (b testBook) text() ([]byte, kf8Offsets) {
	if b.files == nil {
		return []byte(b.html), kf8Offsets{}
	}
	var t bytes.Buffer
	var o kf8Offsets
	for _, f := range b.files {
		skelPos := t.Len()
		t.WriteString(f.head + f.tail)
		o.skels = append(o.skels, [2]int{skelPos, len(f.head) + len(f.tail)})
		insert := skelPos + len(f.head)
		for _, fr := range f.frags {
			t.WriteString(fr)
			o.frags = append(o.frags, [2]int{insert, len(fr)})
			insert += len(fr)
		}
	}
	return t.Bytes(), o
}

// kf8Offsets are the skeletons' (position, length) in the text and the
// fragments' (insert position, length).
type kf8Offsets struct {
	skels, frags [][2]int
}

func (b testBook) kf8Indexes(o kf8Offsets) (skel, frag [][]byte) {
	var skels, frags []indexRecordEntry
	fi := 0
	for i, f := range b.files {
		skels = append(skels, indexRecordEntry{
			label: "SKEL" + strconv.Itoa(10000000000 + i)[1:],
			tags:  map[uint8][]uint32{1: {uint32(len(f.frags))}, 6: {uint32(o.skels[i][0]), uint32(o.skels[i][1])}},
		})
		for k := range f.frags {
			fr := o.frags[fi]
			frags = append(frags, indexRecordEntry{
				label: strconv.Itoa(fr[0]),
				tags:  map[uint8][]uint32{2: {0}, 3: {uint32(i)}, 4: {uint32(k)}, 6: {0, uint32(fr[1])}},
			})
			fi++
		}
	}
	skel = indexRecords([]tagSpec{{tag: 1, perEntry: 1, mask: 1}, {tag: 6, perEntry: 2, mask: 2}}, skels, 0, nil)
	frag = indexRecords([]tagSpec{{tag: 2, perEntry: 1, mask: 1}, {tag: 3, perEntry: 1, mask: 2},
		{tag: 4, perEntry: 1, mask: 4}, {tag: 6, perEntry: 2, mask: 8}}, frags, 2, []string{"P-//*[@aid='0']"})
	return skel, frag
}

// ncx writes the NCX index: titles in a CNCX record, positions as filepos
// (MOBI6) or fragment and offset (KF8).
func (b testBook) ncx(o kf8Offsets) [][]byte {
	var entries []indexRecordEntry
	var labels []string
	for i, e := range b.toc {
		labels = append(labels, e.title)
		tags := map[uint8][]uint32{3: {uint32(i)}, 4: {uint32(e.level)}}
		if b.files != nil {
			tags[6] = []uint32{uint32(e.fid), uint32(e.off)}
		} else {
			tags[1] = []uint32{uint32(e.pos)}
		}
		entries = append(entries, indexRecordEntry{label: strconv.Itoa(i), tags: tags})
	}
	specs := []tagSpec{{tag: 1, perEntry: 1, mask: 1}, {tag: 3, perEntry: 1, mask: 2},
		{tag: 4, perEntry: 1, mask: 4}, {tag: 6, perEntry: 2, mask: 8}}
	return indexRecords(specs, entries, ncxLabel, labels)
}

// record0 writes the PalmDOC header, the MOBI header and the EXTH block;
// boundary >= 0 adds EXTH 121.
func (b testBook) record0(header map[int]uint32, boundary int) []byte {
	const mobiLen = 264
	r := make([]byte, 16+mobiLen)
	be := binary.BigEndian
	put := func(off int, v uint32) { be.PutUint32(r[off:], v) }
	be.PutUint16(r[0:], uint16(header[0]))
	put(4, header[4])
	be.PutUint16(r[8:], uint16(header[8]))
	be.PutUint16(r[10:], 4096)
	be.PutUint16(r[12:], uint16(b.encryption))
	copy(r[16:], "MOBI")
	put(20, mobiLen)
	put(24, 2)
	enc := b.encoding
	if enc == 0 {
		enc = encodingUTF8
	}
	put(28, uint32(enc))
	version := uint32(6)
	if b.files != nil {
		version = 8
	}
	put(36, version)
	put(0x50, header[0x50])
	put(92, 9) // English
	put(112, header[112])
	put(116, header[116])
	put(0x80, 0x40)
	put(0xC0, header[0xC0])
	flags := uint32(3)
	if b.noTrailing {
		flags = 0
	}
	put(0xF0, flags)
	put(0xF4, header[0xF4])
	put(0xF8, header[0xF8])
	put(0xFC, header[0xFC])
	var exth bytes.Buffer
	add := func(typ uint32, v []byte) {
		binary.Write(&exth, be, typ)
		binary.Write(&exth, be, uint32(8+len(v)))
		exth.Write(v)
	}
	count := 0
	for _, a := range []struct {
		typ uint32
		v   string
	}{{100, b.author}, {503, b.title}, {524, b.language}} {
		if a.v != "" {
			add(a.typ, []byte(a.v))
			count++
		}
	}
	for _, r := range b.exth {
		add(r.typ, []byte(r.v))
		count++
	}
	if boundary >= 0 {
		v := make([]byte, 4)
		be.PutUint32(v, uint32(boundary))
		add(121, v)
		count++
	}
	e := []byte("EXTH")
	e = be.AppendUint32(e, uint32(12+exth.Len()))
	e = be.AppendUint32(e, uint32(count))
	e = append(e, exth.Bytes()...)
	r = append(r, e...)
	put(84, uint32(len(r)))
	put(88, uint32(len("Full Name")))
	r = append(r, "Full Name\x00\x00"...)
	return r
}

// palmWriter collects records and writes the Palm database.
type palmWriter struct {
	records [][]byte
}

func (p *palmWriter) add(rec []byte) int {
	p.records = append(p.records, rec)
	return len(p.records) - 1
}

func (p *palmWriter) addAll(recs [][]byte) int {
	first := len(p.records)
	p.records = append(p.records, recs...)
	return first
}

func (p *palmWriter) bytes(name string) []byte {
	be := binary.BigEndian
	out := make([]byte, 78+8*len(p.records)+2)
	copy(out, name)
	copy(out[60:], "BOOKMOBI")
	be.PutUint16(out[76:], uint16(len(p.records)))
	off := len(out)
	for i, r := range p.records {
		be.PutUint32(out[78+8*i:], uint32(off))
		be.PutUint32(out[78+8*i+4:], uint32(2*i))
		off += len(r)
	}
	for _, r := range p.records {
		out = append(out, r...)
	}
	return out
}

// indexRecordEntry is an entry to write into an INDX table.
type indexRecordEntry struct {
	label string
	tags  map[uint8][]uint32
}

// indexRecords writes an INDX table: the main record with its TAGX, one
// entry record, and a CNCX record of strings when there are any. Each
// tag has a one-bit mask in a single control byte.
func indexRecords(specs []tagSpec, entries []indexRecordEntry, strTag uint8, strs []string) [][]byte {
	be := binary.BigEndian
	const hdrLen = 192
	header := func(start, count, cncx int) []byte {
		h := make([]byte, hdrLen)
		copy(h, "INDX")
		be.PutUint32(h[4:], hdrLen)
		be.PutUint32(h[20:], uint32(start))
		be.PutUint32(h[24:], uint32(count))
		be.PutUint32(h[28:], encodingUTF8)
		be.PutUint32(h[52:], uint32(cncx))
		return h
	}
	// The strings, packed; an entry's tag strTag holds a string's index,
	// written as its offset.
	var cncx []byte
	var strOffsets []uint32
	for _, str := range strs {
		strOffsets = append(strOffsets, uint32(len(cncx)))
		cncx = appendVarint(cncx, uint32(len(str)))
		cncx = append(cncx, str...)
	}
	ncncx := 0
	if cncx != nil {
		ncncx = 1
	}
	main := header(0, 1, ncncx)
	main = append(main, "TAGX"...)
	main = be.AppendUint32(main, uint32(12+4*(len(specs)+1)))
	main = be.AppendUint32(main, 1)
	for _, s := range specs {
		main = append(main, s.tag, s.perEntry, s.mask, 0)
	}
	main = append(main, 0, 0, 0, 1)

	var body []byte
	var offsets []int
	for _, e := range entries {
		offsets = append(offsets, hdrLen+len(body))
		body = append(body, byte(len(e.label)))
		body = append(body, e.label...)
		var control byte
		var vals []byte
		for _, s := range specs {
			v, ok := e.tags[s.tag]
			if !ok {
				continue
			}
			if s.tag == strTag && strs != nil {
				v = []uint32{strOffsets[v[0]]}
			}
			control |= s.mask
			for _, x := range v {
				vals = appendVarint(vals, x)
			}
		}
		body = append(body, control)
		body = append(body, vals...)
	}
	rec := header(hdrLen+len(body), len(entries), 0)
	rec = append(rec, body...)
	rec = append(rec, "IDXT"...)
	for _, o := range offsets {
		rec = be.AppendUint16(rec, uint16(o))
	}
	out := [][]byte{main, rec}
	if cncx != nil {
		out = append(out, cncx)
	}
	return out
}

// appendVarint writes v seven bits a byte, high bit on the last.
func appendVarint(b []byte, v uint32) []byte {
	var groups []byte
	for {
		groups = append([]byte{byte(v & 0x7F)}, groups...)
		v >>= 7
		if v == 0 {
			break
		}
	}
	groups[len(groups)-1] |= 0x80
	return append(b, groups...)
}

// fdst writes an FDST record of one flow.
func fdst(n int) []byte {
	be := binary.BigEndian
	r := []byte("FDST")
	r = be.AppendUint32(r, 12)
	r = be.AppendUint32(r, 1)
	r = be.AppendUint32(r, 0)
	return be.AppendUint32(r, uint32(n))
}

// palmdocCompress compresses one record with PalmDOC's LZ77: back
// references of 3 to 10 bytes up to 2047 bytes back, space-and-letter
// pairs, literals, and runs of bytes that need escaping.
func palmdocCompress(src []byte) []byte {
	var out []byte
	for i := 0; i < len(src); {
		// The longest earlier match.
		bestLen, bestDist := 0, 0
		for d := 1; d <= min(i, 2047); d++ {
			n := 0
			for n < 10 && i+n < len(src) && src[i+n] == src[i-d+n] {
				n++
			}
			if n > bestLen {
				bestLen, bestDist = n, d
			}
		}
		switch c := src[i]; {
		case bestLen >= 3:
			pair := 0x8000 | bestDist<<3 | (bestLen - 3)
			out = append(out, byte(pair>>8), byte(pair))
			i += bestLen
		case c == ' ' && i+1 < len(src) && src[i+1] >= 0x40 && src[i+1] < 0x80:
			out = append(out, src[i+1]^0x80)
			i += 2
		case c == 0 || (c >= 9 && c < 0x80):
			out = append(out, c)
			i++
		default:
			n := 1
			for n < 8 && i+n < len(src) && (src[i+n] >= 0x80 || (src[i+n] >= 1 && src[i+n] <= 8)) {
				n++
			}
			out = append(out, byte(n))
			out = append(out, src[i:i+n]...)
			i += n
		}
	}
	return out
}

// huffTables is a HUFF/CDIC code of the simplest kind: every code is eight
// bits, and byte b is phrase 255-b, the byte itself; byte 0x01 is a
// compressed phrase, the code of "Hello ", to reach the nested case.
type huffTables struct{}

func newHuffTables() *huffTables { return &huffTables{} }

const huffHello = 0x01

func (*huffTables) encode(src []byte) []byte {
	var out []byte
	for i := 0; i < len(src); i++ {
		if bytes.HasPrefix(src[i:], []byte("Hello ")) {
			out = append(out, huffHello)
			i += len("Hello ") - 1
			continue
		}
		if src[i] == huffHello {
			continue // the test texts never hold it
		}
		out = append(out, src[i])
	}
	return out
}

func (*huffTables) huff() []byte {
	be := binary.BigEndian
	r := []byte("HUFF\x00\x00\x00\x18")
	r = be.AppendUint32(r, 24)
	r = be.AppendUint32(r, 24+256*4)
	r = append(r, make([]byte, 8)...)
	for range 256 {
		// Code length 8, final, largest code 255.
		r = be.AppendUint32(r, 255<<8|0x80|8)
	}
	return append(r, make([]byte, 64*4)...)
}

func (*huffTables) cdic() []byte {
	return cdicWith(map[byte][]byte{huffHello: []byte("Hello ")})
}

// cdicWith writes the CDIC record of the eight-bit code: byte b is the
// literal b, unless compressed names the (still coded) bytes of its phrase.
func cdicWith(compressed map[byte][]byte) []byte {
	be := binary.BigEndian
	r := []byte("CDIC\x00\x00\x00\x10")
	r = be.AppendUint32(r, 256)
	r = be.AppendUint32(r, 8)
	var data []byte
	offsets := make([]int, 256)
	for i := range 256 {
		b := byte(255 - i)
		offsets[i] = 2*256 + len(data)
		if code, ok := compressed[b]; ok {
			// Not final: the phrase's bytes are codes themselves.
			data = be.AppendUint16(data, uint16(len(code)))
			data = append(data, code...)
			continue
		}
		data = be.AppendUint16(data, 0x8000|1)
		data = append(data, b)
	}
	for _, o := range offsets {
		r = be.AppendUint16(r, uint16(o))
	}
	return append(r, data...)
}
