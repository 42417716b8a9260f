package doc

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestCatalogTags(t *testing.T) {
	many := make([]string, 500)
	for i := range many {
		many[i] = fmt.Sprintf("k%d", i)
	}
	for _, tc := range []struct {
		name     string
		tags     []string // AddTag
		keywords []string // AddKeywords
		want     []string
	}{
		{"a subject stays whole", []string{"Bennet, Elizabeth (Fictitious character) -- Fiction"}, nil,
			[]string{"Bennet, Elizabeth (Fictitious character) -- Fiction"}},
		{"keywords split at commas and semicolons", nil, []string{"poetry, war; 1914 ,, ;"}, []string{"poetry", "war", "1914"}},
		{"trimmed, white space collapsed", []string{"  sea \n\t stories  "}, nil, []string{"sea stories"}},
		{"once whatever the case, first spelling kept", []string{"Fiction", "fiction"}, []string{"FICTION, Mystery"}, []string{"Fiction", "Mystery"}},
		{"bullets and stops are no part of a tag", nil, []string{"•Computer systems organization; - Robotics."}, []string{"Computer systems organization", "Robotics"}},
		{"a sentence is no tag", []string{strings.Repeat("word ", 20)}, []string{"short, " + strings.Repeat("long ", 20)}, []string{"short"}},
		{"control characters", []string{"a\x00b\x1fc"}, nil, []string{"a b c"}},
		{"capped", nil, []string{strings.Join(many, ",")}, many[:MaxTags]},
		{"empty", []string{"", "  "}, []string{"", ",;"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Catalog
			for _, tag := range tc.tags {
				c.AddTag(tag)
			}
			for _, k := range tc.keywords {
				c.AddKeywords(k)
			}
			if !slices.Equal(c.Tags, tc.want) {
				t.Errorf("tags %q, want %q", c.Tags, tc.want)
			}
			if got := c.Clean().Tags; !slices.Equal(got, tc.want) {
				t.Errorf("Clean changed the tags: %q", got)
			}
		})
	}
}

func TestCatalogIdentifiers(t *testing.T) {
	var c Catalog
	c.SetIdentifier("ISBN", " 978-0 ")
	c.SetIdentifier("isbn", "second") // the first stays
	c.SetIdentifier("uri", strings.Repeat("x", 300))
	c.SetIdentifier("not a scheme", "1")
	c.SetIdentifier("", "1")
	c.SetIdentifier("doi", "")
	for i := range 20 {
		c.SetIdentifier(fmt.Sprintf("s%d", i), "v")
	}
	if c.Identifiers["isbn"] != "978-0" || len(c.Identifiers) != maxIdentifiers {
		t.Errorf("identifiers %v", c.Identifiers)
	}
	for s := range c.Identifiers {
		if s != "isbn" && !strings.HasPrefix(s, "s") {
			t.Errorf("scheme %q kept", s)
		}
	}
}

func TestCatalogClean(t *testing.T) {
	long := strings.Repeat("é", 300)
	got := Catalog{
		Publisher: " Harbour\nPress ", Published: "1998-06-01T00:00:00+00:00", Series: long, SeriesIndex: 2,
		Tags: []string{"a", "A", ""}, Identifiers: map[string]string{"ISBN": "1", "bad scheme": "2"},
	}.Clean()
	if got.Publisher != "Harbour Press" || got.Published != "1998-06-01" || len([]rune(got.Series)) != maxField ||
		got.SeriesIndex != 2 || !slices.Equal(got.Tags, []string{"a"}) || !maps.Equal(got.Identifiers, map[string]string{"isbn": "1"}) {
		t.Errorf("clean %+v", got)
	}
	if c := (Catalog{SeriesIndex: 3}).Clean(); c.SeriesIndex != 0 || !c.Empty() {
		t.Errorf("a series index without a series: %+v", c)
	}
	if c := (Catalog{Published: "spring 1850"}).Clean(); c.Published != "spring 1850" {
		t.Errorf("a date that is no ISO date is kept as written: %q", c.Published)
	}
}

func TestDates(t *testing.T) {
	for in, want := range map[string]string{
		"2021-03-04T10:00:00Z": "2021-03-04", "1998": "1998", "1998-06": "1998-06", " 1850 ": "1850",
		"19980601": "", "98": "", "": "", "May 1850": "", "2021-3-4": "2021",
	} {
		if got := DatePart(in); got != want {
			t.Errorf("DatePart(%q) = %q, want %q", in, got, want)
		}
	}
}
