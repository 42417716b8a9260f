package xhtml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
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

// ToUTF8 returns an XML or HTML document as UTF-8: by its byte order mark,
// else the encoding its XML declaration names (older EPUBs declare Latin-1,
// FB2 books Windows-1251), else as it is when it is valid UTF-8, else as a
// browser would guess (a <meta charset>, else Windows-1252). Whatever comes
// out is valid UTF-8, so the parsers after this never see bad bytes.
func ToUTF8(data []byte) []byte {
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

// passCharset is an xml.Decoder CharsetReader for input that ToUTF8 has
// already converted: whatever the declaration says, the bytes are UTF-8.
func passCharset(_ string, r io.Reader) (io.Reader, error) { return r, nil }

// NewXMLDecoder returns a lenient decoder for an XML document in any
// encoding its declaration names: real files carry HTML entities (&nbsp;)
// and sloppy markup. encoding/xml never expands entities declared in a
// DTD, so an entity bomb stays a few literal characters.
func NewXMLDecoder(data []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(ToUTF8(data)))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = passCharset
	return d
}

// MaxXMLDepth is how deep the elements of an XML document read with an
// XMLReader may nest. Real documents nest a few dozen deep; each open
// element costs the decoder memory, so hostile nesting must end early.
const MaxXMLDepth = 1000

// ErrTooDeep reports an XML document nested deeper than MaxXMLDepth.
var ErrTooDeep = errors.New("XML elements nested too deep")

// XMLReader reads the tokens of an XML document in any encoding, leniently
// as NewXMLDecoder does, and fails on nesting past MaxXMLDepth.
type XMLReader struct {
	d     *xml.Decoder
	depth int
}

// NewXMLReader returns a reader of data's tokens.
func NewXMLReader(data []byte) *XMLReader {
	return &XMLReader{d: NewXMLDecoder(data)}
}

// Token returns the next token: a StartElement, EndElement or CharData
// (comments, processing instructions and directives are skipped), or
// io.EOF at the end, or the decoder's error, or ErrTooDeep.
func (r *XMLReader) Token() (xml.Token, error) {
	for {
		t, err := r.d.Token()
		if err != nil {
			return nil, err
		}
		switch t.(type) {
		case xml.StartElement:
			r.depth++
			if r.depth > MaxXMLDepth {
				return nil, fmt.Errorf("%w: more than %d levels (a hostile file?)", ErrTooDeep, MaxXMLDepth)
			}
		case xml.EndElement:
			r.depth--
		case xml.CharData:
		default:
			continue
		}
		return t, nil
	}
}
