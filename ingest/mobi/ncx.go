package mobi

import "sort"

// tocEntry is an entry of the book's table of contents: its title, its
// depth (0 for the top), and where it starts in the HTML being converted.
type tocEntry struct {
	title string
	level int
	at    int
}

// Tags of NCX index entries.
const (
	ncxPos    = 1 // position in the MOBI6 text (filepos)
	ncxLabel  = 3 // offset of the title in the CNCX records
	ncxLevel  = 4 // depth, 0 at the top
	ncxPosFid = 6 // KF8 position: fragment and offset
)

// readNCX reads the NCX index at first and places each entry with locate,
// which turns an entry's position tags into an offset in the HTML; entries
// it cannot place are dropped. The entries come back in reading order.
func readNCX(db *palmDB, first int, encoding, max int, locate func(indexEntry) (int, bool)) []tocEntry {
	if first < 0 {
		return nil
	}
	ix, err := readIndex(db, first, max)
	if err != nil {
		return nil // a book without a usable TOC is cut at its headings
	}
	var out []tocEntry
	for _, e := range ix.entries {
		at, ok := locate(e)
		if !ok {
			continue
		}
		var title string
		if off, ok := e.first(ncxLabel); ok {
			title = decodeString(ix.cncx[off], encoding)
		}
		level, _ := e.first(ncxLevel)
		out = append(out, tocEntry{title: title, level: min(level, 16), at: at})
	}
	// The index lists entries level by level; reading order is by place.
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}
