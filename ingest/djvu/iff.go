package djvu

import (
	"encoding/binary"
	"fmt"
)

// chunk is one IFF chunk: its id and its data. A FORM's data starts with
// its secondary id ("DJVU", "DJVM", "DJVI", "THUM").
type chunk struct {
	id   string
	data []byte
	// offset is where the chunk's header starts, from the file's start.
	offset int
}

// form returns the secondary id of a FORM chunk and its children, or
// false when c is not a FORM.
func (c chunk) form() (string, []byte, bool) {
	if c.id != "FORM" || len(c.data) < 4 {
		return "", nil, false
	}
	return string(c.data[:4]), c.data[4:], true
}

// chunks splits data, which starts at offset base in the file, into its
// chunks. A chunk whose length runs past the data is cut at the data's end
// (djvulibre reads such files too); at most max chunks are read.
func chunks(data []byte, base, max int) ([]chunk, error) {
	var out []chunk
	pos := 0
	for pos+8 <= len(data) {
		if len(out) == max {
			return nil, fmt.Errorf("more than %d chunks", max)
		}
		id := string(data[pos : pos+4])
		n := int(binary.BigEndian.Uint32(data[pos+4 : pos+8]))
		start := pos + 8
		end := start + n
		if n < 0 || end > len(data) || end < start {
			end = len(data)
		}
		out = append(out, chunk{id: id, data: data[start:end], offset: base + pos})
		pos = end + (end-start)&1
	}
	return out, nil
}
