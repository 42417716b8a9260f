package djvu

import (
	"fmt"
	"strconv"
	"strings"
)

// maxBookmarkDepth bounds the nesting of the outline.
const maxBookmarkDepth = 32

// bookmark is one entry of the document's outline (the NAVM chunk).
type bookmark struct {
	title    string
	url      string
	children []bookmark
}

// bookmarks reads a decoded NAVM chunk: a count, then the entries, each
// with its number of children, its title and its link.
func bookmarks(data []byte) ([]bookmark, error) {
	if len(data) < 2 {
		return nil, fmt.Errorf("outline of %d bytes", len(data))
	}
	r := navReader{data: data, pos: 2, left: int(data[0])<<8 | int(data[1])}
	var out []bookmark
	for r.left > 0 && r.pos < len(data) {
		b, err := r.read(0)
		if err != nil {
			return out, err
		}
		out = append(out, b)
	}
	return out, nil
}

type navReader struct {
	data []byte
	pos  int
	left int // entries the count says are still to come
}

func (r *navReader) int24() (int, bool) {
	if r.pos+3 > len(r.data) {
		return 0, false
	}
	d := r.data[r.pos:]
	r.pos += 3
	return int(d[0])<<16 | int(d[1])<<8 | int(d[2]), true
}

func (r *navReader) str() (string, bool) {
	n, ok := r.int24()
	if !ok || n > len(r.data)-r.pos {
		return "", false
	}
	s := string(r.data[r.pos : r.pos+n])
	r.pos += n
	return s, true
}

func (r *navReader) read(depth int) (bookmark, error) {
	if depth > maxBookmarkDepth {
		return bookmark{}, fmt.Errorf("outline nested deeper than %d", maxBookmarkDepth)
	}
	if r.left--; r.left < 0 || r.pos >= len(r.data) {
		return bookmark{}, fmt.Errorf("outline shorter than its count")
	}
	children := int(r.data[r.pos])
	r.pos++
	var b bookmark
	var ok1, ok2 bool
	b.title, ok1 = r.str()
	b.url, ok2 = r.str()
	if !ok1 || !ok2 {
		return bookmark{}, fmt.Errorf("outline entry past the chunk's end")
	}
	b.title = clean([]byte(b.title))
	for range children {
		c, err := r.read(depth + 1)
		if err != nil {
			return b, err
		}
		b.children = append(b.children, c)
	}
	return b, nil
}

// target returns the 1-based page a bookmark's link names, or 0: "#12" is
// page 12, "#p0012.djvu" the page whose component has that id, name or
// title.
func target(url string, pageOf map[string]int, pages int) int {
	ref, ok := strings.CutPrefix(url, "#")
	if !ok {
		// A link to a component by its file name, as older tools wrote.
		ref = url
	}
	if p, ok := pageOf[ref]; ok {
		return p
	}
	if n, err := strconv.Atoi(ref); err == nil && n >= 1 && n <= pages {
		return n
	}
	return 0
}
