package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/internal/childproc"
)

// ErrNotInstalled: no tesseract command was found. Its message says how to
// install one on this platform.
var ErrNotInstalled = errors.New("tesseract is not installed")

// ErrNoLanguage: tesseract has no data for a language asked for. The
// message names the package that brings it.
var ErrNoLanguage = errors.New("tesseract has no data for the language")

// Engine is a tesseract command that works, with the languages it has data
// for. It is safe for concurrent use: each page runs its own process.
type Engine struct {
	path  string
	langs []string
}

// Find finds tesseract: at path when one is configured (a command name or
// a file), else on PATH, and asks it for its languages, which proves it
// runs. A missing command is ErrNotInstalled with the platform's install
// command in the message.
func Find(ctx context.Context, path string) (*Engine, error) {
	name := path
	if name == "" {
		name = "tesseract"
	}
	found, err := exec.LookPath(name)
	if err != nil {
		if path != "" {
			return nil, fmt.Errorf("%w at %s (the [ocr] tesseract setting): %s", ErrNotInstalled, path, InstallHint())
		}
		return nil, fmt.Errorf("%w: %s", ErrNotInstalled, InstallHint())
	}
	e := &Engine{path: found}
	out, err := e.run(ctx, nil, "--list-langs")
	if err != nil {
		return nil, fmt.Errorf("%s does not run: %w", found, err)
	}
	e.langs = parseLangs(out)
	return e, nil
}

// parseLangs reads --list-langs: a header line, then one language a line.
func parseLangs(out []byte) []string {
	var langs []string
	for i, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if i == 0 && strings.HasPrefix(l, "List of") || l == "" || strings.ContainsAny(l, " :\"") {
			continue
		}
		langs = append(langs, l)
	}
	slices.Sort(langs)
	return langs
}

// Path is the command that runs.
func (e *Engine) Path() string { return e.path }

// Languages are the languages tesseract has data for ("eng", "deu",
// "osd"), sorted.
func (e *Engine) Languages() []string { return slices.Clone(e.langs) }

// Has reports whether tesseract has data for lang.
func (e *Engine) Has(lang string) bool { return slices.Contains(e.langs, lang) }

// Recognize reads the text of a grayscale page image drawn at dpi, in
// langs ("eng", "eng+deu"). A page set sideways or upside down is turned
// first when tesseract has its orientation data ("osd"). One tesseract
// process runs, single-threaded, until it is done or ctx ends.
func (e *Engine) Recognize(ctx context.Context, img *image.Gray, dpi int, langs string) (Page, error) {
	if img.Rect.Empty() {
		return Page{}, errors.New("the page image is empty")
	}
	for _, l := range strings.Split(langs, "+") {
		if !e.Has(l) {
			return Page{}, fmt.Errorf("%w %q: %s", ErrNoLanguage, l, LanguageHint(l))
		}
	}
	// Page segmentation 1 is automatic layout with orientation and script
	// detection; 3 is the same without it.
	psm := "1"
	if !e.Has("osd") {
		psm = "3"
	}
	out, err := e.run(ctx, pgm(img), "-", "-", "--psm", psm, "--dpi", strconv.Itoa(max(dpi, 70)), "-l", langs, "tsv")
	if err != nil {
		return Page{}, err
	}
	return ParseTSV(bytes.NewReader(out))
}

// run runs tesseract with args, stdin as its input, and returns what it
// wrote on stdout.
func (e *Engine) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, e.path, args...)
	// Pages run in parallel processes, each on one core: tesseract's own
	// threads only make them fight.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdin = stdin
	return childproc.Output(ctx, cmd, "tesseract", 3)
}

// pgm encodes img as a binary PGM, which tesseract reads with no decoding
// cost.
func pgm(img *image.Gray) io.Reader {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	header := fmt.Appendf(nil, "P5\n%d %d\n255\n", w, h)
	if img.Stride == w {
		return io.MultiReader(bytes.NewReader(header), bytes.NewReader(img.Pix[:w*h]))
	}
	buf := make([]byte, 0, len(header)+w*h)
	buf = append(buf, header...)
	for y := range h {
		buf = append(buf, img.Pix[y*img.Stride:y*img.Stride+w]...)
	}
	return bytes.NewReader(buf)
}
