package retrieve

import (
	"context"
	"strings"

	"github.com/grimoire-search/grimoire/fault"
)

// Gate is how sure of a passage a search must be to offer it unasked, as
// the prompt hook does with every prompt a user types: no model chose the
// words, most prompts are not about the library at all, and a wrong
// passage costs context on every turn. So the gate is stricter than the
// search's own verdict.
type Gate struct {
	Name string
	// Off offers nothing.
	Off bool
	// Coverage is the least share of the prompt's distinctive words a
	// passage must hold.
	Coverage float64
	// Words is the least weight of the prompt's words a passage must hold,
	// counted in words the library never uses (the rarest): "looks good,
	// commit it" is all covered by a passage on commits, and still says
	// too little to be about it.
	Words float64
	// AllowMissing offers passages even when a word of the prompt is in no
	// book ("fix the flaky pytest"): such a prompt is rarely about the
	// library.
	AllowMissing bool
}

// The gates, strictest first. Calibrated on ordinary coding-assistant
// prompts, which should get nothing, against book questions asked alone,
// which should get the passage that answers them, and questions no book
// answers: the dev prompts and questions and the calibration sets of
// bench/calibration, 130 prompts, 95 answerable questions and 60
// unanswerable ones in all. Normal is silent on 98 % of the prompts and
// 78 % of the unanswerable questions, and adds the passage that answers
// 54 % of the answerable ones; strict 99 %, 90 % and 40 %; loose, the
// search's own verdict, 78 %, 58 % and 64 %.
func gates() []Gate {
	return []Gate{
		{Name: "strict", Coverage: 0.6, Words: 1.5},
		{Name: "normal", Coverage: 0.5, Words: 1.25},
		{Name: "loose", Coverage: NoMatchCoverage, AllowMissing: true},
		{Name: "off", Off: true},
	}
}

// DefaultGate is the gate of the prompt hook unless configured.
const DefaultGate = "normal"

// GateNamed returns the gate of a name, or an Invalid error that lists them.
func GateNamed(name string) (Gate, error) {
	var names []string
	for _, g := range gates() {
		if g.Name == name {
			return g, nil
		}
		names = append(names, g.Name)
	}
	return Gate{}, fault.Errorf(fault.Invalid, "unknown gate %q: want %s", name, strings.Join(names, ", "))
}

// GateNames lists the gates, strictest first.
func GateNames() []string {
	var out []string
	for _, g := range gates() {
		out = append(out, g.Name)
	}
	return out
}

// Recall searches the library for a prompt nobody phrased for it and
// returns at most limit passages that pass the gate g, best first: none
// when the search finds no answer, and none at all under most gates when
// a word of the prompt is in no book. Each passage's text is cut to the
// excerpt of at most excerptRunes that holds the most of the prompt's
// words (see Excerpt; weighing them by their rarity found the answer no
// more often).
func (l *Library) Recall(ctx context.Context, prompt string, g Gate, limit, excerptRunes int) ([]HitView, error) {
	if g.Off {
		return nil, nil
	}
	var out []HitView
	err := l.Searcher.withState(ctx, func(ctx context.Context) (err error) {
		out, err = l.recall(ctx, prompt, g, limit, excerptRunes)
		return err
	})
	return out, err
}

func (l *Library) recall(ctx context.Context, prompt string, g Gate, limit, excerptRunes int) ([]HitView, error) {
	if !g.AllowMissing {
		// Most prompts to a coding assistant name something no book
		// holds: one such word settles it before the search. (The search
		// would first read a misspelt word as the library spells it; a
		// prompt needs no such help to be left alone.)
		missing, err := l.Searcher.missingWords(ctx, strings.TrimSpace(prompt), 1)
		if err != nil || len(missing) > 0 {
			return nil, err
		}
	}
	// Where vectors only fill the places full text leaves (the built-in
	// embedder's), the passages they find hold none of the prompt's rarer
	// words and pass no gate: the hook, a process per prompt, does not
	// load them.
	hits, err := l.Searcher.Search(ctx, Query{Text: prompt, Limit: noMatchDepth, textOnly: true})
	if err != nil || NoMatch(hits) || !g.AllowMissing && len(hits[0].Missing) > 0 {
		return nil, err
	}
	var out []Hit
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		if h.Coverage >= g.Coverage && h.heldWords >= g.Words {
			out = append(out, h)
		}
	}
	if len(out) == 0 && g.AllowMissing {
		// The search found an answer its words do not show (a reranker's
		// verdict): its best passage.
		out = hits[:1]
	}
	for i := range out {
		// On one line: the excerpt is of what a reader sees.
		out[i].Text = Excerpt(strings.Join(strings.Fields(out[i].Text), " "), prompt, excerptRunes)
	}
	return hitViews(out, nil), nil
}
