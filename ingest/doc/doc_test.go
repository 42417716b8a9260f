package doc

import "testing"

func TestDocumentText(t *testing.T) {
	d := &Document{Chapters: []Chapter{
		{Sections: []Section{{Blocks: []Block{{Text: "one"}, {Text: "  "}}}}},
		{Sections: []Section{{Blocks: []Block{{Text: "two"}}}, {}}},
	}}
	if n := len(d.Blocks()); n != 3 {
		t.Errorf("%d blocks", n)
	}
	if got := d.Text(); got != "one\n\n  \n\ntwo" {
		t.Errorf("Text() = %q", got)
	}
	if got := d.Chapters[0].Sections[0].Text(); got != "one" {
		t.Errorf("Section.Text() = %q", got)
	}
	if d.Empty() || !(&Document{Chapters: []Chapter{{Sections: []Section{{Blocks: []Block{{Text: " "}}}}}}}).Empty() {
		t.Error("Empty is wrong")
	}
}
