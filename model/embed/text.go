package embed

import (
	"unicode"
	"unicode/utf8"
)

// This file holds the text analysis of the built-in embedder: case and
// diacritic folding, the tokenizer and a stopword list. Everything here is fixed code and small tables; nothing depends on the
// texts embedded, so the same text always gives the same features.

// latinFold maps U+00C0…U+0233 to the lowercase ASCII letter it decomposes to
// (from the Unicode canonical decompositions), or '.' where there is none.
// Letters that fold to two ASCII letters (æ, œ, ß, þ, ĳ) are handled in foldRune.
const latinFold = "" +
	"aaaaaa.ceeeeiiiidnooooo.ouuuuy..aaaaaa.ceeeeiiiidnooooo.ouuuuy.y" + // U+00C0
	"aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiii..jjkk.lllllll" + // U+0100
	"lllnnnnnn...oooooo..rrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs" + // U+0140
	"................................oo.............uu..............." + // U+0180
	".............aaiioouuuuuuuuuu.aaaa....ggkkoooo..j...gg..nnaa..oo" + // U+01C0
	"aaaaeeeeiiiioooorrrruuuusstt..hh......aaeeooooooooyy" // U+0200

// foldRune lowercases r and strips its diacritics where it is a Latin letter.
// It returns the folded rune, or a two-letter ASCII expansion in s.
func foldRune(r rune) (f rune, s string) {
	r = unicode.ToLower(r)
	if r < 0xC0 {
		return r, ""
	}
	switch r {
	case 'æ':
		return 0, "ae"
	case 'œ':
		return 0, "oe"
	case 'ß':
		return 0, "ss"
	case 'þ':
		return 0, "th"
	case 'ĳ':
		return 0, "ij"
	}
	if i := int(r - 0xC0); i < len(latinFold) && latinFold[i] != '.' {
		return rune(latinFold[i]), ""
	}
	return r, ""
}

// isCJK reports whether r belongs to a script written without spaces between
// words, whose runs are embedded as character unigrams and bigrams.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	switch r {
	case 'ー', 'ｰ', '々': // prolonged sound marks and the repetition mark are "Common"
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// tokenKind tells how a token is turned into features.
type tokenKind uint8

const (
	wordToken tokenKind = iota // letters and digits of a spaced script
	cjkToken                   // a run of CJK characters
)

// token is one token of a text. Its runes are only valid until the next call
// of the tokenizer.
type token struct {
	runes []rune
	kind  tokenKind
	// joined is set when the token follows the previous one across a single
	// hyphen or slash ("IL-6", "and/or"), so that the compound can also be
	// matched when it is written as one word.
	joined bool
}

// tokenizer splits a text into tokens of letters and digits, folding case and
// Latin diacritics. Its buffer is reused from text to text.
type tokenizer struct {
	text string
	pos  int
	buf  []rune
	ntok int  // tokens returned so far
	seps int  // separator runes since the last token
	sep  rune // the last of them
}

func (z *tokenizer) reset(text string) {
	z.text, z.pos, z.ntok, z.seps, z.sep = text, 0, 0, 0, 0
}

// next returns the next token, or false at the end of the text.
func (z *tokenizer) next() (token, bool) {
	z.buf = z.buf[:0]
	kind := wordToken
	joined := false
scan:
	for z.pos < len(z.text) {
		if c := z.text[z.pos]; c < utf8.RuneSelf {
			// ASCII, most of most texts: no decoding, no table lookups.
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				if len(z.buf) > 0 {
					break scan // the separator is counted by the next call
				}
				z.seps++
				z.sep = rune(c)
				z.pos++
				continue
			}
			if len(z.buf) == 0 {
				kind = wordToken
				joined = z.ntok > 0 && z.seps == 1 && isJoiner(z.sep)
			} else if kind != wordToken {
				break scan
			}
			z.buf = append(z.buf, rune(c))
			z.pos++
			continue
		}
		r, size := utf8.DecodeRuneInString(z.text[z.pos:])
		if unicode.Is(unicode.Mn, r) {
			// Combining marks: dropping them folds decomposed diacritics.
			z.pos += size
			continue
		}
		cjk := isCJK(r)
		if !cjk && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if len(z.buf) > 0 {
				break scan
			}
			z.seps++
			z.sep = r
			z.pos += size
			continue
		}
		k := wordToken
		if cjk {
			k = cjkToken
		}
		if len(z.buf) == 0 {
			kind = k
			joined = k == wordToken && z.ntok > 0 && z.seps == 1 && isJoiner(z.sep)
		} else if k != kind {
			break scan // a change of script ends the token without a separator
		}
		f, s := foldRune(r)
		if s != "" {
			z.buf = append(z.buf, rune(s[0]), rune(s[1]))
		} else {
			z.buf = append(z.buf, f)
		}
		z.pos += size
	}
	if len(z.buf) == 0 {
		return token{}, false
	}
	z.ntok++
	z.seps, z.sep = 0, 0
	return token{runes: z.buf, kind: kind, joined: joined}, true
}

func isJoiner(r rune) bool {
	return r == '-' || r == '/' || r == '\u2010' // hyphen-minus, slash, hyphen
}

// asciiWord copies runes into dst when they are all ASCII lowercase letters,
// the only words the stopword list applies to.
func asciiWord(dst []byte, runes []rune) ([]byte, bool) {
	dst = dst[:0]
	for _, r := range runes {
		if r < 'a' || r > 'z' {
			return dst, false
		}
		dst = append(dst, byte(r))
	}
	return dst, true
}

// stopwords are English function words: frequent in any text, they carry
// little about the topic and, hashed, would only add collision noise.
// The map is read-only after initialisation.
var stopwords = func() map[string]struct{} {
	const list = "a about above after again against all also am an and any are as at " +
		"be because been before being below between both but by can could did do does " +
		"doing done down during each either else etc few for from further had has have " +
		"having he her here hers herself him himself his how however i if in into is it " +
		"its itself just less let may me might more most much must my myself neither no " +
		"nor not now of off on once only or other otherwise our ours ourselves out over " +
		"own per rather same shall she should since so some such than that the their " +
		"theirs them themselves then there thereby therefore these they this those " +
		"though through thus to too under until up upon us very via was we were what " +
		"when where whether which while who whom whose why will with within without " +
		"would yet you your yours yourself yourselves"
	m := make(map[string]struct{}, 160)
	start := 0
	for i := 0; i <= len(list); i++ {
		if i == len(list) || list[i] == ' ' {
			if i > start {
				m[list[start:i]] = struct{}{}
			}
			start = i + 1
		}
	}
	return m
}()

func isStopword(w []byte) bool {
	_, ok := stopwords[string(w)]
	return ok
}
