package djvu

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Zone types of the hidden text (DjVu v3 specification, 8.3.5).
const (
	zonePage = 1 + iota
	zoneColumn
	zoneRegion
	zoneParagraph
	zoneLine
	zoneWord
	zoneChar
)

const (
	// maxZones bounds the zones of one page; a dense page has tens of
	// thousands of words.
	maxZones = 1 << 20
	// maxZoneDepth bounds the nesting of zones: seven types, each inside
	// the one before.
	maxZoneDepth = 16
)

// line is one line of a page's hidden text, with the paragraph it belongs
// to (numbered within the page).
type line struct {
	text      string
	paragraph int
}

// zone is a hidden-text zone's type and the bytes of the page's text it
// covers.
type zone struct {
	typ        int
	start, end int
	children   []zone
}

// pageText reads a decoded TXTa/TXTz chunk into lines grouped by
// paragraph: the lines and paragraphs its zones mark, else the
// separators in its text.
func pageText(data []byte) ([]line, error) {
	if len(data) < 3 {
		return nil, nil
	}
	n := int(data[0])<<16 | int(data[1])<<8 | int(data[2])
	if 3+n > len(data) {
		return nil, fmt.Errorf("text of %d bytes in a chunk of %d", n, len(data))
	}
	text := data[3 : 3+n]
	rest := data[3+n:]
	var root []zone
	if len(rest) > 1 { // the version byte, then the zones
		r := zoneReader{data: rest[1:], textLen: n}
		z, err := r.read(0, nil, nil)
		if err == nil {
			root = []zone{z}
		}
	}
	var lines []line
	if root != nil {
		para := -1
		var walk func(z zone, inPara bool)
		walk = func(z zone, inPara bool) {
			switch {
			case z.typ == zoneParagraph || (!inPara && z.typ < zoneParagraph && hasChild(z, zoneLine)):
				para++
				inPara = z.typ == zoneParagraph
			}
			if z.typ == zoneLine {
				if t := clean(text[z.start:z.end]); t != "" {
					lines = append(lines, line{text: t, paragraph: max(para, 0)})
				}
				return
			}
			for _, c := range z.children {
				walk(c, inPara)
			}
		}
		walk(root[0], false)
	}
	if len(lines) == 0 {
		lines = separatedLines(text)
	}
	return lines, nil
}

func hasChild(z zone, typ int) bool {
	for _, c := range z.children {
		if c.typ == typ {
			return true
		}
	}
	return false
}

// separatedLines splits a page's text at the separators djvulibre writes
// between zones: line feed for lines, unit separator for paragraphs, group
// separator for regions, vertical tab for columns.
func separatedLines(text []byte) []line {
	var lines []line
	para := 0
	startPara := false
	var cur []byte
	flush := func() {
		if t := clean(cur); t != "" {
			lines = append(lines, line{text: t, paragraph: para})
			startPara = false
		}
		cur = cur[:0]
	}
	for _, b := range text {
		switch b {
		case '\n', '\r':
			flush()
		case 0x1f, 0x1d, 0x0b, 0x0c:
			flush()
			if !startPara && len(lines) > 0 {
				para++
				startPara = true
			}
		default:
			cur = append(cur, b)
		}
	}
	flush()
	return lines
}

// clean turns a zone's bytes into text: valid UTF-8, separators and
// controls as spaces, runs of spaces as one.
func clean(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// zoneReader reads the tree of zones after a page's text.
type zoneReader struct {
	data    []byte
	pos     int
	count   int
	textLen int
}

func (r *zoneReader) read(depth int, parent, prev *zone) (zone, error) {
	if depth > maxZoneDepth {
		return zone{}, fmt.Errorf("zones nested deeper than %d", maxZoneDepth)
	}
	if r.count++; r.count > maxZones {
		return zone{}, fmt.Errorf("more than %d zones", maxZones)
	}
	if r.pos+17 > len(r.data) {
		return zone{}, fmt.Errorf("zone record past the chunk's end")
	}
	d := r.data[r.pos : r.pos+17]
	r.pos += 17
	z := zone{typ: int(d[0])}
	start := int(d[9])<<8 | int(d[10]) - 0x8000
	length := int(d[11])<<16 | int(d[12])<<8 | int(d[13])
	children := int(d[14])<<16 | int(d[15])<<8 | int(d[16])
	// A zone's text starts where its previous sibling's ends, or at its
	// parent's start, moved by the stored offset.
	switch {
	case prev != nil:
		start += prev.end
	case parent != nil:
		start += parent.start
	}
	z.start = min(max(start, 0), r.textLen)
	z.end = min(max(start+length, z.start), r.textLen)
	// Each child takes at least 17 bytes.
	if children > (len(r.data)-r.pos)/17 {
		return zone{}, fmt.Errorf("zone with %d children past the chunk's end", children)
	}
	var last *zone
	for range children {
		c, err := r.read(depth+1, &z, last)
		if err != nil {
			return zone{}, err
		}
		z.children = append(z.children, c)
		last = &z.children[len(z.children)-1]
	}
	return z, nil
}
