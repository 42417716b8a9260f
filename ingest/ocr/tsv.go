package ocr

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// Page is the text recognised on one page image.
type Page struct {
	// Text is the page's paragraphs in reading order, separated by blank
	// lines, each paragraph's lines by a line break.
	Text string
	// Words is the number of words recognised, Confidence their mean
	// confidence, from 0 to 100 (0 when there are none).
	Words      int
	Confidence float64
}

// tsvColumns are the columns of tesseract's TSV output, in order.
var tsvColumns = []string{"level", "page_num", "block_num", "par_num", "line_num", "word_num", "left", "top", "width", "height", "conf", "text"}

// levelWord is the TSV level of a word; the other levels (page, block,
// paragraph, line) carry only boxes.
const levelWord = 5

// junkConfidence: a word of no letters or digits recognised with less
// confidence than this is a speck of noise read as punctuation.
const junkConfidence = 30

// ParseTSV reads tesseract's TSV output: one row per page, block,
// paragraph, line and word, words in reading order. It groups the words
// into lines and paragraphs. Malformed rows are an error, naming the row;
// it never panics.
func ParseTSV(r io.Reader) (Page, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var b strings.Builder
	var p Page
	var sum float64
	type key struct{ page, block, par, line int }
	var last key
	started := false
	row := 0
	for sc.Scan() {
		row++
		line := strings.TrimRight(sc.Text(), "\r")
		if row == 1 {
			if !strings.HasPrefix(line, "level\t") {
				return Page{}, errors.New("tesseract's output is not TSV: no header row")
			}
			continue
		}
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "\t", len(tsvColumns))
		if len(f) < len(tsvColumns)-1 {
			return Page{}, fmt.Errorf("tesseract's TSV row %d has %d columns, not %d", row, len(f), len(tsvColumns))
		}
		level, err := strconv.Atoi(f[0])
		if err != nil {
			return Page{}, fmt.Errorf("tesseract's TSV row %d: level %q is not a number", row, f[0])
		}
		if level != levelWord || len(f) < len(tsvColumns) {
			continue
		}
		var k key
		for i, dst := range []*int{&k.page, &k.block, &k.par, &k.line} {
			if *dst, err = strconv.Atoi(f[1+i]); err != nil {
				return Page{}, fmt.Errorf("tesseract's TSV row %d: %s %q is not a number", row, tsvColumns[1+i], f[1+i])
			}
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil || conf != conf {
			return Page{}, fmt.Errorf("tesseract's TSV row %d: confidence %q is not a number", row, f[10])
		}
		word := strings.TrimSpace(f[11])
		if word == "" || conf < 0 || (conf < junkConfidence && !strings.ContainsFunc(word, isWordRune)) {
			continue
		}
		switch {
		case !started:
		case k.page != last.page || k.block != last.block || k.par != last.par:
			b.WriteString("\n\n")
		case k.line != last.line:
			b.WriteByte('\n')
		default:
			b.WriteByte(' ')
		}
		b.WriteString(word)
		started, last = true, k
		p.Words++
		sum += min(max(conf, 0), 100)
	}
	if err := sc.Err(); err != nil {
		return Page{}, fmt.Errorf("reading tesseract's TSV: %w", err)
	}
	if row == 0 {
		return Page{}, errors.New("tesseract gave no output")
	}
	p.Text = b.String()
	if p.Words > 0 {
		p.Confidence = sum / float64(p.Words)
	}
	return p, nil
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
