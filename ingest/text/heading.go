package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/internal/roman"
)

// kind is how a line was recognised as a heading, from the most to the least
// trustworthy evidence.
type kind uint8

const (
	kindNone     kind = iota
	kindLabel         // "CHAPTER I.", "BOOK ONE: 1805", "Letter 1", "PREMIÈRE PARTIE"
	kindSpecial       // "PREFACE", "FIRST EPILOGUE: 1813 - 20", "Préface de l'Éditeur"
	kindNumTitle      // "IV. THE RED-HEADED LEAGUE"
	kindNumber        // a line that is only a numeral: "IV", "12."
	kindSetext        // a title underlined with === or ---
	kindCaps          // a short all-capitals title line ("THE GOLDEN BIRD")
)

// Ranks order headings in the book's hierarchy: a smaller rank contains a
// larger one. Only their order matters; the gaps leave room between.
const (
	rankVolume   = 10
	rankBook     = 20
	rankPart     = 30
	rankSetext1  = 35
	rankChapter  = 40
	rankNumTitle = 42
	rankSection  = 45
	rankSetext2  = 46
	rankNumber   = 50
	rankCaps     = 60
	rankCapsSub  = 70
)

// maxHeadingLen bounds the lines worth classifying; a heading longer than
// this is prose in all the books we have seen, and the bound keeps the work
// per line constant however long a line is.
const maxHeadingLen = 120

// heading is what classification found on a line.
type heading struct {
	rank  int
	value int // the numeral, for kindNumber and kindNumTitle
	kind  kind
	bare  bool // a label and number only: a title may follow on its own line
	sub   bool // kindCaps: starts with a number or ordinal ("1. HOW THEY…", "FIRST STORY")
}

// labels are the words that introduce a numbered division, by rank. Keys are
// upper case; the text may spell them in capitals or title case.
var labels = map[string]int{
	"VOLUME": rankVolume, "VOL": rankVolume, "TOME": rankVolume,
	"BOOK": rankBook, "LIVRE": rankBook, "BUCH": rankBook, "LIBRO": rankBook,
	"PART": rankPart, "PARTIE": rankPart, "TEIL": rankPart, "PARTE": rankPart, "ACT": rankPart,
	"CHAPTER": rankChapter, "CHAP": rankChapter, "CHAPITRE": rankChapter, "KAPITEL": rankChapter,
	"CAPÍTULO": rankChapter, "CAPITULO": rankChapter, "CAPITOLO": rankChapter,
	"LETTER": rankChapter, "LETTRE": rankChapter, "CANTO": rankChapter, "STAVE": rankChapter,
	"SECTION": rankSection, "SCENE": rankSection,
}

// specials are unnumbered divisions that stand at the top of whatever
// hierarchy the book has.
var specials = map[string]bool{
	"PREFACE": true, "FOREWORD": true, "INTRODUCTION": true, "PROLOGUE": true,
	"EPILOGUE": true, "AFTERWORD": true, "POSTSCRIPT": true, "APPENDIX": true,
	"CONCLUSION": true, "INTERLUDE": true, "PRÉFACE": true, "AVANT-PROPOS": true,
	"AVERTISSEMENT": true, "ÉPILOGUE": true, "VORWORT": true, "EINLEITUNG": true,
	"NACHWORT": true, "PROLOG": true, "EPILOG": true, "PRÓLOGO": true,
	"EPÍLOGO": true, "PREFACIO": true, "INTRODUCCIÓN": true,
}

// numberWords are spelled-out numbers that follow a label ("BOOK ONE").
var numberWords = map[string]int{
	"ONE": 1, "TWO": 2, "THREE": 3, "FOUR": 4, "FIVE": 5, "SIX": 6, "SEVEN": 7,
	"EIGHT": 8, "NINE": 9, "TEN": 10, "ELEVEN": 11, "TWELVE": 12, "THIRTEEN": 13,
	"FOURTEEN": 14, "FIFTEEN": 15, "SIXTEEN": 16, "SEVENTEEN": 17, "EIGHTEEN": 18,
	"NINETEEN": 19, "TWENTY": 20, "THIRTY": 30, "FORTY": 40, "FIFTY": 50,
	"SIXTY": 60, "SEVENTY": 70, "EIGHTY": 80, "NINETY": 90,
}

// ordinals may precede a label ("FIRST EPILOGUE", "Erstes Kapitel") or follow
// it ("CHAPTER THE FIRST", "CHAPITRE PREMIER").
var ordinals = map[string]bool{
	"FIRST": true, "SECOND": true, "THIRD": true, "FOURTH": true, "FIFTH": true,
	"SIXTH": true, "SEVENTH": true, "EIGHTH": true, "NINTH": true, "TENTH": true,
	"ELEVENTH": true, "TWELFTH": true, "LAST": true, "FINAL": true,
	"PREMIER": true, "PREMIÈRE": true, "DEUXIÈME": true, "SECONDE": true,
	"TROISIÈME": true, "QUATRIÈME": true, "CINQUIÈME": true, "SIXIÈME": true,
	"SEPTIÈME": true, "HUITIÈME": true, "NEUVIÈME": true, "DIXIÈME": true,
	"ERSTES": true, "ERSTER": true, "ERSTE": true, "ZWEITES": true, "ZWEITER": true,
	"ZWEITE": true, "DRITTES": true, "DRITTER": true, "DRITTE": true,
	"VIERTES": true, "VIERTER": true, "FÜNFTES": true, "FÜNFTER": true,
	"SECHSTES": true, "SIEBENTES": true, "SIEBTES": true, "ACHTES": true,
	"NEUNTES": true, "ZEHNTES": true,
	"PRIMERO": true, "PRIMERA": true, "SEGUNDO": true, "SEGUNDA": true,
	"TERCERO": true, "TERCERA": true, "CUARTO": true, "CUARTA": true,
	"QUINTO": true, "QUINTA": true, "SEXTO": true, "SEXTA": true,
}

// titleStopwords may stay lower case inside a title-case heading.
var titleStopwords = map[string]bool{
	"a": true, "an": true, "and": true, "the": true, "of": true, "to": true,
	"in": true, "on": true, "for": true, "by": true, "at": true, "with": true,
	"de": true, "du": true, "des": true, "la": true, "le": true, "les": true,
	"et": true, "à": true, "au": true, "aux": true, "der": true, "die": true,
	"das": true, "zum": true, "zur": true, "und": true, "del": true, "el": true,
	"y": true, "los": true, "las": true,
}

// contentsLabels introduce a table of contents.
var contentsLabels = map[string]bool{
	"contents": true, "table of contents": true, "table des matières": true,
	"table des matieres": true, "sommaire": true, "inhalt": true,
	"inhaltsverzeichnis": true, "índice": true, "indice": true,
}

// word is one whitespace-separated token of a line, with the punctuation
// around it set aside.
type word struct {
	raw  string // as written
	core string // without trailing punctuation and footnote marks
	sep  bool   // punctuation followed it: "I.", "ONE:"
}

// splitWords tokenises a short line. Only lines up to maxHeadingLen reach it.
// A dash glued between words separates them, as in "Book the
// First--Recalled to Life" or "CHAPTER I—A MAN OF FEELING".
func splitWords(s string) []word {
	fields := strings.Fields(s)
	ws := make([]word, 0, len(fields))
	for _, f := range fields {
		for f != "" {
			part := f
			if i := dashIndex(f); i > 0 {
				part, f = f[:i], strings.TrimLeft(f[i:], "—-")
			} else {
				f = ""
			}
			core := stripFootnote(part)
			trimmed := strings.TrimRight(core, ".:;,—–-")
			ws = append(ws, word{raw: part, core: trimmed, sep: len(trimmed) < len(core) || f != ""})
		}
	}
	return ws
}

// dashIndex finds a dash ("--" or "—") inside a token, not at its start.
func dashIndex(f string) int {
	i := strings.Index(f, "--")
	if j := strings.Index(f, "—"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i <= 0 || strings.TrimLeft(f[i:], "—-") == "" {
		return -1 // a trailing dash is punctuation, not a separator
	}
	return i
}

// stripFootnote removes a trailing "[1]" footnote reference ("XXII[1].").
func stripFootnote(s string) string {
	i := strings.LastIndexByte(s, '[')
	if i <= 0 {
		return s
	}
	j := strings.IndexByte(s[i:], ']')
	if j < 2 || j > 4 {
		return s
	}
	for _, c := range s[i+1 : i+j] {
		if c < '0' || c > '9' {
			return s
		}
	}
	return s[:i] + s[i+j+1:]
}

// isSepWord reports a token that is only a separator ("CHAPTER I — Title").
func isSepWord(w word) bool { return w.core == "" }

func isUpper(s string) bool {
	letters := false
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters = true
		}
	}
	return letters
}

// isTitleWord reports "Chapter": an upper-case letter, then lower case.
func isTitleWord(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	if !unicode.IsUpper(r) {
		return false
	}
	for _, r := range s[size:] {
		if unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// caseOK accepts a keyword written in capitals or title case, never in lower
// case: "chapter 3" inside a sentence is not a heading.
func caseOK(s string) bool { return isUpper(s) || isTitleWord(s) }

func arabicValue(s string) int {
	if s == "" || len(s) > 4 {
		return 0
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// numberValue reads what may follow a label: a Roman or Arabic numeral, a
// number word ("ONE", "TWENTY-ONE") or an ordinal ("FIRST", "PREMIER").
func numberValue(s string) (int, bool) {
	if v := roman.Value(s); v > 0 {
		return v, true
	}
	if v := arabicValue(s); v > 0 || s == "0" {
		return v, true
	}
	u := strings.ToUpper(s)
	if v, ok := numberWords[u]; ok {
		return v, true
	}
	if tens, units, ok := strings.Cut(u, "-"); ok {
		t, ok1 := numberWords[tens]
		n, ok2 := numberWords[units]
		if ok1 && ok2 && t >= 20 && n < 10 {
			return t + n, true
		}
	}
	if ordinals[u] {
		return 0, true
	}
	return 0, false
}

// classifyLine recognises the strong heading forms on one line: labelled
// divisions, special divisions and numerals. It knows nothing of the lines
// around it; the structure pass weighs that.
func classifyLine(line string) heading {
	s := strings.TrimSpace(line)
	if s == "" || len(s) > maxHeadingLen {
		return heading{}
	}
	r, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
		return heading{}
	}
	if !keyword(s) {
		return heading{}
	}
	ws := splitWords(s)
	if h, ok := labelHeading(ws); ok {
		return h
	}
	if h, ok := specialHeading(s, ws); ok {
		return h
	}
	return numeralHeading(ws)
}

// keyword reports whether the first word of s can start a heading, so that
// the lines of ordinary prose are rejected without being tokenised.
func keyword(s string) bool {
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		end = len(s)
	}
	w := strings.TrimRight(stripFootnote(s[:end]), ".:;,—–-")
	if w == "" || len(w) > 16 {
		return false
	}
	if roman.Value(w) > 0 || arabicValue(w) > 0 {
		return true
	}
	// Upper-case ASCII words in a buffer: the map lookups below then do not
	// allocate, and this runs on the first word of every paragraph.
	var buf [16]byte
	ascii := true
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	if ascii {
		u := buf[:len(w)]
		_, ok := labels[string(u)]
		return ok || specials[string(u)] || ordinals[string(u)]
	}
	u := strings.ToUpper(w)
	_, ok := labels[u]
	return ok || specials[u] || ordinals[u]
}

// labelHeading: LABEL [THE] NUMBER [sep TITLE], or ORDINAL LABEL [sep TITLE].
func labelHeading(ws []word) (heading, bool) {
	if len(ws) < 2 {
		return heading{}, false
	}
	// ORDINAL LABEL: "PREMIÈRE PARTIE", "Erstes Kapitel", "FIRST BOOK".
	if ordinals[strings.ToUpper(ws[0].core)] && !ws[0].sep && caseOK(ws[0].core) {
		if rank, ok := labels[strings.ToUpper(ws[1].core)]; ok && labelCase(ws[0].core, ws[1].core) {
			return withTitle(heading{kind: kindLabel, rank: rank}, ws[2:], ws[1].sep)
		}
	}
	rank, ok := labels[strings.ToUpper(ws[0].core)]
	if !ok || !caseOK(ws[0].core) {
		return heading{}, false
	}
	i := 1
	if strings.EqualFold(ws[i].core, "the") && !ws[i].sep && len(ws) > 2 {
		i++ // "CHAPTER THE FIRST"
	}
	if _, ok := numberValue(ws[i].core); !ok {
		return heading{}, false
	}
	if isUpper(ws[0].core) && !isUpper(ws[i].core) && arabicValue(ws[i].core) == 0 {
		// "CHAPTER one" mixes cases the way prose does, not headings.
		return heading{}, false
	}
	return withTitle(heading{kind: kindLabel, rank: rank}, ws[i+1:], ws[i].sep)
}

// labelCase: an ordinal and its label share a style ("FIRST PART",
// "First Part", "Erstes Kapitel"), so "First part of it" is not a heading.
func labelCase(ordinal, label string) bool {
	if isUpper(ordinal) {
		return isUpper(label)
	}
	return isTitleWord(label)
}

// withTitle validates what follows the number and marks a heading with
// nothing after it as bare.
func withTitle(h heading, rest []word, sep bool) (heading, bool) {
	if len(rest) > 0 && isSepWord(rest[0]) {
		sep = true
		rest = rest[1:]
	}
	if len(rest) == 0 {
		h.bare = true
		return h, true
	}
	if !titleWords(rest, sep) {
		return heading{}, false
	}
	return h, true
}

// titleWords accepts the title part of a heading. After a separator almost
// anything short goes ("CHAPTER I. Down the Rabbit-Hole", "BOOK ONE: 1805");
// without one it must read like a title, not like the rest of a sentence
// ("Chapter 3 was the best").
func titleWords(ws []word, sep bool) bool {
	if len(ws) > 15 {
		return false
	}
	last := ws[len(ws)-1].raw
	if strings.HasSuffix(last, ",") || strings.HasSuffix(last, ";") {
		return false
	}
	if sep {
		return true
	}
	return capitalised(ws, true)
}

// capitalised reports a title-case or all-capitals run of words: each word
// starts with a capital, a digit or punctuation, or is a short stopword. A
// leading run must start with a capital; a run that continues a title
// ("Préface" + "de l'Éditeur") may start with a stopword.
func capitalised(ws []word, leading bool) bool {
	for i, w := range ws {
		c := w.core
		if c == "" {
			continue
		}
		// Elided articles: "l'Éditeur", "d'Artagnan".
		if len(c) > 2 && (c[1] == '\'' || strings.HasPrefix(c[1:], "’")) && unicode.IsLower(rune(c[0])) {
			_, size := utf8.DecodeRuneInString(c[1:])
			c = c[1+size:]
		}
		r, _ := utf8.DecodeRuneInString(c)
		switch {
		case unicode.IsUpper(r), unicode.IsDigit(r), !unicode.IsLetter(r):
		case (i > 0 || !leading) && titleStopwords[strings.ToLower(c)]:
		default:
			return false
		}
	}
	return true
}

// specialHeading: [ORDINAL] SPECIAL [NUMBER|LETTER] [sep TITLE].
func specialHeading(s string, ws []word) (heading, bool) {
	if utf8.RuneCountInString(s) > 80 {
		return heading{}, false
	}
	i := 0
	if len(ws) > 1 && ordinals[strings.ToUpper(ws[0].core)] && !ws[0].sep {
		i = 1
	}
	key := ws[i].core
	if !specials[strings.ToUpper(key)] || !caseOK(key) || (i == 1 && !labelCase(ws[0].core, key)) {
		return heading{}, false
	}
	sep := ws[i].sep
	rest := ws[i+1:]
	if len(rest) > 0 && !sep {
		// "APPENDIX A", "APPENDIX II"
		if _, ok := numberValue(rest[0].core); ok || (utf8.RuneCountInString(rest[0].core) == 1 && isUpper(rest[0].core)) {
			sep = rest[0].sep
			rest = rest[1:]
		}
	}
	if len(rest) > 0 && isSepWord(rest[0]) {
		sep = true
		rest = rest[1:]
	}
	h := heading{kind: kindSpecial}
	if len(rest) == 0 {
		return h, true
	}
	if sep {
		if len(rest) > 12 {
			return heading{}, false
		}
		return h, true
	}
	// "PREFACE TO THE SECOND EDITION", "Préface de l'Éditeur", but not
	// "Introduction of the new law was delayed".
	if len(rest) > 6 || endsSentence(s) || strings.HasSuffix(s, ",") || strings.HasSuffix(s, ":") {
		return heading{}, false
	}
	if isUpper(key) {
		for _, w := range rest {
			if !isUpper(w.core) && strings.ContainsFunc(w.core, unicode.IsLetter) {
				return heading{}, false
			}
		}
		return h, true
	}
	if !capitalised(rest, false) {
		return heading{}, false
	}
	return h, true
}

// numeralHeading: a line that is only a numeral ("IV", "IV.", "12."), or a
// Roman numeral with a title ("IV. THE RED-HEADED LEAGUE"). Arabic numerals
// need their period, since a bare number is more often a page number.
func numeralHeading(ws []word) heading {
	w := ws[0]
	if len(ws) == 1 {
		if v := roman.Value(w.core); v > 0 && isUpper(w.core) && (w.raw == w.core || w.raw == w.core+".") {
			return heading{kind: kindNumber, rank: rankNumber, value: v, bare: true}
		}
		if v := arabicValue(w.core); v > 0 && w.raw == w.core+"." {
			return heading{kind: kindNumber, rank: rankNumber, value: v, bare: true}
		}
		return heading{}
	}
	v := roman.Value(w.core)
	if v == 0 || !isUpper(w.core) || w.raw != w.core+"." {
		return heading{}
	}
	rest := ws[1:]
	last := rest[len(rest)-1].raw
	if len(rest) > 12 || !capitalised(rest, true) || strings.ContainsAny(last[len(last)-1:], ".,;:") {
		return heading{}
	}
	return heading{kind: kindNumTitle, rank: rankNumTitle, value: v}
}

// capsLine recognises a short title in capitals, the only mark of a heading
// in books like Grimms' Fairy Tales. It is weak evidence on its own (shouted
// dialogue, title pages and signs look the same), so the structure pass only
// uses it when the book has no stronger headings and the lines really
// divide it.
func capsLine(line string) (ok, sub bool) {
	s := strings.TrimSpace(line)
	if len(s) < 2 || len(s) > 90 {
		return false, false
	}
	first, _ := utf8.DecodeRuneInString(s)
	if strings.ContainsRune("‘“\"'«(—–-*", first) {
		return false, false
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	if strings.ContainsRune(",;", last) {
		return false, false
	}
	letters, nonSpace := 0, 0
	for _, r := range s {
		if unicode.IsLower(r) {
			return false, false
		}
		if unicode.IsLetter(r) {
			letters++
		}
		if !unicode.IsSpace(r) {
			nonSpace++
		}
	}
	if letters < 2 || letters*10 < nonSpace*6 {
		return false, false
	}
	ws := splitWords(s)
	if len(ws) > 14 {
		return false, false
	}
	w := ws[0]
	sub = (len(ws) > 1 && w.sep && (arabicValue(w.core) > 0 || roman.Value(w.core) > 0)) ||
		(len(ws) > 1 && ordinals[w.core])
	return true, sub
}

// isContentsLabel reports a "CONTENTS" line that opens a table of contents.
func isContentsLabel(line string) bool {
	s := strings.TrimSpace(line)
	if len(s) > 30 {
		return false
	}
	s = strings.ToLower(strings.TrimRight(s, ".: "))
	return contentsLabels[s]
}

// isRule reports a line with no letters or digits: "* * *", "------".
func isRule(line string) bool {
	for _, r := range line {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return strings.TrimSpace(line) != ""
}

// underline reports a setext underline and its character.
func underline(line string) (byte, bool) {
	s := strings.TrimSpace(line)
	if len(s) < 3 {
		return 0, false
	}
	c := s[0]
	if c != '=' && c != '-' {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] != c {
			return 0, false
		}
	}
	return c, true
}

// endsSentence reports text ending like a sentence, looking through closing
// quotes, brackets and emphasis marks.
func endsSentence(s string) bool {
	s = strings.TrimRightFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'’”»)]_*", r)
	})
	r, _ := utf8.DecodeLastRuneInString(s)
	return r == '.' || r == '!' || r == '?' || r == '…'
}
