package pdf

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// The tests below run on the shared corpus and skip where it (or
// pdftotext, the reference for text) is absent.

func readCorpus(t testing.TB, elem ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(testcorpus.Path(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// textBooks are the corpus PDFs with a text layer.
var textBooks = []string{
	"freeculture.pdf",
	"GeoTopo-komprimiert.pdf",
	"NIST.SP.800-207.pdf",
	"acmart-sample-sigconf.pdf",
	"habibi.pdf",
	"pdfcpu-udhr-japanese.pdf",
}

// pdftotext runs poppler's pdftotext and returns its text per page.
func pdftotext(t testing.TB, path string, flags ...string) []string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext (poppler-utils) not installed; skipping the comparison")
	}
	args := append(append([]string{"-enc", "UTF-8"}, flags...), path, "-")
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	pages := strings.Split(string(out), "\f")
	if len(pages) > 0 && strings.TrimSpace(pages[len(pages)-1]) == "" {
		pages = pages[:len(pages)-1]
	}
	return pages
}

var lineEndHyphen = regexp.MustCompile(`(\pL)-\s*\n\s*(\pL)`)

// tokens normalises text as the research notes' measurements did: NFKC,
// lower case, line-end hyphens joined, U+0002 dropped; a token is a run
// of letters and digits, except that each Han or Kana character is one.
func tokens(s string) []string {
	s = strings.ReplaceAll(s, "\x02", "")
	s = lineEndHyphen.ReplaceAllString(s, "$1$2")
	s = strings.ToLower(norm.NFKC.String(s))
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			cur.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// common counts the tokens two bags share.
func common(got, want []string) int {
	bag := map[string]int{}
	for _, w := range want {
		bag[w]++
	}
	n := 0
	for _, g := range got {
		if bag[g] > 0 {
			bag[g]--
			n++
		}
	}
	return n
}

// f1 is the token F1 of got against want, as bags of tokens.
func f1(got, want []string) (f, precision, recall float64) {
	if len(got) == 0 && len(want) == 0 {
		return 1, 1, 1
	}
	common := common(got, want)
	if common == 0 {
		return 0, 0, 0
	}
	precision = float64(common) / float64(len(got))
	recall = float64(common) / float64(len(want))
	return 2 * precision * recall / (precision + recall), precision, recall
}

// pageF1 is the micro-averaged F1 over pages: a token counts only on the
// page it belongs to, so it measures the page citations as well.
func pageF1(got, want []string) float64 {
	commonTokens := common
	common, ng, nw := 0, 0, 0
	for i := range max(len(got), len(want)) {
		var g, w []string
		if i < len(got) {
			g = tokens(got[i])
		}
		if i < len(want) {
			w = tokens(want[i])
		}
		common += commonTokens(g, w)
		ng += len(g)
		nw += len(w)
	}
	if common == 0 {
		return 0
	}
	p, r := float64(common)/float64(ng), float64(common)/float64(nw)
	return 2 * p * r / (p + r)
}

// withoutFurniture drops from pdftotext's pages the lines that the parser
// drops on purpose: among each page's first and last three lines, those
// that recur (numbers blanked) on three pages or more; anywhere, those
// that recur on half the pages (proof line numbers in the margin) and
// bare numbers. It is a reference-side rule of its own, for the "body"
// column.
func withoutFurniture(pages []string) []string {
	digits := regexp.MustCompile(`[0-9]+`)
	key := func(l string) string { return digits.ReplaceAllString(strings.ToLower(strings.TrimSpace(l)), "#") }
	edge := func(lines []string) map[int]bool {
		var idx []int
		for i, l := range lines {
			if strings.TrimSpace(l) != "" {
				idx = append(idx, i)
			}
		}
		m := map[int]bool{}
		for k, i := range idx {
			if k < 3 || k >= len(idx)-3 {
				m[i] = true
			}
		}
		return m
	}
	count, anywhere := map[string]int{}, map[string]int{}
	split := make([][]string, len(pages))
	for i, p := range pages {
		split[i] = strings.Split(p, "\n")
		seen := map[string]bool{}
		for j := range edge(split[i]) {
			if k := key(split[i][j]); !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
		seen = map[string]bool{}
		for _, l := range split[i] {
			if k := key(l); !seen[k] {
				seen[k] = true
				anywhere[k]++
			}
		}
	}
	out := make([]string, len(pages))
	for i, lines := range split {
		e := edge(lines)
		var kept []string
		for j, l := range lines {
			k := key(l)
			if e[j] && count[k] >= 3 || k == "#" || len(pages) >= 4 && 2*anywhere[k] >= len(pages) {
				continue
			}
			kept = append(kept, l)
		}
		out[i] = strings.Join(kept, "\n")
	}
	return out
}

// TestCorpusTextF1 compares each book's text with pdftotext's: the mean
// token F1 must be at least 0.95 and no book below 0.90. Run with -v for
// the table.
func TestCorpusTextF1(t *testing.T) {
	dir := testcorpus.Path(t, "books", "pdf")
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext (poppler-utils) not installed; skipping the comparison")
	}
	var sum float64
	var table strings.Builder
	// F1, P, R and page-F1 compare with plain pdftotext, the acceptance
	// measure. body-F1 compares with pdftotext -cropbox (the visible page)
	// without running heads, footers and page numbers, which the parser
	// drops on purpose.
	fmt.Fprintf(&table, "%-28s %6s %6s %6s %6s %8s %8s %8s\n", "file", "pages", "F1", "P", "R", "page-F1", "body-F1", "tokens")
	for _, name := range textBooks {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d := parseBytes(t, data)
		ref := pdftotext(t, path)
		want := tokens(strings.Join(ref, "\n"))
		got := tokens(d.Text())
		f, p, r := f1(got, want)
		pf := pageF1(pageTexts(d), ref)
		bf, _, _ := f1(got, tokens(strings.Join(withoutFurniture(pdftotext(t, path, "-cropbox")), "\n")))
		fmt.Fprintf(&table, "%-28s %6d %6.3f %6.3f %6.3f %8.3f %8.3f %8d\n", name, d.PageCount, f, p, r, pf, bf, len(want))
		sum += f
		if f < 0.90 {
			t.Errorf("%s: token F1 %.3f < 0.90", name, f)
		}
		if d.PageCount != len(ref) {
			t.Errorf("%s: %d pages, pdftotext has %d", name, d.PageCount, len(ref))
		}
	}
	mean := sum / float64(len(textBooks))
	fmt.Fprintf(&table, "%-28s %6s %6.3f\n", "mean", "", mean)
	t.Logf("token F1 against pdftotext:\n%s", table.String())
	if mean < 0.95 {
		t.Errorf("mean token F1 %.3f < 0.95", mean)
	}
}

// TestCorpusChapters checks that the outlined books' chapters are their
// outline's top-level titles.
func TestCorpusChapters(t *testing.T) {
	for _, tc := range []struct {
		name string
		// top is the outline's top level, as pdfcpu reads it.
		min int
	}{
		{"freeculture.pdf", 13}, // and 4 entries that link to web sites
		{"NIST.SP.800-207.pdf", 11},
		{"acmart-sample-sigconf.pdf", 6},
		{"GeoTopo-komprimiert.pdf", 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := readCorpus(t, "books", "pdf", tc.name)
			d := parseBytes(t, data)
			m, err := testExtractor.readMeta(context.Background(), data, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Entries without a destination in the document (links to
			// web sites) cannot be chapters and are not counted.
			var top []string
			entries := promoteSingleRoot(m.outline)
			for i, e := range entries {
				if e.level != 1 {
					continue
				}
				placed := e.page >= 0
				for _, c := range entries[i+1:] {
					if c.level <= 1 || placed {
						break
					}
					placed = c.page >= 0
				}
				if placed {
					top = append(top, e.title)
				} else {
					t.Logf("top-level entry %q has no destination in the document", e.title)
				}
			}
			if len(top) < tc.min-1 {
				t.Fatalf("outline has %d top-level entries, want about %d", len(top), tc.min)
			}
			got := map[string]bool{}
			for _, c := range d.Chapters {
				got[c.Title] = true
			}
			found := 0
			for _, tt := range top {
				if got[tt] {
					found++
				} else {
					t.Logf("top-level entry %q is not a chapter", tt)
				}
			}
			share := float64(found) / float64(len(top))
			t.Logf("%d of %d top-level outline titles are chapters (%.0f%%); %d chapters", found, len(top), 100*share, len(d.Chapters))
			if share < 0.9 {
				t.Errorf("only %.0f%% of the top-level titles are chapters:\n%s", 100*share, outline(d))
			}
		})
	}
}

// TestCorpusFailures checks that the files without readable text fail
// with the reason a user needs, and never panic or hang.
func TestCorpusFailures(t *testing.T) {
	for _, tc := range []struct {
		path []string
		want error
		text string
	}{
		{[]string{"books", "pdf", "libreoffice-writer-password.pdf"}, ErrPassword, "needs a password"},
		{[]string{"books", "pdf", "c02-22-scanned.pdf"}, doc.ErrNoText, "no text layer — needs OCR"},
		{[]string{"books", "pdf", "type3_font_nomapping.pdf"}, doc.ErrNoText, "no text layer — needs OCR"},
		{[]string{"bad", "empty.pdf"}, ErrNotPDF, "empty"},
		{[]string{"bad", "header-only.pdf"}, ErrDamaged, "no objects"},
		{[]string{"bad", "ocrmypdf-invalid.pdf"}, ErrDamaged, "damaged"},
		{[]string{"bad", "png-named.pdf"}, ErrNotPDF, "PNG image"},
		{[]string{"bad", "text-named.pdf"}, ErrNotPDF, "plain text"},
		{[]string{"bad", "truncated-30pct.pdf"}, ErrDamaged, "damaged"},
	} {
		t.Run(tc.path[len(tc.path)-1], func(t *testing.T) {
			data := readCorpus(t, tc.path...)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			d, err := testExtractor.Parse(ctx, data)
			if err == nil {
				t.Fatalf("no error; %d chapters:\n%.500s", len(d.Chapters), d.Text())
			}
			if d != nil {
				t.Error("a document came back with the error")
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("error %q, want %v containing %q", err, tc.want, tc.text)
			}
			t.Logf("%v", err)
		})
	}
}
