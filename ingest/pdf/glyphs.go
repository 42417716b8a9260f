package pdf

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// glyphText turns a glyph name into the text it stands for, following the
// Adobe Glyph List conventions for the names PDFium leaves unmapped:
// ligatures spelled with underscores ("f_f_i", "T_h"), "uniXXXX" and
// "uXXXX[XX]" names, suffixes (".sc", ".alt"), and a table of the common
// names. Unknown names (Type 3 fonts' "g3", "a12") give "".
func glyphText(name string) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	} else if i == 0 {
		return ""
	}
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		s := glyphComponent(part)
		if s == "" {
			return ""
		}
		b.WriteString(s)
	}
	return norm.NFC.String(b.String())
}

func glyphComponent(n string) string {
	if len(n) == 1 && (n[0] >= 'a' && n[0] <= 'z' || n[0] >= 'A' && n[0] <= 'Z') {
		return n
	}
	if s, ok := glyphTable[n]; ok {
		return s
	}
	if strings.HasPrefix(n, "uni") && len(n) >= 7 && (len(n)-3)%4 == 0 {
		var b strings.Builder
		for i := 3; i < len(n); i += 4 {
			v, err := strconv.ParseUint(n[i:i+4], 16, 32)
			if err != nil || !textRune(rune(v)) {
				return ""
			}
			b.WriteRune(rune(v))
		}
		return b.String()
	}
	if n[0] == 'u' && len(n) >= 5 && len(n) <= 7 {
		v, err := strconv.ParseUint(n[1:], 16, 32)
		if err != nil || !textRune(rune(v)) {
			return ""
		}
		return string(rune(v))
	}
	// Accented letters: a base letter and the name of its accent.
	if len(n) > 1 {
		base := n[:1]
		if r, _ := utf8.DecodeRuneInString(base); unicode.IsLetter(r) {
			if m, ok := accentNames[n[1:]]; ok {
				return base + string(m)
			}
		}
	}
	return ""
}

func textRune(r rune) bool {
	return utf8.ValidRune(r) && !unicode.Is(unicode.Cs, r) && !suspicious(r) && r != 0
}

var accentNames = map[string]rune{
	"acute": '\u0301', "grave": '\u0300', "circumflex": '\u0302', "tilde": '\u0303',
	"macron": '\u0304', "breve": '\u0306', "dotaccent": '\u0307', "dieresis": '\u0308',
	"ring": '\u030A', "hungarumlaut": '\u030B', "caron": '\u030C', "cedilla": '\u0327',
	"ogonek": '\u0328', "commaaccent": '\u0326',
}

var glyphTable = map[string]string{
	"ff": "ff", "fi": "fi", "fl": "fl", "ffi": "ffi", "ffl": "ffl", "st": "st", "ft": "ft",
	"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4",
	"five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
	"space": " ", "exclam": "!", "quotedbl": "\"", "numbersign": "#", "dollar": "$",
	"percent": "%", "ampersand": "&", "quotesingle": "'", "parenleft": "(", "parenright": ")",
	"asterisk": "*", "plus": "+", "comma": ",", "hyphen": "-", "period": ".", "slash": "/",
	"colon": ":", "semicolon": ";", "less": "<", "equal": "=", "greater": ">", "question": "?",
	"at": "@", "bracketleft": "[", "backslash": "\\", "bracketright": "]", "asciicircum": "^",
	"underscore": "_", "grave": "`", "braceleft": "{", "bar": "|", "braceright": "}",
	"asciitilde": "~", "quoteleft": "‘", "quoteright": "’", "quotedblleft": "“",
	"quotedblright": "”", "quotesinglbase": "‚", "quotedblbase": "„", "guillemotleft": "«",
	"guillemotright": "»", "guilsinglleft": "‹", "guilsinglright": "›", "endash": "–",
	"emdash": "—", "bullet": "•", "ellipsis": "…", "dagger": "†", "daggerdbl": "‡",
	"section": "§", "paragraph": "¶", "copyright": "©", "registered": "®", "trademark": "™",
	"degree": "°", "periodcentered": "·", "exclamdown": "¡", "questiondown": "¿",
	"cent": "¢", "sterling": "£", "yen": "¥", "Euro": "€", "euro": "€", "florin": "ƒ",
	"multiply": "×", "divide": "÷", "minus": "−", "plusminus": "±", "fraction": "⁄",
	"germandbls": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "oslash": "ø",
	"Oslash": "Ø", "eth": "ð", "Eth": "Ð", "thorn": "þ", "Thorn": "Þ", "dotlessi": "ı",
	"dotlessj": "ȷ", "lslash": "ł", "Lslash": "Ł", "aring": "å", "Aring": "Å",
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "zeta": "ζ",
	"eta": "η", "theta": "θ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ",
	"nu": "ν", "xi": "ξ", "omicron": "ο", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ",
	"upsilon": "υ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
	"Alpha": "Α", "Beta": "Β", "Gamma": "Γ", "Delta": "Δ", "Epsilon": "Ε", "Zeta": "Ζ",
	"Eta": "Η", "Theta": "Θ", "Iota": "Ι", "Kappa": "Κ", "Lambda": "Λ", "Mu": "Μ",
	"Nu": "Ν", "Xi": "Ξ", "Omicron": "Ο", "Pi": "Π", "Rho": "Ρ", "Sigma": "Σ", "Tau": "Τ",
	"Upsilon": "Υ", "Phi": "Φ", "Chi": "Χ", "Psi": "Ψ", "Omega": "Ω",
}
