package text

import (
	"context"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// row is one line of the book.
type row struct {
	line int    // 1-based line number in the decoded text
	text string // the line without its newline
}

// role is what a paragraph turned out to be.
type role uint8

const (
	roleContent  role = iota
	roleHeading       // a heading candidate; keep says whether it survived
	roleTOC           // table-of-contents text, left out of the document
	roleRule          // "* * *" and the like: a break, not text
	roleSubtitle      // a title line taken into the heading before it
)

// para is a run of non-blank lines and what the structure pass decided
// about it. There is one per paragraph of the book, so the small fields are
// packed together at the end.
type para struct {
	rows     []row
	title    string // a heading's display title
	gap      int    // blank lines before it
	h        heading
	role     role
	level    uint8 // a heading's level: 0 for a chapter, 1 for a section
	caps     bool  // a single line in capitals
	capsSub  bool  // … that starts with a number or ordinal
	merged   bool  // the heading's title already spans two lines
	contents bool  // a "CONTENTS" label
	toc      bool  // a list of entries
	zone     bool  // inside a table of contents
	keep     bool  // a heading that stays a heading
	body     bool  // content that gives a heading above it a reason to exist
	glued    bool  // a bare heading with its text on the following lines
}

// checkEvery is how many lines or paragraphs a loop handles between looks at
// the context.
const checkEvery = 4096

// paragraphs splits the book into runs of non-blank lines. A form feed ends a
// paragraph wherever it is. first is the line number of lines[0].
func paragraphs(ctx context.Context, lines []string, first int) ([]para, error) {
	feeds := 0
	for _, l := range lines {
		feeds += strings.Count(l, "\f")
	}
	rows := make([]row, 0, len(lines)+feeds)
	ps := make([]para, 0, len(lines)/4+feeds+1)
	start := -1
	last := first - 2 // the book's start counts as a wide gap
	flush := func() {
		if start >= 0 && len(rows) > start {
			p := para{rows: rows[start:len(rows):len(rows)]}
			p.gap = max(0, p.rows[0].line-last-1)
			last = rows[len(rows)-1].line
			ps = append(ps, p)
		}
		start = -1
	}
	add := func(n int, s string) {
		if isBlank(s) {
			flush()
			return
		}
		if start < 0 {
			start = len(rows)
		}
		rows = append(rows, row{line: n, text: s})
	}
	for i, l := range lines {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		n := first + i
		if strings.IndexByte(l, '\f') < 0 {
			add(n, l)
			continue
		}
		for k, seg := range strings.Split(l, "\f") {
			if k > 0 {
				flush()
			}
			add(n, seg)
		}
	}
	flush()
	return ps, nil
}

func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.TrimSpace(s[i:]) == ""
		}
		if c != ' ' && c != '\t' && c != '\v' && c != '\f' {
			return false
		}
	}
	return true
}

// classify looks at each paragraph on its own: is it a heading candidate, a
// list of contents entries, a rule? A paragraph whose first line is a bare
// "CHAPTER IV" glued to its text is split in two.
func classify(ps []para) []para {
	splits := 0
	for i := range ps {
		p := &ps[i]
		first := p.rows[0].text
		n := len(p.rows)
		switch {
		case n == 1:
			switch {
			case isRule(first):
				p.role = roleRule
			case isContentsLabel(first):
				p.contents = true
			default:
				p.h = classifyLine(first)
				if p.h.kind == kindNone {
					p.caps, p.capsSub = capsLine(first)
				}
			}
		case isContentsLabel(first):
			// "CONTENTS" with its entries directly below.
			p.contents, p.toc = true, true
		case n == 2 && isSetext(p.rows[0].text, p.rows[1].text):
			c, _ := underline(p.rows[1].text)
			p.h = classifyLine(first)
			if p.h.kind == kindNone {
				p.h = heading{kind: kindSetext, rank: rankSetext1}
				if c == '-' {
					p.h.rank = rankSetext2
				}
			}
			p.title = cleanTitle(first)
		case n == 3 && isSetext(p.rows[1].text, p.rows[2].text) && sameRule(p.rows[0].text, p.rows[2].text):
			// A title between two rules: "=====" / "TITLE" / "=====".
			p.h = heading{kind: kindSetext, rank: rankSetext1}
			p.title = cleanTitle(p.rows[1].text)
		case tocParagraph(p.rows, false):
			p.toc = true
		default:
			h := classifyLine(first)
			if h.kind != kindLabel || !h.bare {
				break
			}
			if n == 2 && titleLine(p.rows[1].text) {
				// "CHAPTER I." / "Down the Rabbit-Hole"
				p.h, p.merged = h, true
				p.title = joinTitle(first, p.rows[1].text)
				break
			}
			p.h, p.glued = h, true
			splits++
		}
	}
	if splits == 0 {
		return ps
	}
	out := make([]para, 0, len(ps)+splits)
	for _, p := range ps {
		if p.glued {
			out = append(out, para{rows: p.rows[:1:1], h: p.h, gap: p.gap})
			p.rows, p.h, p.gap, p.glued = p.rows[1:], heading{}, 0, false
		}
		out = append(out, p)
	}
	return out
}

func isSetext(title, rule string) bool {
	if _, ok := underline(rule); !ok {
		return false
	}
	t := strings.TrimSpace(title)
	// The rule must underline the title, not merely follow a sentence.
	return t != "" && len(t) <= maxHeadingLen && !isRule(t) &&
		2*len(strings.TrimSpace(rule)) >= utf8.RuneCountInString(t)
}

func sameRule(a, b string) bool {
	ca, oka := underline(a)
	cb, okb := underline(b)
	return oka && okb && ca == cb
}

// titleLine accepts the second line of a "CHAPTER I." / "Down the
// Rabbit-Hole" pair: short, and reading like a title rather than the start
// of the chapter's first sentence.
func titleLine(line string) bool {
	s := strings.TrimSpace(line)
	if s == "" || len(s) > 90 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	if unicode.IsLower(r) {
		return false
	}
	ws := splitWords(s)
	if len(ws) > 12 || strings.HasSuffix(s, ",") || strings.HasSuffix(s, ";") {
		return false
	}
	if ok, _ := capsLine(s); ok {
		return true
	}
	return capitalised(ws, true) || (!endsSentence(s) && len(ws) <= 10)
}

// stripPageNumber removes a trailing page number from a contents entry: one
// set off by dot leaders or a wide gap ("Chapter 1 ....... 5", "Preface    v").
// A number after a single space is part of the entry ("Letter 1").
func stripPageNumber(s string) (string, bool) {
	s = strings.TrimRight(s, " \t")
	i := len(s)
	for i > 0 && len(s)-i < 7 && (isDigit(s[i-1]) || strings.IndexByte("ivxlc", s[i-1]) >= 0) {
		i--
	}
	num := s[i:]
	if num == "" || i == 0 {
		return s, false
	}
	digits := strings.Trim(num, "0123456789") == ""
	roman := strings.Trim(num, "ivxlc") == ""
	if !(digits && len(num) <= 4) && !roman {
		return s, false
	}
	j := i
	spaces, leaders := 0, 0
	for j > 0 {
		if c := s[j-1]; c == ' ' || c == '\t' {
			spaces++
			j--
		} else if c == '.' {
			leaders++
			j--
		} else if strings.HasSuffix(s[:j], "…") {
			leaders += 2
			j -= len("…")
		} else {
			break
		}
	}
	if j == 0 || (spaces < 2 && leaders < 2) {
		return s, false
	}
	return strings.TrimSpace(s[:j]), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// tocParagraph reports a paragraph that is a list of contents entries: most
// of its lines are headings. Inside a table of contents, capitals and page
// numbers also count as entries, which they do not elsewhere.
func tocParagraph(rows []row, inZone bool) bool {
	if len(rows) < 2 {
		return false
	}
	hits := 0
	for i, r := range rows {
		e := entryLine(r.text, inZone)
		if i == 0 && !e {
			return false
		}
		if e {
			hits++
		}
	}
	return hits*10 >= len(rows)*6
}

func entryLine(line string, inZone bool) bool {
	s := strings.TrimSpace(line)
	if s == "" || len(s) > maxHeadingLen {
		return false
	}
	s, paged := stripPageNumber(s)
	if classifyLine(s).kind != kindNone {
		return true
	}
	if !inZone {
		return false
	}
	ok, _ := capsLine(s)
	return ok || paged
}

// candidate reports a paragraph that could be a heading.
func (p *para) candidate() bool { return p.h.kind != kindNone || p.caps }

// entryish reports a paragraph that may belong to a table of contents.
func (p *para) entryish() bool {
	if len(p.rows) > 1 && !p.toc && p.h.kind == kindNone && tocParagraph(p.rows, true) {
		p.toc = true
	}
	if p.role == roleRule || p.contents || p.toc || p.candidate() {
		return true
	}
	if len(p.rows) == 1 {
		_, paged := stripPageNumber(strings.TrimSpace(p.rows[0].text))
		return paged
	}
	return false
}

// markZones finds tables of contents: a "CONTENTS" label and the entries
// after it. The zone ends before the first heading whose next paragraph is
// not an entry, since that heading is the real start of the book. Entries
// that are not headings become roleTOC; headings inside stay candidates and
// are weeded out later because they have no text of their own.
func markZones(ps []para) {
	// fits reports whether ps[k] can belong to the table: an entry, or a
	// short line the patterns do not know ("EXTRACTS (Supplied by a
	// Sub-Sub-Librarian).") with more entries after it.
	fits := func(k int) bool {
		if k >= len(ps) {
			return false
		}
		if ps[k].entryish() {
			return true
		}
		return !isBody(&ps[k]) && k+1 < len(ps) && ps[k+1].entryish()
	}
	for i := 0; i < len(ps); i++ {
		if !ps[i].contents {
			continue
		}
		ps[i].zone = true
		j := i + 1
		for ; j < len(ps); j++ {
			q := &ps[j]
			if !fits(j) || (q.candidate() && !fits(j+1)) {
				break
			}
			q.zone = true
		}
		i = j - 1
	}
}

// tocKey normalises a contents entry or heading for matching one against
// the other.
func tocKey(s string) string {
	s, _ = stripPageNumber(strings.TrimSpace(s))
	s = strings.TrimRight(strings.ToUpper(s), ".: ")
	return strings.Join(strings.Fields(s), " ")
}

// tocEntries collects the entries listed in tables of contents.
func tocEntries(ps []para) map[string]bool {
	set := map[string]bool{}
	for _, p := range ps {
		if !p.zone || p.contents && !p.toc {
			continue
		}
		for i, r := range p.rows {
			if i == 0 && p.contents {
				continue
			}
			if k := tocKey(r.text); k != "" {
				set[k] = true
			}
		}
	}
	return set
}

// validateNumerals keeps only numeral headings that count up (1, 2, 3…,
// restarting at 1 under a new chapter or part); a stray "IV" in the text is
// not a division. A numeral family with fewer than two survivors is dropped.
func validateNumerals(ps []para) {
	for _, k := range []kind{kindNumber, kindNumTitle} {
		last, accepted := 0, 0
		for i := range ps {
			p := &ps[i]
			if p.role != roleHeading {
				continue
			}
			switch {
			case p.h.kind == k:
				if v := p.h.value; v == 1 || v == last+1 {
					last = v
					accepted++
				} else {
					p.role, p.h = roleContent, heading{}
				}
			case p.h.kind == kindLabel || p.h.kind == kindSpecial || (k == kindNumber && p.h.kind == kindNumTitle):
				last = 0
			}
		}
		if accepted < 2 {
			for i := range ps {
				if ps[i].role == roleHeading && ps[i].h.kind == k {
					ps[i].role, ps[i].h = roleContent, heading{}
				}
			}
		}
	}
}

// assignLevels maps ranks to the two levels of the tree: the highest rank
// present makes chapters and every lower one sections. Special divisions
// (a preface, an epilogue) are always chapters.
func assignLevels(ps []para) {
	top := 0
	for _, p := range ps {
		if p.role == roleHeading && p.keep && p.h.kind != kindSpecial && (top == 0 || p.h.rank < top) {
			top = p.h.rank
		}
	}
	for i := range ps {
		p := &ps[i]
		if p.role != roleHeading {
			continue
		}
		p.level = 1
		if p.h.kind == kindSpecial || p.h.rank <= top {
			p.level = 0
		}
	}
}

// isBody reports a paragraph that is real text: several lines, or one line
// that is a sentence. Title-page lines ("TOME XXXIII", "RUE JACOB, Nº 24.")
// are not, so a heading followed only by them does not survive.
func isBody(p *para) bool {
	if len(p.rows) > 1 {
		return true
	}
	s := p.rows[0].text
	if len(s) > 200 {
		return true
	}
	words := countWords(s)
	return words >= 12 || (words >= 6 && endsSentence(s))
}

// countWords counts whitespace-separated words without allocating.
func countWords(s string) int {
	n := 0
	in := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			in = false
		} else if !in {
			in = true
			n++
		}
	}
	return n
}

// dropEmpty un-keeps headings with no text of their own: the entries of a
// contents list set out as headings, title-page lines. A chapter heading
// directly followed by its first section heading keeps, of course. It walks
// backwards so each heading knows what the next surviving one is, and
// reports whether anything changed. A dropped heading's line is not lost: it
// becomes text of the chapter before it.
func dropEmpty(ps []para) bool {
	changed := false
	content := false
	const none = 2
	nextLevel := uint8(none)
	for i := len(ps) - 1; i >= 0; i-- {
		p := &ps[i]
		switch p.role {
		case roleContent:
			content = content || p.body
		case roleHeading:
			if !p.keep {
				continue
			}
			// A heading inside a table of contents only survives as the
			// parent of the first real heading ("BOOK ONE" over
			// "CHAPTER I"); text after the table is not its own.
			if (content && !p.zone) || (p.level == 0 && nextLevel == 1) {
				nextLevel, content = p.level, false
				continue
			}
			p.keep = false
			changed = true
		}
	}
	return changed
}

// settle alternates level assignment and empty-heading removal until both
// agree.
func settle(ps []para) {
	for i := range ps {
		if ps[i].role == roleHeading {
			ps[i].keep = true
		}
	}
	for range 4 {
		assignLevels(ps)
		if !dropEmpty(ps) {
			return
		}
	}
	assignLevels(ps)
}

// capsStructure decides whether the book's lines in capitals are its
// headings, as in Grimms' Fairy Tales. They are when there are at least
// three, nearly all different (a play's speaker names repeat), far enough
// apart to divide a book rather than mark out paragraphs, and either listed
// in the book's contents or set off by extra blank lines the way headings
// are. A numbered line in capitals ("1. HOW THEY WENT…") after an accepted
// one is a sub-heading.
func capsStructure(ps []para) bool {
	toc := tocEntries(ps)
	useTOC := 0
	for k := range toc {
		if ok, _ := capsLine(k); ok {
			useTOC++
		}
	}
	seen := map[string]int{}
	matched := false
	count := 0
	for i := range ps {
		p := &ps[i]
		if !p.caps {
			continue
		}
		key := tocKey(p.rows[0].text)
		switch {
		case p.capsSub && !matched:
			continue
		case useTOC >= 3 && !p.capsSub && !toc[key]:
			continue
		case useTOC < 3 && !p.capsSub && p.gap < 2:
			continue
		}
		matched = matched || !p.capsSub
		p.role, p.keep = roleHeading, true
		p.h = heading{kind: kindCaps, rank: rankCaps, sub: p.capsSub}
		if p.capsSub {
			p.h.rank = rankCapsSub
		}
		if !p.zone {
			seen[key]++
			count++
		}
	}
	if count < 3 || len(seen)*10 < count*8 {
		return false
	}
	settle(ps)
	kept, chars := 0, 0
	for _, p := range ps {
		switch {
		case p.role == roleHeading && p.keep:
			kept++
		case p.role == roleContent:
			for _, r := range p.rows {
				chars += len(r.text)
			}
		}
	}
	// Listed in the contents, the lines need no further proof; otherwise
	// they must divide the book into pieces of some length.
	spacing := 500
	if useTOC >= 3 {
		spacing = 100
	}
	return kept >= 3 && chars/kept >= spacing
}

// resetCaps undoes capsStructure.
func resetCaps(ps []para) {
	for i := range ps {
		p := &ps[i]
		if p.h.kind != kindCaps {
			continue
		}
		p.role, p.keep, p.h = roleContent, false, heading{}
		if p.zone {
			p.role = roleTOC
		}
	}
}

// mergeSubtitles takes a chapter's title into its heading where the book
// sets it as a paragraph of its own: "CHAPITRE I." / blank / "Comment
// Candide fut élevé…". A short paragraph after a bare heading is only a
// title when most bare headings of the book have one (or it is in
// capitals); otherwise it is the first paragraph of the chapter.
func mergeSubtitles(ps []para) {
	var eligible []int
	bare := 0
	for i := range ps {
		p := &ps[i]
		if p.role != roleHeading || !p.keep || p.h.kind != kindLabel || !p.h.bare || p.merged {
			continue
		}
		bare++
		if i+1 < len(ps) && subtitleShape(&ps[i+1]) && textFollows(ps, i+2) {
			eligible = append(eligible, i)
		}
	}
	consistent := len(eligible) >= 2 && len(eligible)*5 >= bare*3
	for _, i := range eligible {
		q := &ps[i+1]
		if ok, _ := capsLine(q.rows[0].text); !consistent && !(ok && len(q.rows) == 1) {
			continue
		}
		lines := make([]string, len(q.rows))
		for k, r := range q.rows {
			lines[k] = r.text
		}
		ps[i].title = joinTitle(ps[i].rows[0].text, strings.Join(lines, " "))
		q.role = roleSubtitle
	}
}

func subtitleShape(q *para) bool {
	if q.role != roleContent || len(q.rows) > 3 {
		return false
	}
	total := 0
	for _, r := range q.rows {
		t := strings.TrimSpace(r.text)
		if len(t) > 90 {
			return false
		}
		total += len(t)
	}
	s := strings.TrimSpace(q.rows[0].text)
	r, _ := utf8.DecodeRuneInString(s)
	return total <= 220 && unicode.IsUpper(r)
}

// textFollows reports content after ps[i-1] before the next heading.
func textFollows(ps []para, i int) bool {
	for ; i < len(ps); i++ {
		switch {
		case ps[i].role == roleContent:
			return true
		case ps[i].role == roleHeading && ps[i].keep:
			return false
		}
	}
	return false
}

// structure turns paragraphs into the heading decisions the tree is built
// from. It is the heart of the heuristics, in order of trust: labelled and
// numbered headings first; capitals only when a book has nothing else; and
// whatever the evidence, a heading with no text under it does not survive.
func structure(ctx context.Context, ps []para) ([]para, error) {
	ps = classify(ps)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	markZones(ps)
	for i := range ps {
		p := &ps[i]
		switch {
		case p.contents || p.toc && p.h.kind == kindNone:
			p.role = roleTOC
		case p.h.kind != kindNone:
			p.role, p.keep = roleHeading, true
		case p.zone:
			// Entries in capitals or with page numbers; capsStructure may
			// still make the capitals headings.
			p.role = roleTOC
		}
	}
	// A special word straight after a bare label is that chapter's title
	// ("CHAPITRE XXX." / "Conclusion."), not a division of its own.
	for i := 1; i < len(ps); i++ {
		if prev := &ps[i-1]; ps[i].h.kind == kindSpecial && prev.h.kind == kindLabel && prev.h.bare && !prev.merged {
			ps[i].role, ps[i].keep, ps[i].h = roleContent, false, heading{}
		}
	}
	validateNumerals(ps)
	for i := range ps {
		ps[i].body = isBody(&ps[i])
	}
	strong := 0
	for _, p := range ps {
		if p.role == roleHeading && p.h.kind != kindSpecial {
			strong++
		}
	}
	if strong > 0 || !capsStructure(ps) {
		resetCaps(ps)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	settle(ps)
	for i := range ps {
		p := &ps[i]
		switch {
		case p.role == roleHeading && !p.keep && p.zone:
			p.role = roleTOC
		case p.role == roleHeading && !p.keep:
			// Not a heading after all; its line is text like any other.
			p.role = roleContent
		}
	}
	mergeSubtitles(ps)
	for i := range ps {
		if p := &ps[i]; p.role == roleHeading && p.title == "" {
			p.title = cleanTitle(p.rows[0].text)
		}
	}
	return ps, nil
}

var footnoteRef = regexp.MustCompile(`\[\d{1,3}\]`)

// cleanTitle tidies a heading for display: one space between words, no
// footnote references, no _emphasis_ marks.
func cleanTitle(s string) string {
	if strings.IndexByte(s, '[') >= 0 {
		s = footnoteRef.ReplaceAllString(s, "")
	}
	if strings.Count(s, "_") >= 2 {
		s = strings.ReplaceAll(s, "_", "")
	}
	return strings.Join(strings.Fields(s), " ")
}

// joinTitle joins a label and its title line: "CHAPTER I." + "Down the
// Rabbit-Hole", or "CHAPITRE II" + "Ce que devint…" with the period the
// label lacks.
func joinTitle(label, title string) string {
	label, title = cleanTitle(label), cleanTitle(title)
	r, _ := utf8.DecodeLastRuneInString(label)
	if unicode.IsLetter(r) || unicode.IsDigit(r) || r == ')' || r == ']' {
		return label + ". " + title
	}
	return label + " " + title
}
