package ocr

import (
	"math"
	"strings"
	"testing"
)

const tsvHeader = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"

func TestParseTSV(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tsv     string
		want    string
		words   int
		conf    float64
		wantErr string
	}{
		{
			name: "lines and paragraphs",
			tsv: tsvHeader +
				"1\t1\t0\t0\t0\t0\t0\t0\t2550\t3300\t-1\t\n" +
				"2\t1\t1\t0\t0\t0\t10\t10\t500\t100\t-1\t\n" +
				"3\t1\t1\t1\t0\t0\t10\t10\t500\t100\t-1\t\n" +
				"4\t1\t1\t1\t1\t0\t10\t10\t500\t40\t-1\t\n" +
				"5\t1\t1\t1\t1\t1\t10\t10\t100\t40\t90\tZero\n" +
				"5\t1\t1\t1\t1\t2\t120\t10\t100\t40\t80\ttrust\n" +
				"4\t1\t1\t1\t2\t0\t10\t60\t500\t40\t-1\t\n" +
				"5\t1\t1\t1\t2\t1\t10\t60\t100\t40\t70\tis\n" +
				"3\t1\t1\t2\t0\t0\t10\t200\t500\t40\t-1\t\n" +
				"5\t1\t1\t2\t1\t1\t10\t200\t100\t40\t60\tNext\n" +
				"5\t1\t2\t1\t1\t1\t10\t300\t100\t40\t100\tblock\n",
			want:  "Zero trust\nis\n\nNext\n\nblock",
			words: 5, conf: 80,
		},
		{
			name:  "empty page",
			tsv:   tsvHeader + "1\t1\t0\t0\t0\t0\t0\t0\t2550\t3300\t-1\t\n",
			want:  "",
			words: 0, conf: 0,
		},
		{
			name: "noise read as punctuation is dropped, words kept",
			tsv: tsvHeader +
				"5\t1\t1\t1\t1\t1\t10\t10\t10\t10\t12\t~\n" +
				"5\t1\t1\t1\t1\t2\t30\t10\t100\t40\t25\tfaint\n" +
				"5\t1\t1\t1\t1\t3\t140\t10\t100\t40\t95\t—\n" +
				"5\t1\t1\t1\t1\t4\t140\t10\t100\t40\t-1\t \n",
			want:  "faint —",
			words: 2, conf: 60,
		},
		{
			name:  "Windows line ends",
			tsv:   strings.ReplaceAll(tsvHeader+"5\t1\t1\t1\t1\t1\t10\t10\t100\t40\t50\tword\n", "\n", "\r\n"),
			want:  "word",
			words: 1, conf: 50,
		},
		{name: "no output", tsv: "", wantErr: "no output"},
		{name: "no header", tsv: "Zero trust\n", wantErr: "not TSV"},
		{name: "short row", tsv: tsvHeader + "5\t1\t1\n", wantErr: "row 2 has 3 columns"},
		{name: "bad level", tsv: tsvHeader + "x\t1\t1\t1\t1\t1\t0\t0\t0\t0\t1\tw\n", wantErr: "level \"x\""},
		{name: "bad confidence", tsv: tsvHeader + "5\t1\t1\t1\t1\t1\t0\t0\t0\t0\tNaN\tw\n", wantErr: "confidence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseTSV(strings.NewReader(tc.tsv))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Text != tc.want || p.Words != tc.words || math.Abs(p.Confidence-tc.conf) > 1e-9 {
				t.Errorf("got %q (%d words, confidence %g), want %q (%d, %g)", p.Text, p.Words, p.Confidence, tc.want, tc.words, tc.conf)
			}
		})
	}
}

func FuzzParseTSV(f *testing.F) {
	f.Add(tsvHeader + "5\t1\t1\t1\t1\t1\t10\t10\t100\t40\t90\tZero\n5\t1\t1\t1\t2\t1\t10\t60\t100\t40\t70\tis\n")
	f.Add(tsvHeader + "1\t1\t0\t0\t0\t0\t0\t0\t2550\t3300\t-1\t\n")
	f.Add(tsvHeader + "5\t1\t1\t1\t1\t1\t0\t0\t0\t0\t1e309\tw\tx\n")
	f.Add("level\t\n\n\n5")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseTSV(strings.NewReader(s))
		if err != nil {
			return
		}
		if p.Confidence < 0 || p.Confidence > 100 || math.IsNaN(p.Confidence) {
			t.Errorf("confidence %g outside 0..100", p.Confidence)
		}
		if p.Words == 0 && p.Text != "" {
			t.Errorf("text %q from no words", p.Text)
		}
		if strings.Contains(p.Text, "\n\n\n") {
			t.Errorf("paragraphs separated by more than one blank line: %q", p.Text)
		}
	})
}

func TestLanguage(t *testing.T) {
	for tag, want := range map[string]string{
		"en": "eng", "en-US": "eng", "de": "deu", "fr-CA": "fra", "zh": "chi_sim", "zh-Hant": "chi_tra",
		"nb": "nor", "sr-Latn": "srp_latn", "": "", "not a tag!": "",
	} {
		if got := Language(tag); got != want {
			t.Errorf("Language(%q) = %q, want %q", tag, got, want)
		}
	}
}

func TestChoose(t *testing.T) {
	e := &Engine{langs: []string{"deu", "eng", "osd"}}
	for _, tc := range []struct {
		name             string
		configured       []string
		book             string
		want, note, fail string
	}{
		{name: "book's language installed", book: "de", want: "deu"},
		{name: "book's language missing", book: "fr", want: "eng", note: "tesseract-ocr-fra"},
		{name: "no language", want: "eng"},
		{name: "configured", configured: []string{"eng", "deu"}, book: "fr", want: "eng+deu"},
		{name: "configured missing", configured: []string{"chi_sim"}, fail: "tesseract-ocr-chi-sim"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, note, err := e.Choose(tc.configured, tc.book)
			if tc.fail != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fail) {
					t.Fatalf("error %v, want one naming %s", err, tc.fail)
				}
				return
			}
			if err != nil || got != tc.want || !strings.Contains(note, tc.note) || (tc.note == "") != (note == "") {
				t.Errorf("got %q, %q, %v; want %q and a note naming %q", got, note, err, tc.want, tc.note)
			}
		})
	}
}

func TestHints(t *testing.T) {
	for _, tc := range []struct{ goos, install, lang string }{
		{"linux", "apt-get install tesseract-ocr", "apt-get install tesseract-ocr-deu"},
		{"darwin", "brew install tesseract", "brew install tesseract-lang"},
		{"windows", "installer", "installer again"},
	} {
		if got := installHint(tc.goos); !strings.Contains(got, tc.install) {
			t.Errorf("%s: install hint %q, want it to say %q", tc.goos, got, tc.install)
		}
		if got := languageHint(tc.goos, "deu"); !strings.Contains(got, tc.lang) {
			t.Errorf("%s: language hint %q, want it to say %q", tc.goos, got, tc.lang)
		}
	}
}

func TestParseLangs(t *testing.T) {
	out := "List of available languages in \"/usr/share/tesseract-ocr/5/tessdata/\" (3):\neng\nosd\ndeu\n"
	if got := strings.Join(parseLangs([]byte(out)), ","); got != "deu,eng,osd" {
		t.Errorf("got %s", got)
	}
}
