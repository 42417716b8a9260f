package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
	"golang.org/x/text/width"

	"github.com/grimoire-search/grimoire/app"
	"github.com/grimoire-search/grimoire/handoff"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/ingest/doc"
)

// progress shows one line on stderr, when it is a terminal, that says what
// a long command is doing: the step, its count and a bar when it has a
// measure, the time since the command began, an estimate of the time left
// in the step, and what is under way (a book parsing, a batch embedding).
// It appears once the command has run for a second, so that quick runs
// stay quiet, and is drawn again every second, so that the clock moves through
// quiet stretches (a large book parsing, PDFium starting). Anywhere else
// than a terminal it shows nothing.
type progress struct {
	w  io.Writer
	fd int // stderr's, for its width
	// send, when set, takes each line instead: the work is done for
	// another command, which draws it.
	send    func(progressLine)
	enabled bool
	start   time.Time
	quit    chan struct{}
	stopped chan struct{}
	// now is the clock, which tests set.
	now func() time.Time

	mu   sync.Mutex
	line progressLine
	// stepStart is when the step clocked began: the last step shown that
	// draws its estimate from the clock.
	stepStart time.Time
	clocked   string
	drawn     bool
	lastDraw  time.Time
	finished  bool
	// pace moves OCR's estimate of the time left between its pages.
	pace ocrPace
}

// progressLine is what the line says.
type progressLine struct {
	step string // "hashing", "indexing", "querying"
	// done of total is the step's measure (files, bytes, queries); total
	// 0: none, no bar.
	done, total int64
	count       string // "book 3/12"
	now         string // what is under way
	// ownPace: the line brings its own estimate of the time left, left (0:
	// none yet), rather than one drawn from the step's clock, and leaves
	// that clock alone: OCR, measured in pages, comes and goes within
	// indexing, measured in bytes.
	ownPace bool
	left    time.Duration
}

// progressDelay is how long a command runs before its line shows.
const progressDelay = time.Second

func (a *cli) newProgress() *progress {
	p := &progress{w: a.stderr, fd: -1, start: a.started, now: time.Now}
	if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.fd, p.enabled = int(f.Fd()), true
		p.quit, p.stopped = make(chan struct{}), make(chan struct{})
		go p.tick()
	}
	return p
}

// remoteProgress is the progress of work a watcher does for another
// command: each line goes to that command, which draws it.
func remoteProgress(rep *handoff.Reporter) *progress {
	return &progress{send: func(l progressLine) {
		rep.Progress(handoff.Progress{Label: l.step, Done: l.done, Total: l.total, Count: l.count, Now: l.now, OwnPace: l.ownPace, Left: l.left})
	}}
}

// tick draws the line every second, once it is due.
func (p *progress) tick() {
	defer close(p.stopped)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// show sets the line. A new step starts its own estimate of the time left,
// unless the line brings its own.
func (p *progress) show(l progressLine) {
	if p.send != nil {
		p.send(l)
		return
	}
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if !l.ownPace && l.step != p.clocked {
		p.stepStart, p.clocked = now, l.step
	}
	if l.ownPace {
		p.pace.observe(l, now)
	}
	p.line = l
	// Changes come far faster than anyone reads; the ticker draws the
	// last one in any case.
	if now.Sub(p.lastDraw) >= 100*time.Millisecond {
		p.draw()
	}
}

// follow shows the progress of a sync: the scan, the hashing, then each
// book's ingest.
func (p *progress) follow() app.Listener {
	return app.Listener{
		Started:   func() { p.note("scanning the library", "") },
		Hashing:   func(done, total int) { p.Counted("hashing", done, total, "file") },
		Ingesting: p.Ingest,
	}
}

// Counted shows a step measured in nouns: "hashing 120/1,500 files".
func (p *progress) Counted(step string, done, total int, noun string) {
	p.show(progressLine{step: step, done: int64(done), total: int64(total), count: fmt.Sprintf("%s/%s", grouped(done), plural(total, noun))})
}

// note shows a step without a measure: "loading vectors".
func (p *progress) note(step, now string) {
	p.show(progressLine{step: step, now: now})
}

// Ingest shows where an ingest run is: the book in work and its stage,
// with the run measured by the size of its books; while OCR reads a
// book's scans, which may take hours and adds no bytes, by its pages.
func (p *progress) Ingest(g ingest.Progress) {
	if g.Stage == ingest.StageOCR {
		p.show(ocrLine(g))
		return
	}
	p.show(bookLine(g))
}

// bookLine is the line while a book is indexed: the book and its
// stage, with the run measured by the size of its books.
func bookLine(g ingest.Progress) progressLine {
	n := min(g.BooksDone+1, g.BooksTotal)
	l := progressLine{step: "indexing", done: g.BytesDone, total: g.BytesTotal, count: fmt.Sprintf("book %s/%s", grouped(n), grouped(g.BooksTotal))}
	title := fmt.Sprintf("%q", g.Book)
	switch g.Stage {
	case ingest.StageStarting:
		if g.Format == doc.PDF {
			l.now = "starting the PDF engine (first PDF only)"
		} else {
			l.now = "starting the " + g.Format + " parser"
		}
	case ingest.StageParsing:
		l.now = fmt.Sprintf("parsing %s (%s)", title, humanSize(g.Size))
	case ingest.StageContexts:
		l.now = fmt.Sprintf("%s: writing contexts for %s", title, plural(g.ChunksTotal, "chunk"))
	case ingest.StageEmbedding:
		l.now = fmt.Sprintf("%s: embedding %s/%s", title, grouped(g.ChunksDone), plural(g.ChunksTotal, "chunk"))
	case ingest.StageStatistics:
		l.count = "books " + grouped(g.BooksTotal) + "/" + grouped(g.BooksTotal)
		l.now = "updating the index's statistics"
	}
	return l
}

// ocrLine is the line while OCR reads a book's scans: its pages read of
// its pages, and the time left at this run's pace once there is one.
func ocrLine(g ingest.Progress) progressLine {
	l := progressLine{
		step: "OCR", done: int64(g.PagesDone), total: int64(g.PagesTotal),
		count:   fmt.Sprintf("%s/%s", grouped(g.PagesDone), plural(g.PagesTotal, "page")),
		now:     fmt.Sprintf("%q", g.Book),
		ownPace: true,
	}
	if g.PagesPerMinute > 0 {
		l.now += fmt.Sprintf(", %.1f pages/min", g.PagesPerMinute)
		if rest := g.PagesTotal - g.PagesDone; rest > 0 {
			l.left = time.Duration(float64(rest) / g.PagesPerMinute * float64(time.Minute))
		}
	}
	n := min(g.BooksDone+1, g.BooksTotal)
	l.now += fmt.Sprintf(", book %s/%s", grouped(n), grouped(g.BooksTotal))
	return l
}

// println prints a line of output (to w, stdout or stderr) with the
// progress line out of its way.
func (p *progress) println(w io.Writer, s string) {
	if p == nil || !p.enabled {
		fmt.Fprintln(w, s)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
	fmt.Fprintln(w, s)
	p.draw()
}

// restart starts the clock again at now for a new piece of work, as a
// watch does for each book: its line shows once that has run for
// progressDelay, and the line on screen goes meanwhile.
func (p *progress) restart(now time.Time) {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start, p.stepStart, p.clocked = now, now, ""
	p.erase()
}

// hide takes the line away until another is shown.
func (p *progress) hide() {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
}

// erase clears the line on screen and what it says. It runs under p.mu.
func (p *progress) erase() {
	p.line = progressLine{}
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// done removes the line for good.
func (p *progress) done() {
	if !p.enabled {
		return
	}
	p.mu.Lock()
	if p.finished {
		p.mu.Unlock()
		return
	}
	p.finished = true
	p.mu.Unlock()
	close(p.quit)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// draw writes the line over the one on screen, once the command has run
// for progressDelay. It runs under p.mu.
func (p *progress) draw() {
	now := p.now()
	if p.finished || p.line.step == "" || now.Sub(p.start) < progressDelay {
		return
	}
	cols := 80
	if c, _, err := term.GetSize(p.fd); err == nil && c > 0 {
		cols = c
	}
	io.WriteString(p.w, "\r"+p.text(now, cols-1)+"\x1b[K")
	p.drawn, p.lastDraw = true, now
}

// text is the line as it reads at now, in cols columns. It runs under
// p.mu.
func (p *progress) text(now time.Time, cols int) string {
	l := p.line
	if l.ownPace {
		l.left = p.pace.leftAt(now)
	}
	return l.fit(now.Sub(p.start), now.Sub(p.stepStart), cols)
}

// ocrPace keeps OCR's estimate of the time left moving between pages,
// which may each take minutes: from the estimate given with the last page
// read, the time since is taken off, and once the page under way has
// taken longer than the pace so far allows, the estimate is the pace it
// would make, were it done now. Its clock is the drawer's.
type ocrPace struct {
	total, done int64
	// start is the first line of the book's OCR; last, the last page read.
	start, last time.Time
	// read counts the pages read since start.
	read int64
	// left is the estimate given with the last page; 0: none yet.
	left time.Duration
}

// observe takes a line of OCR's progress shown at now. A line of another
// book, or of a book started again, starts the clock again.
func (o *ocrPace) observe(l progressLine, now time.Time) {
	if o.start.IsZero() || l.total != o.total || l.done < o.done {
		*o = ocrPace{total: l.total, done: l.done, start: now, last: now, left: l.left}
		return
	}
	if l.done > o.done {
		o.read += l.done - o.done
		o.done, o.last, o.left = l.done, now, l.left
	}
}

// leftAt is the estimate of the time left at now; 0 when there is none.
func (o *ocrPace) leftAt(now time.Time) time.Duration {
	if o.left <= 0 {
		return 0
	}
	left := o.left - now.Sub(o.last)
	if rest := o.total - o.done; o.read > 0 && rest > 1 {
		perPage := now.Sub(o.start) / time.Duration(o.read+1)
		left = max(left, time.Duration(rest-1)*perPage)
	}
	return max(left, 0)
}

// render writes the line: `indexing book 3/12 [=====>     ] 41%  1m12s,
// about 1m40s left  parsing "Moby-Dick" (1.2 MB)`. elapsed is the time
// since the command began; inStep, since the step did, which the
// estimate of the time left is drawn from.
func (l progressLine) render(elapsed, inStep time.Duration) string {
	return l.parts(elapsed, inStep).join()
}

// lineParts are the fields of a progress line, each written with the
// spaces that lead it, so that any may be left out.
type lineParts struct {
	head, bar, pct, clock, left, now string
}

func (l progressLine) parts(elapsed, inStep time.Duration) lineParts {
	var p lineParts
	p.head = l.step
	if l.count != "" {
		p.head += " " + l.count
	}
	if l.total > 0 {
		frac := min(float64(l.done)/float64(l.total), 1)
		const barWidth = 20
		filled := int(frac * barWidth)
		bar := strings.Repeat("=", filled)
		if filled < barWidth {
			bar += ">" + strings.Repeat(" ", barWidth-filled-1)
		}
		p.bar = " [" + bar + "]"
		p.pct = fmt.Sprintf(" %3d%%", int(frac*100))
	}
	p.clock = "  " + clock(elapsed)
	left, ok := timeLeft(l.done, l.total, inStep)
	if l.ownPace {
		left, ok = roundLeft(l.left), l.left > 0
	}
	if ok {
		p.left = ", about " + clock(left) + " left"
	}
	if l.now != "" {
		p.now = "  " + l.now
	}
	return p
}

func (p lineParts) join() string {
	return p.head + p.bar + p.pct + p.clock + p.left + p.now
}

// minName is the fewest columns of a book's name the line keeps before it
// gives up its count and its time left: less hardly names a book.
const minName = 20

// fit lays the line out in cols terminal columns. What is under way, the
// book's name above all, is what a glance at the line is for: the bar,
// the clock and the words around the time left give way first, then the
// name loses its middle, down to minName columns, before the count and
// then the time left go.
func (l progressLine) fit(elapsed, inStep time.Duration, cols int) string {
	p := l.parts(elapsed, inStep)
	fits := func() bool { return columns(p.join()) <= cols }
	for _, cut := range []func(){
		func() { p.bar = "" },
		func() { p.left = strings.Replace(p.left, ", about ", ", ", 1) },
		func() {
			if p.left != "" {
				p.clock, p.left = "", "  "+strings.TrimPrefix(p.left, ", ")
			}
		},
	} {
		if fits() {
			return p.join()
		}
		cut()
	}
	if fits() || p.now == "" {
		return fitColumns(p.join(), cols)
	}
	drops := []func(){func() {}, func() { p.head = l.step }, func() { p.clock, p.left = "", "" }}
	for i, drop := range drops {
		drop()
		room := cols - columns(p.join()) + columns(p.now)
		if now, kept := elideName(p.now, room); kept >= minName || i == len(drops)-1 {
			p.now = now
			break
		}
	}
	return fitColumns(p.join(), cols)
}

// elideName shortens s to cols columns by the middle of the first quoted
// name in it (`parsing "The Hist…Rome" (1.2 MB)`), keeping its start and
// its end, which tell editions apart, and returns it with the columns of
// the name it kept. When that is not enough, s is cut at its end.
func elideName(s string, cols int) (string, int) {
	i := strings.IndexByte(s, '"')
	quoted, err := strconv.QuotedPrefix(s[max(i, 0):])
	if i < 0 || err != nil {
		return fitColumns(s, cols), 0
	}
	name := []rune(quoted[1 : len(quoted)-1])
	over := columns(s) - cols
	if over <= 0 {
		return s, columns(string(name))
	}
	keep := columns(string(name)) - over - 1 // the ellipsis takes a column
	if keep < 2 {
		return fitColumns(s, cols), 0
	}
	// Columns from each end: wide characters count two.
	var head, tail []rune
	for used, k := 0, 0; k < len(name); k++ {
		if used += runeColumns(name[k]); used > (keep+1)/2 {
			break
		}
		head = name[:k+1]
	}
	for used, k := 0, len(name)-1; k >= 0; k-- {
		if used += runeColumns(name[k]); used > keep/2 {
			break
		}
		tail = name[k:]
	}
	// An escape cut in two would show half of it: the head does not end
	// in its backslash.
	h := strings.TrimRight(string(head), `\`)
	return fitColumns(s[:i]+`"`+h+"…"+string(tail)+`"`+s[i+len(quoted):], cols), columns(h + string(tail))
}

// timeLeft estimates the rest of a step from its pace so far; not before
// it has run a few seconds and made some progress, when a guess would be
// noise.
func timeLeft(done, total int64, inStep time.Duration) (time.Duration, bool) {
	if total <= 0 || done <= 0 || done >= total || inStep < 3*time.Second {
		return 0, false
	}
	return roundLeft(time.Duration(float64(inStep) * float64(total-done) / float64(done))), true
}

// roundLeft rounds an estimate of the time left: seconds are noise in an
// estimate of minutes.
func roundLeft(left time.Duration) time.Duration {
	if left > time.Minute {
		left = left.Round(10 * time.Second)
	} else {
		left = left.Round(time.Second)
	}
	return max(left, time.Second)
}

// clock writes a duration as a person reads it: "7s", "1m12s", "2h05m".
func clock(d time.Duration) string {
	s := int(d.Seconds())
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}

// fitColumns cuts s to at most cols terminal columns, with an ellipsis: a
// line longer than the terminal wraps, and the next draw cannot take the
// wrapped part back. East Asian wide characters take two columns.
func fitColumns(s string, cols int) string {
	if columns(s) <= cols {
		return s
	}
	used := 0
	for i, r := range s {
		if used+runeColumns(r) > cols-1 {
			return s[:i] + "…"
		}
		used += runeColumns(r)
	}
	return s
}

// columns is how many terminal columns s takes.
func columns(s string) int {
	n := 0
	for _, r := range s {
		n += runeColumns(r)
	}
	return n
}

func runeColumns(r rune) int {
	if k := width.LookupRune(r).Kind(); k == width.EastAsianWide || k == width.EastAsianFullwidth {
		return 2
	}
	return 1
}
