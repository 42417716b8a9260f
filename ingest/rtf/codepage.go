package rtf

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// codePageOfCharset maps a font's \fcharset to its Windows code page; 0
// for a charset that says nothing (default, symbol).
func codePageOfCharset(charset int) int {
	switch charset {
	case 0:
		return 1252
	case 77:
		return 10000
	case 128:
		return 932
	case 129:
		return 949
	case 134:
		return 936
	case 136:
		return 950
	case 161:
		return 1253
	case 162:
		return 1254
	case 163:
		return 1258
	case 177:
		return 1255
	case 178:
		return 1256
	case 186:
		return 1257
	case 204:
		return 1251
	case 222:
		return 874
	case 238:
		return 1250
	case 255:
		return 437
	}
	return 0
}

// encodingOf returns the decoder of a code page, or nil for one it does not
// know, which is read as Windows-1252.
func encodingOf(cp int) encoding.Encoding {
	switch cp {
	case 437:
		return charmap.CodePage437
	case 850:
		return charmap.CodePage850
	case 866:
		return charmap.CodePage866
	case 874:
		return charmap.Windows874
	case 932:
		return japanese.ShiftJIS
	case 936:
		return simplifiedchinese.GBK
	case 949:
		return korean.EUCKR
	case 950:
		return traditionalchinese.Big5
	case 1250:
		return charmap.Windows1250
	case 1251:
		return charmap.Windows1251
	case 1253:
		return charmap.Windows1253
	case 1254:
		return charmap.Windows1254
	case 1255:
		return charmap.Windows1255
	case 1256:
		return charmap.Windows1256
	case 1257:
		return charmap.Windows1257
	case 1258:
		return charmap.Windows1258
	case 10000:
		return charmap.Macintosh
	case 20866:
		return charmap.KOI8R
	case 28591:
		return charmap.ISO8859_1
	case 28592:
		return charmap.ISO8859_2
	case 28595:
		return charmap.ISO8859_5
	}
	return charmap.Windows1252
}

// decode decodes bytes in code page cp; UTF-8 (65001) is read as is.
func decode(b []byte, cp int) string {
	if cp == 65001 {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	out, err := encodingOf(cp).NewDecoder().Bytes(b)
	if err != nil || !utf8.Valid(out) {
		out, _ = charmap.Windows1252.NewDecoder().Bytes(b)
	}
	return string(out)
}
