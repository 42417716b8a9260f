package main

import (
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress draws a bar on stderr, only when stderr is a terminal and only
// once an operation has run for a second, so quick runs and pipes stay
// quiet.
type progress struct {
	a       *app
	enabled bool
	start   time.Time

	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	label string
	max   int
}

func (a *app) newProgress() *progress {
	return &progress{a: a, enabled: a.stderrIsTerminal(), start: time.Now()}
}

// set shows done of total for the step called label.
func (p *progress) set(label string, done, total int) {
	if !p.enabled || time.Since(p.start) < time.Second {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil || p.label != label || p.max != total {
		if p.bar != nil {
			p.bar.Finish()
		}
		p.label, p.max = label, total
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.a.stderr),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	p.bar.Set(done)
}

// done removes the bar.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}
