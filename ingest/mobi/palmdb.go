package mobi

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// palmDB is a Palm database: a named list of records, which is how MOBI
// files are stored.
type palmDB struct {
	// name is the database name, a short form of the title.
	name string
	// kind is the type and creator: "BOOKMOBI", or "TEXtREAd" for a plain
	// PalmDOC book.
	kind    string
	records [][]byte
	// cut marks records whose declared end lies past the end of the
	// file: a truncated download.
	cut []bool
}

const pdbHeaderLen = 78

// readPalmDB reads the database header and the record list. A record that
// lies past the end of the file (a truncated download) or overlaps the
// header is nil, so that a book whose text survived still reads and one
// whose text did not says so; a record list that does not fit the file is
// an error.
func readPalmDB(data []byte, lim limits) (*palmDB, error) {
	if kind := otherKind(data); kind != "" {
		return nil, failf(ErrNotMOBI, "%s", kind)
	}
	if len(data) < pdbHeaderLen {
		return nil, failf(ErrNotMOBI, "%d bytes, too short for a Palm database header", len(data))
	}
	kind := string(data[60:68])
	if kind != "BOOKMOBI" && kind != "TEXtREAd" {
		return nil, failf(ErrNotMOBI, "no BOOKMOBI signature (%s)", describe(data))
	}
	n := int(binary.BigEndian.Uint16(data[76:78]))
	if n == 0 {
		return nil, failf(ErrDamaged, "the Palm database has no records")
	}
	if n > lim.maxRecords {
		return nil, failf(ErrDamaged, "the Palm database declares %d records", n)
	}
	end := pdbHeaderLen + 8*n
	if end > len(data) {
		return nil, failf(ErrDamaged, "the record list of %d records runs past the end of the file", n)
	}
	offsets := make([]int, n+1)
	for i := range n {
		offsets[i] = int(binary.BigEndian.Uint32(data[pdbHeaderLen+8*i:]))
	}
	offsets[n] = len(data)
	db := &palmDB{name: palmName(data[:32]), kind: kind, records: make([][]byte, n), cut: make([]bool, n)}
	for i := range n {
		db.cut[i] = offsets[i+1] > len(data)
		start, stop := min(offsets[i], len(data)), min(offsets[i+1], len(data))
		if start < end || stop < start {
			// An offset into the header or a record list out of order:
			// the record is unusable, but the others may not be.
			continue
		}
		db.records[i] = data[start:stop:stop]
	}
	if len(db.records[0]) < 16 {
		return nil, failf(ErrDamaged, "record 0, the book header, is missing or shorter than 16 bytes")
	}
	return db, nil
}

// record returns record i, or nil when there is no such record.
func (db *palmDB) record(i int) []byte {
	if i < 0 || i >= len(db.records) {
		return nil
	}
	return db.records[i]
}

// whole reports whether record i is there in full.
func (db *palmDB) whole(i int) bool {
	return db.record(i) != nil && !db.cut[i]
}

// palmName reads the NUL-terminated database name, which writers fill with
// the title's first letters and underscores for spaces.
func palmName(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	var sb strings.Builder
	for _, c := range b {
		switch {
		case c == '_':
			sb.WriteByte(' ')
		case c >= 0x20 && c < 0x7f:
			sb.WriteByte(c)
		}
	}
	return strings.TrimSpace(sb.String())
}

// otherKind names the Kindle formats that are not Palm databases, so that
// their failure says what they are.
func otherKind(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("TPZ")):
		return "a Topaz book (a scanned-page Kindle format), which grimoire does not read"
	case bytes.HasPrefix(data, []byte("\xeaDRMION\xee")):
		return "a DRM-protected KFX book, which grimoire does not read"
	case bytes.HasPrefix(data, []byte("CONT\x02\x00")):
		return "a KFX book, which grimoire does not read; convert it to EPUB or AZW3"
	}
	return ""
}

// describe says what data looks like, for a file that is not what its name
// says.
func describe(data []byte) string {
	switch {
	case len(data) == 0:
		return "the file is empty"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return "it is a zip archive"
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return "it is a PDF"
	case bytes.HasPrefix(data, []byte("{\\rtf")):
		return "it is an RTF document"
	}
	head := data[:min(len(data), 512)]
	if bytes.IndexByte(head, 0) < 0 {
		return "it looks like text"
	}
	return "unknown content"
}
