package pdf

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\uFB01nal \uFB02ow \uFB03ce", "final flow ffice"},
		{"cafe\u0301", "café"},
		{"a\u00A0b \t c", "a b c"},
		{"soft\u00ADhyphen", "softhyphen"},
		{"ctrl\x01\x1f chars", "ctrl chars"},
		{"ＡＢＣ、全角", "ＡＢＣ、全角"}, // NFC keeps full-width forms
		{"x²", "x²"},
	} {
		if got := normalize(tc.in, false); got != tc.want {
			t.Errorf("normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := normalize("a  b\n  c\n", true); got != "a b\nc" {
		t.Errorf("keepLines: %q", got)
	}
}

func TestJoinLines(t *testing.T) {
	for _, tc := range []struct {
		a, b   string
		hyphen bool
		want   string
	}{
		{"one", "two", false, "one two"},
		{"docu", "ment", true, "docu\uFDD0ment"},
		{"non", "English", true, "non-English"},
		{"COVID", "19", true, "COVID-19"},
		{"infor-", "mation", false, "infor\uFDD0mation"},
		{"well-", "Known", false, "well- Known"},
		{"日本", "語", false, "日本語"},
		{"", "x", false, "x"},
	} {
		if got := joinLines(tc.a, tc.b, tc.hyphen); got != tc.want {
			t.Errorf("joinLines(%q, %q, %v) = %q, want %q", tc.a, tc.b, tc.hyphen, got, tc.want)
		}
	}
}

func TestDehyphenate(t *testing.T) {
	bs := []block{
		{text: "a security\uFDD0centric view and the docu\uFDD0ment"},
		{text: "is security-centric, as every document says."},
		{text: "well\uFDD0known is joined when the text never hyphenates it"},
	}
	dehyphenate(bs)
	want := []string{
		"a security-centric view and the document",
		"is security-centric, as every document says.",
		"wellknown is joined when the text never hyphenates it",
	}
	for i, b := range bs {
		if b.text != want[i] {
			t.Errorf("%d: %q, want %q", i, b.text, want[i])
		}
	}
}

func TestGlyphText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"f_i", "fi"}, {"f_f_i", "ffi"}, {"T_h", "Th"}, {"fl", "fl"},
		{"uni00E9", "é"}, {"uni0066006C", "fl"}, {"u1F600", "😀"},
		{"eacute", "é"}, {"Adieresis", "Ä"}, {"germandbls", "ß"},
		{"a.sc", "a"}, {"quoteright", "’"},
		{"g3", ""}, {"a12", ""}, {".notdef", ""}, {"uni0001", ""},
	} {
		if got := glyphText(tc.in); got != tc.want {
			t.Errorf("glyphText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseToUnicode(t *testing.T) {
	cmap := `/CIDInit /ProcSet findresource begin
12 dict begin begincmap
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar
<0003> <0020>
<0024> <00660069>
endbfchar
3 beginbfchar
<8A03> <8A00>
<8275> <8272>
endbfchar
2 beginbfrange
<0041> <0043> <0061>
<0050> <0051> [<00C9> <D83DDE00>]
endbfrange
1 beginbfchar <0099> <0001> endbfchar
endcmap`
	got := map[uint32]string{}
	parseToUnicode([]byte(cmap), got)
	want := map[uint32]string{
		0x03: " ", 0x24: "fi", 0x8A03: "言", 0x8275: "色",
		0x41: "a", 0x42: "b", 0x43: "c", 0x50: "É", 0x51: "😀",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("code %04X: %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got[0x99]; ok {
		t.Error("a mapping to a control character was kept")
	}
}

func TestParseXMP(t *testing.T) {
	m := parseXMP([]byte(xmpPacket("Main &amp; Title", "First Author", "Second Author")))
	if m.title != "Main & Title" || !slices.Equal(m.creators, []string{"First Author", "Second Author"}) || m.language != "en-GB" {
		t.Errorf("%+v", m)
	}
	m = parseXMP([]byte(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Plain</dc:title>`))
	if m.title != "Plain" {
		t.Errorf("truncated packet: %+v", m)
	}
	if m := parseXMP([]byte("\x00\xff not xml")); m.title != "" || len(m.creators) != 0 {
		t.Errorf("garbage: %+v", m)
	}
}

func TestLabels(t *testing.T) {
	for _, tc := range []struct {
		style string
		n     int
		want  string
	}{
		{"D", 12, "12"}, {"r", 4, "iv"}, {"R", 1999, "MCMXCIX"}, {"A", 1, "A"},
		{"a", 27, "aa"}, {"A", 53, "AAA"}, {"", 5, ""},
	} {
		if got := formatLabel(tc.style, tc.n); got != tc.want {
			t.Errorf("formatLabel(%q, %d) = %q, want %q", tc.style, tc.n, got, tc.want)
		}
	}
}

func TestLabelsFromFixture(t *testing.T) {
	fx := fixture{
		pages:  []*fxPage{newPage().text("F3", 10, 72, 700, "cover"), newPage().text("F3", 10, 72, 700, "toc"), newPage().text("F3", 10, 72, 700, "body"), newPage().text("F3", 10, 72, 700, "more")},
		labels: []fxLabel{{start: 0, prefix: "T-", style: "D"}, {start: 1, style: "r", first: 3}, {start: 2, style: "A"}},
	}
	d := parseBytes(t, fx.build(t))
	if !slices.Equal(d.PageLabels, []string{"T-1", "iii", "A", "B"}) {
		t.Errorf("labels %q", d.PageLabels)
	}
}

func TestMetadataHelpers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Jane Doe", []string{"Jane Doe"}},
		{"Jane Doe; John Roe", []string{"Jane Doe", "John Roe"}},
		{"Jane Doe and John Roe", []string{"Jane Doe", "John Roe"}},
		{"Ben Trovato, G.K.M. Tobin, and Julius P. Kumquat", []string{"Ben Trovato", "G.K.M. Tobin", "Julius P. Kumquat"}},
		{"Doe, Jane", []string{"Doe, Jane"}},
	} {
		if got := splitAuthors(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("splitAuthors(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for s, ok := range map[string]bool{
		"Free Culture": true, "untitled": false, "Microsoft Word - thesis.docx": false,
		"report.pdf": false, "Title": false, "12": false, "Zero Trust Architecture": true,
	} {
		if goodTitle(s) != ok {
			t.Errorf("goodTitle(%q) = %v", s, !ok)
		}
	}
	for in, want := range map[string]string{"en-US": "en-US", "DE": "de", "x-bogus-": "", "": ""} {
		if got := languageTag(in); got != want {
			t.Errorf("languageTag(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTitleMatches(t *testing.T) {
	for _, tc := range []struct {
		title, text string
		lines       int
		want        bool
	}{
		{"Introduction", "1 INTRODUCTION", 1, true},
		{"1.2 Metrische Räume", "1.2 Metrische Räume", 1, true},
		{"13: Eldred", "CHAPTER THIRTEEN: Eldred", 1, true},
		{"Chapter 1: Creators", "CHAPTER ONE: Creators", 1, true},
		{"The Body of The Paper", "2 THE BODY OF THE PAPER", 1, true},
		{"Figures", "The figures in this paper are many", 1, false},
		{"Eldred", "A long paragraph that ends with the name Eldred", 4, false},
	} {
		b := block{text: tc.text, lines: tc.lines}
		if got := titleMatches(titleKey(tc.title), b); got != tc.want {
			t.Errorf("titleMatches(%q, %q) = %v", tc.title, tc.text, got)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"", "empty"},
		{"\x89PNG\r\n\x1a\n....", "PNG"},
		{"\xff\xd8\xff\xe0....", "JPEG"},
		{"PK\x03\x04....", "ZIP"},
		{"<!DOCTYPE html><html>", "HTML"},
		{"Dear reader,\nthis is text.\n", "plain text"},
		{"\x00\x01\x02\x03", "not PDF"},
	} {
		err := sniff([]byte(tc.in))
		if !errors.Is(err, ErrNotPDF) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("sniff(%q) = %v", tc.in, err)
		}
	}
	if err := sniff([]byte("junk before the header %PDF-1.4\n")); err != nil {
		t.Errorf("header after junk: %v", err)
	}
}
