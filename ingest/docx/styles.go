package docx

import (
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/outline"
	"github.com/grimoire-search/grimoire/ingest/internal/safezip"
)

// maxBasedOn bounds a chain of styles based on one another; real chains
// are a few long, and a cycle must end.
const maxBasedOn = 16

// paraStyle is what a paragraph style says, after following basedOn.
type paraStyle struct {
	// level is the heading level (0 for Title, 1 to 9 for headings), -1
	// for body text.
	level int
	// kind is the block kind of its paragraphs: code, a quote, else a
	// paragraph.
	kind doc.BlockKind
	// numID and ilvl are the style's own list numbering, numID "" when
	// none.
	numID string
	ilvl  int
}

// styles are a document's paragraph styles, resolved.
type styles struct {
	byID map[string]paraStyle
	// def is the default paragraph style, for paragraphs that name none.
	def paraStyle
	// language is the default language of the document's text.
	language string
}

type xmlStyles struct {
	DocDefaults struct {
		Lang struct {
			Val string `xml:"val,attr"`
		} `xml:"rPrDefault>rPr>lang"`
	} `xml:"docDefaults"`
	Styles []struct {
		Type    string  `xml:"type,attr"`
		ID      string  `xml:"styleId,attr"`
		Default string  `xml:"default,attr"`
		Name    valAttr `xml:"name"`
		BasedOn valAttr `xml:"basedOn"`
		PPr     struct {
			OutlineLvl *valAttr `xml:"outlineLvl"`
			NumPr      *numPr   `xml:"numPr"`
		} `xml:"pPr"`
	} `xml:"style"`
}

type valAttr struct {
	Val string `xml:"val,attr"`
}

type numPr struct {
	Ilvl  *valAttr `xml:"ilvl"`
	NumID *valAttr `xml:"numId"`
}

func readStyles(a *safezip.Archive, name string) (*styles, error) {
	st := &styles{byID: make(map[string]paraStyle), def: paraStyle{level: -1}}
	data, err := readPart(a, name)
	if err != nil {
		return nil, err
	}
	var x xmlStyles
	if err := decodePart(data, name, &x); err != nil {
		return nil, err
	}
	st.language = strings.TrimSpace(x.DocDefaults.Lang.Val)

	type raw struct {
		name, basedOn string
		outline       int // -2 when the style does not say
		numID         string
		hasNum        bool
		ilvl          int
	}
	raws := make(map[string]raw)
	defID := ""
	for _, s := range x.Styles {
		if s.Type != "" && s.Type != "paragraph" {
			continue
		}
		id := strings.TrimSpace(s.ID)
		if _, dup := raws[id]; dup || id == "" {
			continue
		}
		r := raw{name: strings.TrimSpace(s.Name.Val), basedOn: strings.TrimSpace(s.BasedOn.Val), outline: -2}
		if s.PPr.OutlineLvl != nil {
			if v, err := strconv.Atoi(strings.TrimSpace(s.PPr.OutlineLvl.Val)); err == nil {
				r.outline = v
			}
		}
		if n := s.PPr.NumPr; n != nil && n.NumID != nil {
			r.numID, r.hasNum = strings.TrimSpace(n.NumID.Val), true
			if n.Ilvl != nil {
				r.ilvl, _ = strconv.Atoi(strings.TrimSpace(n.Ilvl.Val))
			}
		}
		raws[id] = r
		if defID == "" && (s.Default == "1" || s.Default == "true") {
			defID = id
		}
	}
	for id := range raws {
		ps := paraStyle{level: -1}
		levelSet, kindSet, numSet := false, false, false
		cur := id
		for range maxBasedOn {
			r, ok := raws[cur]
			if !ok {
				break
			}
			if !levelSet {
				switch {
				case r.outline >= 0 && r.outline <= 8:
					ps.level, levelSet = r.outline+1, true
				case r.outline == 9:
					levelSet = true // body text, whatever it is based on
				default:
					if n := headingLevel(r.name, cur); n >= 0 {
						ps.level, levelSet = n, true
					}
				}
			}
			if !kindSet {
				if kind, ok := outline.StyleKind(r.name); ok {
					ps.kind, kindSet = kind, true
				}
			}
			if !numSet && r.hasNum {
				ps.numID, ps.ilvl, numSet = r.numID, r.ilvl, true
			}
			if r.basedOn == "" || r.basedOn == cur {
				break
			}
			cur = r.basedOn
		}
		if ps.numID == "0" {
			ps.numID = ""
		}
		st.byID[id] = ps
	}
	if s, ok := st.byID[defID]; ok {
		st.def = s
	}
	return st, nil
}

// style returns the style a paragraph names, or the default one. A style
// the document names but does not define (there are tools that write no
// styles part) says what its id says.
func (s *styles) style(id string) paraStyle {
	if id == "" {
		return s.def
	}
	if ps, ok := s.byID[id]; ok {
		return ps
	}
	ps := s.def
	if n := headingLevel("", id); n >= 0 {
		ps.level = n
	}
	if k, ok := outline.StyleKind(id); ok {
		ps.kind = k
	}
	return ps
}

// headingLevel returns the level a style's name or id gives: 0 for the
// title, N for a heading N, -1 for neither.
func headingLevel(name, id string) int {
	for _, s := range []string{name, id} {
		if n, ok := outline.StyleLevel(s); ok {
			return n
		}
	}
	return -1
}

// numbering holds list formats: per numbering instance, per level.
type numbering struct {
	nums map[string]*numInstance
}

type numInstance struct {
	levels [9]numLevel
}

type numLevel struct {
	format string // decimal, lowerLetter, bullet, none...
	text   string // "%1.", "%1.%2"
	start  int
}

type xmlNumbering struct {
	Abstract []struct {
		ID     string   `xml:"abstractNumId,attr"`
		Levels []xmlLvl `xml:"lvl"`
	} `xml:"abstractNum"`
	Nums []struct {
		ID       string  `xml:"numId,attr"`
		Abstract valAttr `xml:"abstractNumId"`
		Override []struct {
			Ilvl  string   `xml:"ilvl,attr"`
			Start *valAttr `xml:"startOverride"`
			Lvl   *xmlLvl  `xml:"lvl"`
		} `xml:"lvlOverride"`
	} `xml:"num"`
}

type xmlLvl struct {
	Ilvl    string  `xml:"ilvl,attr"`
	Start   valAttr `xml:"start"`
	NumFmt  valAttr `xml:"numFmt"`
	LvlText valAttr `xml:"lvlText"`
}

func (l xmlLvl) level() numLevel {
	start, err := strconv.Atoi(strings.TrimSpace(l.Start.Val))
	if err != nil {
		start = 1
	}
	return numLevel{format: strings.TrimSpace(l.NumFmt.Val), text: l.LvlText.Val, start: start}
}

func readNumbering(a *safezip.Archive, name string) (*numbering, error) {
	n := &numbering{nums: make(map[string]*numInstance)}
	data, err := readPart(a, name)
	if err != nil {
		return nil, err
	}
	var x xmlNumbering
	if err := decodePart(data, name, &x); err != nil {
		return nil, err
	}
	abstract := make(map[string][9]numLevel)
	for _, an := range x.Abstract {
		var lv [9]numLevel
		for i := range lv {
			lv[i] = numLevel{format: "decimal", text: "%" + strconv.Itoa(i+1) + ".", start: 1}
		}
		for _, l := range an.Levels {
			if i, err := strconv.Atoi(l.Ilvl); err == nil && i >= 0 && i < 9 {
				lv[i] = l.level()
			}
		}
		if _, dup := abstract[an.ID]; !dup {
			abstract[an.ID] = lv
		}
	}
	for _, num := range x.Nums {
		levels, ok := abstract[strings.TrimSpace(num.Abstract.Val)]
		if !ok {
			continue
		}
		inst := &numInstance{levels: levels}
		for _, o := range num.Override {
			i, err := strconv.Atoi(o.Ilvl)
			if err != nil || i < 0 || i >= 9 {
				continue
			}
			if o.Lvl != nil {
				inst.levels[i] = o.Lvl.level()
			}
			if o.Start != nil {
				if v, err := strconv.Atoi(strings.TrimSpace(o.Start.Val)); err == nil {
					inst.levels[i].start = v
				}
			}
		}
		n.nums[strings.TrimSpace(num.ID)] = inst
	}
	return n, nil
}

// marker returns the number Word shows before a paragraph of list numID at
// level ilvl ("3.", "1.2", "b)"), "-" for a bullet, and advances the
// list's counters: counters holds, per list, the last number of each
// level, and a level's number starts over under each new item above it.
func (n *numbering) marker(counters map[string][]int, numID string, ilvl int) string {
	inst, ok := n.nums[numID]
	if !ok {
		return "-"
	}
	ilvl = max(0, min(ilvl, 8))
	c := counters[numID]
	if c == nil {
		c = make([]int, 9)
		for i := range c {
			c[i] = inst.levels[i].start - 1
		}
		counters[numID] = c
	}
	c[ilvl]++
	for i := ilvl + 1; i < 9; i++ {
		c[i] = inst.levels[i].start - 1
	}
	lv := inst.levels[ilvl]
	switch lv.format {
	case "bullet":
		return "-"
	case "none":
		return ""
	}
	var sb strings.Builder
	text := lv.text
	for i := 0; i < len(text); i++ {
		if text[i] == '%' && i+1 < len(text) && text[i+1] >= '1' && text[i+1] <= '9' {
			k := int(text[i+1] - '1')
			sb.WriteString(outline.ListNumber(c[k], inst.levels[k].format))
			i++
			continue
		}
		sb.WriteByte(text[i])
	}
	return strings.TrimSpace(sb.String())
}
