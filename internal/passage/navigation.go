package passage

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/internal/roman"
)

// Some passages only point elsewhere: a table of contents, a list of
// figures, an index, a cover, a title page, a printed page number that an
// EPUB keeps as a section of its own. They hold a book's most telling
// words (every chapter's title, the author's name) in a few characters, so
// they score well for any question about the book, and answer none: asked
// "What is zero trust?", NIST SP 800-207's table of contents took eight of
// the ten places. A search ranks them after every other passage it finds,
// so they appear only when nothing else does.

// contentsTitles are the titles, folded, of a book's lists of what is
// where.
var contentsTitles = map[string]bool{
	"contents": true, "table of contents": true, "list of figures": true,
	"list of tables": true, "list of illustrations": true, "index": true,
	"inhalt": true, "inhaltsverzeichnis": true, "table des matieres": true,
	"sommaire": true, "indice": true, "tabla de contenidos": true,
	"contenido": true, "sumario": true, "содержание": true,
	"оглавление": true, "目次": true, "目录": true, "目錄": true,
}

// Thresholds of the page-number lists and the passages without words of
// their own, below.
const (
	// leaderLines: a table of contents printed with dot leaders
	// ("2.1 Tenets of Zero Trust ........ 6") has one a line; a passage
	// of prose may have one or two (a form to fill in).
	leaderLines = 3
	// ownWords and ownRunes: a cover ("Cover Image"), a byline ("by
	// Lewis Carroll"), a page number ("192") add at most two words, and
	// few letters, to the titles they stand under.
	ownWords = 2
	ownRunes = 24
	// saysLittleBytes bounds the passages worth reading word by word for
	// it: titles, a byline and two words fit.
	saysLittleBytes = 400
)

// listsUnder reports whether text, under a chapter or section titled
// title, is a list of what is where. Under "Index" it must be one, a list
// of page references: a book's last pages may sit under its index in the
// outline (the author's biography after Free Culture's).
func listsUnder(title, text string) bool {
	if !isContentsTitle(title) {
		return false
	}
	if words := Words(title); len(words) != 1 || words[0] != "index" {
		return true
	}
	words, numbers := 0, 0
	for _, w := range strings.Fields(text) {
		words++
		if w[0] >= '0' && w[0] <= '9' {
			numbers++
		}
	}
	return numbers*indexNumbers >= words
}

// indexNumbers: in an index, a number (a page) is at least one word in
// indexNumbers ("artist remuneration in, 52, 58–59, 74, 195"): 29 to 45 %
// of the words of Free Culture's index, a passage at a time, and 3 of the
// 133 of the biography after it.
const indexNumbers = 5

// isContentsTitle reports whether a chapter or section title names a list
// of what is where ("Contents", "THE CONTENTS", "Brief Contents", "Index").
func isContentsTitle(title string) bool {
	words := Words(title)
	if len(words) > 0 && words[0] == "the" {
		words = words[1:]
	}
	t := strings.Join(words, " ")
	return contentsTitles[t] || len(words) <= 3 && strings.HasSuffix(t, "contents")
}

// listsPages reports whether text is a list of pages printed with dot
// leaders ("2.1 Tenets of Zero Trust ........ 6"): leaderLines of them,
// or fewer that make up a third of it or more (a table of contents cut
// into passages leaves a line or two in one). The numbers must be pages:
// whole, and in order, so that a price list or an account ("Total assets
// ........ 12,345") says what it says.
func listsPages(text string) bool {
	n, dots, ordered := dotLeaders(text)
	return ordered && (n >= leaderLines || n > 0 && 3*dots >= utf8.RuneCountInString(text))
}

// dotLeaders counts the runs of four dots or more (spaced or not; full
// stops, middle dots or ellipses) that lead to a page number (a whole
// number, or a roman numeral as front matter is numbered), and their
// dots; ordered is false when a leader leads to another kind of number,
// or a page comes before the one listed above it.
func dotLeaders(text string) (n, dots int, ordered bool) {
	last := 0
	for i := 0; i < len(text); {
		// Skip to the next byte that may start a leader mark.
		for i < len(text) && text[i] != '.' && text[i] != "…"[0] && text[i] != "·"[0] {
			i++
		}
		j, run := i, 0
		for j < len(text) {
			marks, size := leaderAt(text, j)
			if marks == 0 && text[j] == ' ' && j+1 < len(text) {
				marks, size = leaderAt(text, j+1)
				size++
			}
			if marks == 0 {
				break
			}
			run += marks
			j += size
		}
		if run < 4 {
			i = max(j, i+1)
			continue
		}
		for j < len(text) && text[j] == ' ' {
			j++
		}
		k := j
		for k < len(text) && strings.IndexByte("ivxlcIVXLC", text[k]) >= 0 {
			k++
		}
		page := 0
		if k == j {
			for k < len(text) && text[k] >= '0' && text[k] <= '9' && page < 1e6 {
				page = 10*page + int(text[k]-'0')
				k++
			}
			// 12,345 or 3.50: an amount.
			if k > j && k+1 < len(text) && (text[k] == ',' || text[k] == '.') && text[k+1] >= '0' && text[k+1] <= '9' {
				return n, dots, false
			}
		}
		if k > j {
			if page > 0 && page < last {
				return n, dots, false
			}
			last = max(last, page)
			n++
			dots += run
		}
		i = k
	}
	return n, dots, true
}

// leaderAt returns how many dots the leader mark at text[i] stands for (a
// full stop, a middle dot, an ellipsis), and its size in bytes; 0 when
// text[i] starts none.
func leaderAt(text string, i int) (marks, size int) {
	switch {
	case text[i] == '.':
		return 1, 1
	case strings.HasPrefix(text[i:], "…"):
		return 3, len("…")
	case strings.HasPrefix(text[i:], "·"):
		return 1, len("·")
	}
	return 0, 0
}

// divisionWords name a book's divisions in a list of them ("Sec. 217.
// Interception of computer trespasser communications. Sec. 218. …").
var divisionWords = []string{
	"sec", "section", "chapter", "part", "book", "article", "title", "appendix",
	"chapitre", "partie", "kapitel", "abschnitt", "teil", "capítulo", "capitulo",
	"capitolo", "parte", "глава", "часть",
}

// Thresholds of a list of divisions, measured on the corpus's books: the
// tables of contents written as text (the USA PATRIOT Act's, Moby-Dick's,
// Pride and Prejudice's) give 6 to 61 entries of 2 to 11 words, numbered
// in order (88 % of neighbours or more); text that cites divisions (a law
// amending others, a book's overview of its chapters) 15 words or more an
// entry, or its numbers out of order.
const (
	divisionEntries    = 6
	divisionEntryWords = 12
	divisionOrder      = 0.8
)

// listsDivisions reports whether text is a list of a book's divisions: at
// least divisionEntries of a division word and its number, a few words
// apart, numbered in order.
func listsDivisions(text string) bool {
	var nums []int
	words, prev := 0, ""
	for i := 0; i < len(text); {
		// This runs on every passage stored: ASCII, most of their text, is
		// read byte by byte.
		if c := text[i]; c < utf8.RuneSelf && !IsASCIIWordByte(c) {
			i++
			continue
		} else if c >= utf8.RuneSelf {
			if r, n := utf8.DecodeRuneInString(text[i:]); !IsWordRune(r) {
				i += n
				continue
			}
		}
		j := WordEnd(text, i)
		w := text[i:j]
		words++
		if v := divisionNumber(w); v > 0 && slices.ContainsFunc(divisionWords, func(d string) bool { return strings.EqualFold(d, prev) }) {
			nums = append(nums, v)
		}
		prev, i = w, j
	}
	if len(nums) < divisionEntries || words > divisionEntryWords*len(nums) {
		return false
	}
	rising := 0
	for k := 1; k < len(nums); k++ {
		if nums[k] > nums[k-1] {
			rising++
		}
	}
	return float64(rising) >= divisionOrder*float64(len(nums)-1)
}

// divisionNumber reads w as a division's number, in figures or in roman
// numerals; 0 when it is neither.
func divisionNumber(w string) int {
	if len(w) > 6 {
		return 0
	}
	n := 0
	for k := 0; k < len(w); k++ {
		if w[k] < '0' || w[k] > '9' {
			return roman.Value(w)
		}
		n = 10*n + int(w[k]-'0')
	}
	return n
}

// saysLittle reports whether a passage adds no more than ownWords short
// words to the titles it stands under: its book's title and authors, its
// chapter's and its section's. A title the passage begins with is no
// title to it: an untitled section is named by its first words, and a
// heading alone is not a page number under it. Nor does it say little
// where its section asks a question: "Yes." answers it.
func saysLittle(p Passage) bool {
	if strings.HasSuffix(strings.TrimSpace(p.SectionTitle), "?") {
		return false
	}
	if len(p.Text) > saysLittleBytes {
		return false
	}
	var text []string
	for _, line := range strings.Split(p.Text, "\n") {
		// A heading set as text ("Table of Contents") says no more
		// than the list it heads.
		if !isContentsTitle(line) {
			text = append(text, Words(line)...)
		}
	}
	known := make(map[string]bool)
	add := func(title string) {
		for _, w := range Words(title) {
			known[w] = true
		}
	}
	add(p.BookTitle)
	for _, a := range p.Authors {
		add(a)
	}
	for _, t := range []string{p.ChapterTitle, p.SectionTitle} {
		if words := Words(strings.TrimSuffix(t, "…")); len(words) > 0 && !hasPrefix(text, words) {
			add(t)
		}
	}
	own, runes := 0, 0
	for _, w := range text {
		if !known[w] {
			own += wordsIn(w)
			runes += utf8.RuneCountInString(w)
		}
	}
	return own <= ownWords && runes <= ownRunes
}

// wordsIn counts the words in one of FTS5's: one, but for scripts written
// without spaces, where a token is a whole phrase ("これらはwindows用の項目です",
// "these are the items for Windows"): about a word every two characters.
func wordsIn(token string) int {
	if !strings.ContainsFunc(token, func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai)
	}) {
		return 1
	}
	return (utf8.RuneCountInString(token) + 1) / 2
}

func hasPrefix(words, prefix []string) bool {
	return len(prefix) <= len(words) && slices.Equal(words[:len(prefix)], prefix)
}
