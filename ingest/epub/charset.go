package epub

import (
	"bytes"
	"io"
	"regexp"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// xmlEncoding finds the encoding named by an XML declaration.
var xmlEncoding = regexp.MustCompile(`^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']`)

// toUTF8 returns an XML or XHTML document as UTF-8. EPUB requires UTF-8 or
// UTF-16, but older books declare Latin-1 or Windows-1252 in the XML
// declaration, and some declare nothing and are not UTF-8 either. Whatever
// comes out is valid UTF-8, so the parsers after this never see bad bytes.
func toUTF8(data []byte) []byte {
	switch {
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		return valid(data[3:])
	case bytes.HasPrefix(data, []byte("\xff\xfe")), bytes.HasPrefix(data, []byte("<\x00?\x00")):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), data)
	case bytes.HasPrefix(data, []byte("\xfe\xff")), bytes.HasPrefix(data, []byte("\x00<\x00?")):
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.UseBOM), data)
	}
	head := data[:min(len(data), 1024)]
	if m := xmlEncoding.FindSubmatch(head); m != nil {
		if enc, name := charset.Lookup(string(m[1])); enc != nil && name != "utf-8" {
			return decodeWith(enc, data)
		}
	}
	if utf8.Valid(data) {
		return data
	}
	enc, _, _ := charset.DetermineEncoding(data, "text/html")
	return decodeWith(enc, data)
}

func decodeWith(enc encoding.Encoding, data []byte) []byte {
	out, _, err := transform.Bytes(enc.NewDecoder(), data)
	if err != nil {
		return valid(data)
	}
	return valid(out)
}

func valid(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}

// passCharset is an xml.Decoder CharsetReader for input that toUTF8 has
// already converted: whatever the declaration says, the bytes are UTF-8.
func passCharset(_ string, r io.Reader) (io.Reader, error) { return r, nil }
