package meta

import (
	"encoding/xml"
	"maps"
	"slices"
	"testing"
)

func TestLanguageTag(t *testing.T) {
	for in, want := range map[string]string{"EN": "en", "en_US": "en-US", " pt-br ": "pt-BR", "he": "he", "english": "", "": "", "x y": ""} {
		if got := LanguageTag(in); got != want {
			t.Errorf("LanguageTag(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFromOPF reads calibre's metadata.opf: the producer is no author.
func TestFromOPF(t *testing.T) {
	const opf = `<package xmlns="http://www.idpf.org/2007/opf" unique-identifier="uuid_id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
<dc:identifier opf:scheme="calibre" id="calibre_id">9e2b</dc:identifier><dc:identifier opf:scheme="uuid" id="uuid_id">478a</dc:identifier>
<dc:title>Pride and Prejudice</dc:title><dc:creator opf:role="aut">Jane Austen</dc:creator><dc:creator opf:role="bkp">calibre (6.13.0)</dc:creator>
<dc:date>1998-06-01T00:00:00+00:00</dc:date><dc:language>en</dc:language></metadata></package>`
	var pkg struct {
		UniqueIdentifier string `xml:"unique-identifier,attr"`
		Metadata         OPF    `xml:"metadata"`
	}
	if err := xml.Unmarshal([]byte(opf), &pkg); err != nil {
		t.Fatal(err)
	}
	info := FromOPF(&pkg.Metadata, pkg.UniqueIdentifier)
	if info.Title != "Pride and Prejudice" || !slices.Equal(info.Authors, []string{"Jane Austen"}) || info.Language != "en" ||
		info.Identifier != "478a" || info.Date != "1998-06-01T00:00:00+00:00" {
		t.Errorf("info %+v", info)
	}
}

// TestCatalogFromOPF reads what calibre adds: tags, publisher, series and
// its index, identifiers by scheme (without calibre's own); and EPUB 3's
// collections as a series.
func TestCatalogFromOPF(t *testing.T) {
	for _, tc := range []struct {
		name, opf string
		want      Info
	}{
		{"calibre", `<package xmlns="http://www.idpf.org/2007/opf" unique-identifier="uuid_id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
<dc:identifier opf:scheme="calibre" id="calibre_id">1</dc:identifier><dc:identifier opf:scheme="uuid" id="uuid_id">478a</dc:identifier>
<dc:identifier opf:scheme="ISBN">978-0</dc:identifier><dc:identifier opf:scheme="URI">http://www.gutenberg.org/1661</dc:identifier>
<dc:subject>Fiction</dc:subject><dc:subject>  </dc:subject><dc:subject>fiction</dc:subject><dc:subject>Mystery</dc:subject>
<dc:publisher>Penguin</dc:publisher>
<meta name="calibre:series" content="Holmes"/><meta name="calibre:series_index" content="2.5"/></metadata></package>`,
			Info{Identifier: "478a", Publisher: "Penguin", Tags: []string{"Fiction", "Mystery"}, Series: "Holmes", SeriesIndex: 2.5,
				Identifiers: map[string]string{"isbn": "978-0", "uri": "http://www.gutenberg.org/1661"}}},
		{"epub 3 collection", `<package xmlns="http://www.idpf.org/2007/opf"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<meta property="belongs-to-collection" id="c1">Discworld</meta><meta refines="#c1" property="group-position">3</meta></metadata></package>`,
			Info{Series: "Discworld", SeriesIndex: 3}},
		{"epub 3 identifiers say their scheme in their value", `<package xmlns="http://www.idpf.org/2007/opf" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:identifier id="id">urn:uuid:478a</dc:identifier><dc:identifier>urn:isbn:978-0</dc:identifier><dc:identifier>doi:10.1000/1</dc:identifier>
<dc:identifier>https://www.gutenberg.org/ebooks/1342</dc:identifier><dc:identifier>no scheme</dc:identifier></metadata></package>`,
			Info{Identifier: "urn:uuid:478a", Identifiers: map[string]string{"isbn": "978-0", "doi": "10.1000/1", "uri": "https://www.gutenberg.org/ebooks/1342"}}},
		{"a series index alone is none", `<package><metadata><meta name="calibre:series_index" content="1"/></metadata></package>`, Info{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pkg struct {
				UniqueIdentifier string `xml:"unique-identifier,attr"`
				Metadata         OPF    `xml:"metadata"`
			}
			if err := xml.Unmarshal([]byte(tc.opf), &pkg); err != nil {
				t.Fatal(err)
			}
			got := FromOPF(&pkg.Metadata, pkg.UniqueIdentifier)
			if got.Identifier != tc.want.Identifier || got.Publisher != tc.want.Publisher || !slices.Equal(got.Tags, tc.want.Tags) ||
				got.Series != tc.want.Series || got.SeriesIndex != tc.want.SeriesIndex || !maps.Equal(got.Identifiers, tc.want.Identifiers) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
