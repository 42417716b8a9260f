package ocr

import (
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/text/language"
)

// InstallHint is how to install tesseract on this platform.
func InstallHint() string { return installHint(runtime.GOOS) }

func installHint(goos string) string {
	switch goos {
	case "darwin":
		return "install it with `brew install tesseract`"
	case "windows":
		return "install it with the installer from https://github.com/UB-Mannheim/tesseract/wiki and add its folder to PATH, or set [ocr] tesseract to tesseract.exe"
	default:
		return "install it with `apt-get install tesseract-ocr` (Debian, Ubuntu; `dnf install tesseract` on Fedora)"
	}
}

// LanguageHint is how to install the data for tesseract language lang
// ("deu") on this platform.
func LanguageHint(lang string) string { return languageHint(runtime.GOOS, lang) }

func languageHint(goos, lang string) string {
	switch goos {
	case "darwin":
		return "install it with `brew install tesseract-lang`"
	case "windows":
		return fmt.Sprintf("run the tesseract installer again and tick %q under additional language data", lang)
	default:
		return fmt.Sprintf("install it with `apt-get install tesseract-ocr-%s` (Debian, Ubuntu)", strings.ReplaceAll(strings.ToLower(lang), "_", "-"))
	}
}

// Language is tesseract's name for the language of a BCP 47 tag ("de" →
// "deu", "zh-Hant" → "chi_tra"), or "" when the tag names none.
func Language(tag string) string {
	t, err := language.Parse(tag)
	if err != nil || t == language.Und {
		return ""
	}
	base, _ := t.Base()
	switch base.String() {
	case "zh":
		if s, _ := t.Script(); s.String() == "Hant" {
			return "chi_tra"
		}
		return "chi_sim"
	case "no", "nb", "nn":
		return "nor"
	case "sr":
		if s, _ := t.Script(); s.String() == "Latn" {
			return "srp_latn"
		}
		return "srp"
	}
	return base.ISO3()
}

// Choose picks the languages to read a book in, joined by "+" as tesseract
// takes them: configured, when set, each of which must be installed;
// else the book's own language (a BCP 47 tag) when tesseract has it; else
// English. A configured language tesseract lacks is ErrNoLanguage, naming
// the package that brings it. When the book's language is one tesseract
// lacks, English is read and note says which package would read it
// better.
func (e *Engine) Choose(configured []string, bookLanguage string) (langs, note string, err error) {
	if len(configured) > 0 {
		for _, l := range configured {
			if !e.Has(l) {
				return "", "", fmt.Errorf("%w %q (the [ocr] languages setting): %s", ErrNoLanguage, l, LanguageHint(l))
			}
		}
		return strings.Join(configured, "+"), "", nil
	}
	l := Language(bookLanguage)
	if l != "" && e.Has(l) {
		return l, "", nil
	}
	if !e.Has("eng") {
		return "", "", fmt.Errorf("%w %q: %s", ErrNoLanguage, "eng", LanguageHint("eng"))
	}
	if l != "" && l != "eng" {
		note = fmt.Sprintf("read as English: tesseract has no data for the book's language %q; %s", l, LanguageHint(l))
	}
	return "eng", note, nil
}
