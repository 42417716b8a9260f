package mobi

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// indexEntry is one entry of an INDX table: its label and its tags' values.
type indexEntry struct {
	label []byte
	tags  map[uint8][]uint32
}

// first returns the tag's first value, and whether it has one.
func (e indexEntry) first(tag uint8) (int, bool) {
	if v := e.tags[tag]; len(v) > 0 {
		return int(v[0]), true
	}
	return 0, false
}

// index is an INDX table: its entries, and the strings of its CNCX
// records that entries point to by offset.
type index struct {
	entries []indexEntry
	cncx    map[int][]byte
}

// tagSpec is one row of a TAGX table: a tag, how many values each of its
// occurrences has, and where its count sits in the control bytes.
type tagSpec struct {
	tag, perEntry, mask uint8
	// end marks the end of one control byte's tags.
	end bool
}

// readIndex reads the INDX table whose main record is at first: the main
// record holds the TAGX table and says how many entry records follow it,
// and the CNCX string records come after those. At most max entries are
// read.
func readIndex(db *palmDB, first, max int) (*index, error) {
	main := db.record(first)
	hdr, ok := indxHeader(main)
	if !ok {
		return nil, errors.New("the index record has no INDX header")
	}
	specs, controlBytes, ok := readTAGX(main, hdr.length)
	if !ok {
		return nil, errors.New("the index has no TAGX table")
	}
	ix := &index{cncx: make(map[int][]byte)}
	for j := range min(hdr.cncx, 64) {
		readCNCX(db.record(first+hdr.count+1+j), j<<16, ix.cncx)
	}
	for r := first + 1; r <= first+min(hdr.count, 4096); r++ {
		data := db.record(r)
		h, ok := indxHeader(data)
		if !ok || h.start+4 > len(data) || string(data[h.start:h.start+4]) != "IDXT" {
			return nil, errors.New("an index record has no IDXT table")
		}
		n := min(h.count, (len(data)-h.start-4)/2)
		for k := range n {
			if len(ix.entries) >= max {
				return ix, nil
			}
			from := int(binary.BigEndian.Uint16(data[h.start+4+2*k:]))
			to := h.start
			if k+1 < n {
				to = int(binary.BigEndian.Uint16(data[h.start+4+2*(k+1):]))
			}
			if from >= to || to > len(data) {
				continue
			}
			e, ok := readEntry(data[from:to], specs, controlBytes)
			if ok {
				ix.entries = append(ix.entries, e)
			}
		}
	}
	return ix, nil
}

// indxInfo is what is read of an INDX record's header.
type indxInfo struct {
	length int // of the header, where the TAGX table starts
	start  int // of the IDXT table
	count  int // entries in an entry record; entry records after a main one
	cncx   int // CNCX records, in a main record
}

func indxHeader(rec []byte) (indxInfo, bool) {
	if len(rec) < 56 || string(rec[:4]) != "INDX" {
		return indxInfo{}, false
	}
	be := binary.BigEndian
	return indxInfo{
		length: int(min(be.Uint32(rec[4:]), 1<<20)),
		start:  int(min(be.Uint32(rec[20:]), 1<<20)),
		count:  int(min(be.Uint32(rec[24:]), 1<<20)),
		cncx:   int(min(be.Uint32(rec[52:]), 1<<20)),
	}, true
}

// readTAGX reads the TAGX table at off.
func readTAGX(rec []byte, off int) ([]tagSpec, int, bool) {
	if off < 0 || off+12 > len(rec) || string(rec[off:off+4]) != "TAGX" {
		return nil, 0, false
	}
	be := binary.BigEndian
	size := int(min(be.Uint32(rec[off+4:]), 1<<16))
	controlBytes := int(min(be.Uint32(rec[off+8:]), 16))
	var specs []tagSpec
	for i := off + 12; i+4 <= off+size && i+4 <= len(rec); i += 4 {
		specs = append(specs, tagSpec{tag: rec[i], perEntry: rec[i+1], mask: rec[i+2], end: rec[i+3]&1 != 0})
	}
	return specs, controlBytes, true
}

// readEntry reads one entry: its label (a length byte and the bytes), its
// control bytes, which say how many values each tag has, and the values,
// variable-width integers.
func readEntry(b []byte, specs []tagSpec, controlBytes int) (indexEntry, bool) {
	n := int(b[0])
	if 1+n+controlBytes > len(b) {
		return indexEntry{}, false
	}
	e := indexEntry{label: b[1 : 1+n], tags: make(map[uint8][]uint32)}
	control := b[1+n : 1+n+controlBytes]
	data := b[1+n+controlBytes:]
	type occurrence struct {
		tag      uint8
		count    int // of values, times perEntry; -1 when byteLen says
		byteLen  int
		perEntry int
	}
	var occ []occurrence
	ci := 0
	for _, s := range specs {
		if s.end {
			ci++
			continue
		}
		if ci >= len(control) || s.mask == 0 {
			break
		}
		v := control[ci] & s.mask
		if v == 0 {
			continue
		}
		if v == s.mask && bits.OnesCount8(s.mask) > 1 {
			// All bits set: the number of bytes the values take follows.
			l, used := varint(data)
			if used == 0 {
				return e, true
			}
			data = data[used:]
			occ = append(occ, occurrence{tag: s.tag, count: -1, byteLen: int(l)})
			continue
		}
		for m := s.mask; m&1 == 0; m >>= 1 {
			v >>= 1
		}
		occ = append(occ, occurrence{tag: s.tag, count: int(v), perEntry: int(s.perEntry)})
	}
	for _, o := range occ {
		var vals []uint32
		if o.count >= 0 {
			for range o.count * o.perEntry {
				v, used := varint(data)
				if used == 0 {
					break
				}
				data = data[used:]
				vals = append(vals, v)
			}
		} else {
			for consumed := 0; consumed < o.byteLen; {
				v, used := varint(data)
				if used == 0 {
					break
				}
				data = data[used:]
				consumed += used
				vals = append(vals, v)
			}
		}
		e.tags[o.tag] = vals
	}
	return e, true
}

// varint reads a forward-encoded variable-width integer: seven bits a
// byte, high bit set on the last. It returns the bytes used, 0 when b ends
// first.
func varint(b []byte) (uint32, int) {
	var v uint32
	for i, c := range b {
		if i == 5 {
			return v, i // more than 32 bits: stop, as readers do
		}
		v = v<<7 | uint32(c&0x7F)
		if c&0x80 != 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// readCNCX reads the strings of a CNCX record into out, keyed by their
// offset plus base.
func readCNCX(rec []byte, base int, out map[int][]byte) {
	for off := 0; off < len(rec) && rec[off] != 0; {
		l, used := varint(rec[off:])
		if used == 0 {
			return
		}
		start := off + used
		end := start + int(l)
		if end > len(rec) || end < start {
			return
		}
		out[base+off] = rec[start:end]
		off = end
	}
}
