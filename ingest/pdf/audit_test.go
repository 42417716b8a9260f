package pdf

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/bomb"
)

// smallLimits keeps the bombs of the tests small.
var smallLimits = Options{MaxPageBytes: 1 << 20, MaxBookBytes: 4 << 20, MaxFontBytes: 2 << 20, MaxObjectBytes: 1 << 20}

func limitedExtractor(t *testing.T, lim Options) *Extractor {
	t.Helper()
	lim.CacheDir = testCacheDir()
	e := NewExtractor(lim)
	t.Cleanup(func() { e.Close() })
	return e
}

// TestResourceLimits parses bombs of every kind against small limits: each
// is refused with a message that names the limit and where it was passed,
// before PDFium reads it; what stays under the limits is read.
func TestResourceLimits(t *testing.T) {
	const mb = 1 << 20
	suffix := "; the file is probably hostile or broken"
	tests := []struct {
		name string
		pdf  bomb.PDF
		want string // "" when the file must parse
	}{
		{
			name: "content stream of spaces",
			pdf:  bomb.PDF{Pages: 3, Bombs: 1, Where: bomb.Content, Size: 3 * mb},
			want: "too large to read safely: page 1's content inflates past 1 MB (the per-page limit), at its content stream",
		},
		{
			name: "content stream of path points, on page 3",
			pdf:  bomb.PDF{Pages: 4, First: 2, Bombs: 1, Where: bomb.Content, Size: 3 * mb, Unit: bomb.Moves},
			want: "too large to read safely: page 3's content inflates past 1 MB (the per-page limit), at its content stream",
		},
		{
			name: "form",
			pdf:  bomb.PDF{Pages: 2, Bombs: 1, Where: bomb.Form, Size: 3 * mb},
			want: "too large to read safely: page 1's content inflates past 1 MB (the per-page limit), at its form /Fm1",
		},
		{
			name: "small form drawn often",
			pdf:  bomb.PDF{Pages: 2, Bombs: 1, Where: bomb.Form, Size: 300 << 10, Draws: 4},
			want: "too large to read safely: page 1's content inflates past 1 MB (the per-page limit), at its form /Fm1",
		},
		{
			name: "every page under the page limit, the book past its limit",
			pdf:  bomb.PDF{Pages: 8, Bombs: 8, Where: bomb.Content, Size: 900 << 10},
			want: "too large to read safely: its pages' content inflates past 4 MB in all (the per-book limit), at page 5",
		},
		{
			name: "ToUnicode CMap",
			pdf:  bomb.PDF{Pages: 2, Bombs: 1, Where: bomb.ToUnicode, Size: 3 * mb},
			want: "too large to read safely: its fonts inflate past 2 MB in all (the limit for a document's fonts), at page 1's font /F2",
		},
		{
			name: "font program",
			pdf:  bomb.PDF{Pages: 2, First: 1, Bombs: 1, Where: bomb.FontFile, Size: 3 * mb},
			want: "too large to read safely: its fonts inflate past 2 MB in all (the limit for a document's fonts), at page 2's font /F2",
		},
		{
			name: "object stream holding the catalog",
			pdf:  bomb.PDF{Pages: 2, Bombs: 1, Where: bomb.ObjectStream, Size: 3 * mb},
			want: "too large to read safely: its object streams inflate past 1 MB (the limit for a document's objects)",
		},
		{
			name: "object stream holding a font",
			pdf:  bomb.PDF{Pages: 2, First: 1, Bombs: 1, Where: bomb.ObjectStream, Size: 3 * mb},
			want: "too large to read safely: its object streams inflate past 1 MB (the limit for a document's objects)",
		},
		{
			name: "object streams each under the limit, past it together",
			pdf:  bomb.PDF{Pages: 4, First: 1, Bombs: 3, Where: bomb.ObjectStream, Size: 400 << 10},
			want: "too large to read safely: its object streams inflate past 1 MB (the limit for a document's objects)",
		},
		{
			name: "image, which reading text never inflates",
			pdf:  bomb.PDF{Pages: 2, Bombs: 1, Where: bomb.Image, Size: 3 * mb},
		},
		{
			name: "content under the limits",
			pdf:  bomb.PDF{Pages: 3, Bombs: 3, Where: bomb.Content, Size: 900 << 10, Unit: bomb.Moves},
		},
		{
			name: "form drawn twice under the limit",
			pdf:  bomb.PDF{Pages: 2, Bombs: 1, Where: bomb.Form, Size: 400 << 10, Draws: 2},
		},
		{
			name: "object stream under the limit",
			pdf:  bomb.PDF{Pages: 2, Bombs: 1, Where: bomb.ObjectStream, Size: 900 << 10},
		},
		{
			name: "fonts under the limit",
			pdf:  bomb.PDF{Pages: 2, Bombs: 2, Where: bomb.ToUnicode, Size: 900 << 10},
		},
	}
	e := limitedExtractor(t, smallLimits)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.pdf.Bytes()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			d, err := e.Parse(ctx, data)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				checkTree(t, d)
				if got, want := d.PageCount, tc.pdf.Pages; got != want {
					t.Errorf("%d pages, want %d", got, want)
				}
				if !strings.Contains(d.Text(), fmt.Sprintf("Page %d, line 1", tc.pdf.Pages)) {
					t.Errorf("the last page's text is missing: %.200q", d.Text())
				}
				return
			}
			if !errors.Is(err, ErrResourceLimit) || errors.Is(err, doc.ErrNoText) {
				t.Fatalf("err = %v, want ErrResourceLimit", err)
			}
			if got := err.Error(); got != tc.want+suffix {
				t.Errorf("err = %q\nwant  %q", got, tc.want+suffix)
			}
		})
	}
}

// TestResourceLimitsDefault parses the bomb of the issue, a page whose
// content inflates to 600 MB, with the default limits: it is refused as a
// bomb, never read as a document that needs OCR.
func TestResourceLimitsDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 64 MB")
	}
	data := bomb.PDF{Pages: 1, Bombs: 1, Where: bomb.Content, Size: 600 << 20, Unit: bomb.Moves}.Bytes()
	_, err := testExtractor.Parse(context.Background(), data)
	want := "too large to read safely: page 1's content inflates past 64 MB (the per-page limit), at its content stream; the file is probably hostile or broken"
	if !errors.Is(err, ErrResourceLimit) || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{2 << 30: "2 GB", 64 << 20: "64 MB", 1536 << 10: "1536 KB", 300: "300 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := sizeText(n); got != want {
			t.Errorf("sizeText(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestContentScanner(t *testing.T) {
	tests := []struct {
		name    string
		content string
		draws   map[string]int
		fonts   []string
	}{
		{name: "text and a form", content: "BT /F1 12 Tf 72 720 Td (Hi) Tj ET q /Fm1 Do Q /Fm1 Do", draws: map[string]int{"Fm1": 2}, fonts: []string{"F1"}},
		{name: "no space before operators", content: "BT/F2 9.5 Tf(x)Tj ET/Im0 Do", draws: map[string]int{"Im0": 1}, fonts: []string{"F2"}},
		{name: "operators in strings and comments", content: "(/Fm1 Do \\) /Fm2 Do) Tj % /Fm3 Do\n<2F466D34> Tj /Fm5 Do", draws: map[string]int{"Fm5": 1}},
		{name: "nested string", content: "((/A Do) /B Do) Tj /C Do", draws: map[string]int{"C": 1}},
		{name: "escaped name", content: "/F#31 10 Tf /Fm#20x Do", draws: map[string]int{"Fm x": 1}, fonts: []string{"F1"}},
		{name: "dictionary operand", content: "/Span <</ActualText (x) /MCID 3>> BDC /Fm1 Do EMC", draws: map[string]int{"Fm1": 1}},
		{name: "inline image", content: "BI /W 4 /H 1 /BPC 8 /CS /G ID \x00/Fm9 Do\xff EI /Fm1 Do", draws: map[string]int{"Fm1": 1}},
		{name: "operator inside a longer word", content: "/Fm1 xDo /Fm2 Dox /Fm3 Do", draws: map[string]int{"Fm3": 1}},
		{name: "Tf after other operands", content: "/F3 1 Tf /F4 -2.5 Tf", fonts: []string{"F3", "F4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := newContentScanner()
			sc.Write([]byte(tc.content))
			sc.end()
			if tc.draws == nil {
				tc.draws = map[string]int{}
			}
			if !maps.Equal(sc.draws, tc.draws) {
				t.Errorf("draws = %v, want %v", sc.draws, tc.draws)
			}
			if got := sortedKeys(sc.fonts); strings.Join(got, " ") != strings.Join(tc.fonts, " ") {
				t.Errorf("fonts = %v, want %v", got, tc.fonts)
			}
		})
	}
}

// FuzzContentScanner checks that the scanner never panics and that how a
// stream is cut into writes, which follows the inflater, changes nothing.
func FuzzContentScanner(f *testing.F) {
	f.Add([]byte("BT /F1 12 Tf (Hi) Tj ET q /Fm1 Do Q"), uint64(1))
	f.Add([]byte("BI /W 1 /H 1 ID \x00 EI /X Do <</A 1>> BDC % c\n(a(b)c) Tj"), uint64(7))
	f.Add([]byte("/F#31 1 Tf [(x) 3 (y)] TJ /Fm#2 Do"), uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		whole := newContentScanner()
		whole.Write(data)
		whole.end()
		parts := newContentScanner()
		r := rand.New(rand.NewPCG(seed, seed))
		for rest := data; len(rest) > 0; {
			n := 1 + r.IntN(len(rest))
			parts.Write(rest[:n])
			rest = rest[n:]
		}
		parts.end()
		if !maps.Equal(whole.draws, parts.draws) || !maps.Equal(whole.fonts, parts.fonts) {
			t.Errorf("cut into parts: draws %v fonts %v; whole: draws %v fonts %v", parts.draws, parts.fonts, whole.draws, whole.fonts)
		}
	})
}
