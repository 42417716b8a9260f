package meta

import (
	"encoding/xml"
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
