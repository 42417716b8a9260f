package djvu

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testbook"
)

// TestHiddenText reads a document the test builds: its pages' paragraphs
// are blocks on their pages, lines kept, and its metadata is the
// annotation's.
func TestHiddenText(t *testing.T) {
	data := testbook.DjVu(t, "Harbour Charts",
		"The tide turns at noon.\nBoats wait in the lee.\n\nA second paragraph here.",
		"Page two speaks of gulls.")
	d, err := Parse(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	check(t, d)
	if d.Title != "Harbour Charts" || strings.Join(d.Authors, "|") != "Test Author" || d.PageCount != 2 {
		t.Errorf("metadata %q %q, %d pages", d.Title, d.Authors, d.PageCount)
	}
	var got []string
	for _, b := range d.Blocks() {
		got = append(got, b.Text+" @"+string(rune('0'+b.Page)))
	}
	want := []string{"The tide turns at noon.\nBoats wait in the lee. @1", "A second paragraph here. @1", "Page two speaks of gulls. @2"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("blocks\n%q\nwant\n%q", got, want)
	}
}

// TestNoText: a page without a text layer yields a document without
// text, which the registry reports as a scan that needs OCR.
func TestNoText(t *testing.T) {
	page := []byte("AT&TFORM\x00\x00\x00\x16DJVUINFO\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	d, err := Parse(context.Background(), page)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Chapters) != 0 || d.PageCount != 1 {
		t.Errorf("%d chapters, %d pages", len(d.Chapters), d.PageCount)
	}
}

// TestBadFiles: what is not a DjVu document fails saying what it is.
func TestBadFiles(t *testing.T) {
	good := testbook.DjVu(t, "T", "text")
	indirect := append([]byte(nil), good...)
	// The directory's flag byte: clear the bundled bit.
	i := strings.Index(string(indirect), "DIRM")
	indirect[i+8] = 0x01
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a DjVu file"},
		{"text", []byte("this is no DjVu at all"), "not a DjVu file"},
		{"shared dictionary", []byte("AT&TFORM\x00\x00\x00\x04DJVI"), "not a DjVu document: a FORM:DJVI"},
		{"indirect", indirect, "indirect DjVu document"},
		{"no directory", []byte("AT&TFORM\x00\x00\x00\x0cDJVMNAVM\x00\x00\x00\x00"), "without a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(context.Background(), tc.data)
			if err == nil || d != nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, %v; want %q", d, err, tc.want)
			}
		})
	}
	if _, err := Parse(context.Background(), indirect); !errors.Is(err, ErrIndirect) {
		t.Errorf("indirect: %v", err)
	}
}

// TestTruncated: a document cut short anywhere reads what is left or
// fails, without a panic.
func TestTruncated(t *testing.T) {
	data := testbook.DjVu(t, "T", "one\ntwo", "three")
	for n := range len(data) {
		d, err := Parse(context.Background(), data[:n])
		if err == nil {
			check(t, d)
		}
	}
}
