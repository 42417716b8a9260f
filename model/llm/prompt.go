package llm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PromptVersion names the prompts of this file and the cleaning of their
// replies. Any change to what a model is asked, or to what is kept of its
// answer, must change it: it goes into the index's stamp, so that contexts
// written under other prompts are detected.
const PromptVersion = "ctx-v1"

// Default bounds, in characters (see Contextualizer).
const (
	DefaultMaxSectionChars = 6000
	DefaultMaxChunkChars   = 3000
	DefaultMaxSummaryChars = 1200
	DefaultMaxContextChars = 400
)

// The prompts, after Anthropic's Contextual Retrieval: instead of the whole
// document for every chunk (far too long for a laptop's model and context),
// the book is read one section at a time, once, into a summary; each chunk
// is then situated against its section's summary and heading path. Texts are
// fenced in tags so that the model can tell instructions from the book, and
// every prompt asks for the answer alone, in the book's language, since the
// reply is indexed beside the chunk for both full-text and vector search.
const (
	summarySystem = "You summarize one section of a book for a search index. " +
		"The summary is never shown to readers: it is given, with each passage of the section, " +
		"to a writer who explains where the passage belongs. " +
		"Say what the section covers and name the specific people, places, terms, works and claims it deals with. " +
		"Write plain prose in the language of the section, with no title, list, preamble or comment of your own."

	summaryTask = "Summarize this section in three to five sentences. Reply with the summary only."

	situateSystem = "You write search context for passages of a book. " +
		"Given the summary of a section and one passage from it, you say in one or two sentences " +
		"where the passage sits in the section and what it is about, naming the subjects, people and terms " +
		"it refers to but may leave implicit, so that a search for them finds it. " +
		"Write in the language of the passage. Reply with those sentences only: " +
		"no preamble, no quotation of the passage, no comment."

	situateTask = "Write one or two short sentences that situate this passage within its section, " +
		"to help a search find it. Reply with those sentences only."
)

// summaryPrompt is the user message asking for a section's summary; cut
// says that text is only the section's beginning.
func summaryPrompt(book, heading, text string, cut bool) string {
	var b strings.Builder
	if book != "" {
		fmt.Fprintf(&b, "Book: %s\n", oneLine(book))
	}
	if heading != "" {
		fmt.Fprintf(&b, "Section: %s\n", oneLine(heading))
	}
	fmt.Fprintf(&b, "\n<section>\n%s\n</section>\n\n", text)
	if cut {
		b.WriteString("The section is longer than this: only its beginning is given above. " +
			"Summarize what is given and do not guess at the rest.\n\n")
	}
	b.WriteString(summaryTask)
	return b.String()
}

// situatePrompt is the user message asking for a chunk's context.
func situatePrompt(summary, heading, chunk string, cut bool) string {
	var b strings.Builder
	if heading != "" {
		fmt.Fprintf(&b, "Section: %s\n\n", oneLine(heading))
	}
	if summary != "" {
		fmt.Fprintf(&b, "<summary>\n%s\n</summary>\n\n", summary)
	}
	fmt.Fprintf(&b, "Here is the passage to situate within that section:\n<passage>\n%s\n</passage>\n\n", chunk)
	if cut {
		b.WriteString("The passage is longer than this: only its beginning is given above.\n\n")
	}
	b.WriteString(situateTask)
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Contextualizer writes the summaries and contexts of Contextual Retrieval
// with a model, within bounds. Zero bounds take the defaults. It holds no
// state of its own and is safe for concurrent use if its Model is.
type Contextualizer struct {
	Model Model
	// MaxSectionChars bounds the section text of a summary prompt. A longer
	// section is cut at a paragraph or sentence break before the bound,
	// and the prompt says so. Han, kana and Hangul characters count double,
	// since each costs a token or more, where a Latin word of five or six
	// letters costs one or two.
	MaxSectionChars int
	// MaxChunkChars bounds the chunk text of a situating prompt, likewise.
	MaxChunkChars int
	// MaxSummaryChars caps a kept summary (and the summary put into a
	// situating prompt); MaxContextChars a kept context. Replies are cut
	// at a sentence end within the cap.
	MaxSummaryChars int
	MaxContextChars int
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

// SummarizeSection asks m for the summary of a section with the default
// bounds; see Contextualizer.SummarizeSection.
func SummarizeSection(ctx context.Context, m Model, book, heading, text string) (string, error) {
	return Contextualizer{Model: m}.SummarizeSection(ctx, book, heading, text)
}

// SituateChunk asks m for the situating context of a chunk with the default
// bounds; see Contextualizer.SituateChunk.
func SituateChunk(ctx context.Context, m Model, summary, heading, chunk string) (string, error) {
	return Contextualizer{Model: m}.SituateChunk(ctx, summary, heading, chunk)
}

// SummarizeSection returns a summary of a section of book, whose heading path
// is heading ("Book › Chapter › Section"), cleaned (see CleanReply) and
// capped. A section without text has no summary: "" and no call. When the
// model says the prompt is too long, the section is cut shorter, twice at
// most, before ErrTooLong is returned. An empty reply is ErrEmptyReply.
func (c Contextualizer) SummarizeSection(ctx context.Context, book, heading, text string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", nil
	}
	return c.ask(ctx, summarySystem, orDefault(c.MaxSectionChars, DefaultMaxSectionChars),
		orDefault(c.MaxSummaryChars, DefaultMaxSummaryChars), text,
		func(body string, cut bool) string { return summaryPrompt(book, heading, body, cut) })
}

// SituateChunk returns one or two sentences that situate chunk within its
// section, given the section's summary (may be empty) and heading path,
// cleaned and capped. Errors are as for SummarizeSection.
func (c Contextualizer) SituateChunk(ctx context.Context, summary, heading, chunk string) (string, error) {
	if strings.TrimSpace(chunk) == "" {
		return "", nil
	}
	summary, _ = clipText(strings.TrimSpace(summary), orDefault(c.MaxSummaryChars, DefaultMaxSummaryChars))
	return c.ask(ctx, situateSystem, orDefault(c.MaxChunkChars, DefaultMaxChunkChars),
		orDefault(c.MaxContextChars, DefaultMaxContextChars), chunk,
		func(body string, cut bool) string { return situatePrompt(summary, heading, body, cut) })
}

// minInput is the shortest input a too-long prompt is cut down to: below
// it, the model's context is too small to be of use.
const minInput = 500

func (c Contextualizer) ask(ctx context.Context, system string, limit, keep int, text string, prompt func(string, bool) string) (string, error) {
	if c.Model == nil {
		return "", errors.New("no model configured")
	}
	text = strings.TrimSpace(text)
	for tries := 0; ; tries++ {
		body, cut := clipText(text, limit)
		reply, err := c.Model.Complete(ctx, system, prompt(body, cut))
		if errors.Is(err, ErrTooLong) && tries < 2 && limit/2 >= minInput {
			limit /= 2
			continue
		}
		if err != nil {
			return "", err
		}
		out := CleanReply(reply, keep)
		if out == "" {
			return "", fmt.Errorf("%s: %w", c.Model.Info().Model, ErrEmptyReply)
		}
		return out, nil
	}
}

// weight is what a rune counts against a character bound: scripts written
// without spaces cost about a token per character, so they count double.
func weight(r rune) int {
	if r >= 0x2E80 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r >= 0xFF00 && r <= 0xFFEF) {
		return 2
	}
	return 1
}

// clipText returns the start of s within limit characters (weighted), cut at
// the last paragraph break, else sentence end, else space in the last fifth
// of it, and whether it cut.
func clipText(s string, limit int) (string, bool) {
	n, end := 0, len(s)
	for i, r := range s {
		n += weight(r)
		if n > limit {
			end = i
			break
		}
	}
	if end == len(s) {
		return s, false
	}
	head := s[:end]
	floor := len(head) * 4 / 5
	for _, sep := range []string{"\n\n", ". ", "。", "! ", "? ", "\n", " "} {
		if i := strings.LastIndex(head, sep); i >= floor && i > 0 {
			return strings.TrimSpace(head[:i+len(strings.TrimRight(sep, " \n"))]), true
		}
	}
	return strings.TrimSpace(head), true
}

var (
	thinkBlock = regexp.MustCompile(`(?is)<think(?:ing)?>.*?</think(?:ing)?>`)
	thinkOpen  = regexp.MustCompile(`(?is)<think(?:ing)?>.*$`)
	thinkClose = regexp.MustCompile(`(?is)^.*</think(?:ing)?>`)
	// Preambles small models put before the answer: "Here is a summary of
	// the section:", "Sure! ", "Certainly, here's the context:".
	preambleLine = regexp.MustCompile(`(?i)^(?:here(?:'s| is| are)|below is|sure|certainly|of course|okay|ok)\b[^\n]*[:：]\s*\n`)
	preambleHead = regexp.MustCompile(`(?i)^(?:(?:sure|certainly|of course|okay|ok)[!.,]?\s+)?(?:here(?:'s| is| are)|below is)\b[^:\n]{0,120}[:：]\s*`)
	courtesy     = regexp.MustCompile(`(?i)^(?:sure|certainly|of course|okay|ok)[!.,]\s*`)
	label        = regexp.MustCompile(`(?i)^[*_#\s]*(?:section summary|summary|situating context|chunk context|context|answer|response)[*_\s]*[:：][*_\s]*`)
	wrapperTag   = regexp.MustCompile(`(?i)^<(context|summary|answer|passage|response)>\s*(.*?)\s*</(?:context|summary|answer|passage|response)>$`)
	openTag      = regexp.MustCompile(`(?i)^<(?:context|summary|answer|response)>\s*`)
	closeTag     = regexp.MustCompile(`(?i)\s*</(?:context|summary|answer|response)>$`)
	chatter      = regexp.MustCompile(`(?i)^(?:let me know|i hope|feel free|note:|please note|if you)`)
	mdHeading    = regexp.MustCompile(`^#{1,6}\s`)
	bullet       = regexp.MustCompile(`(?m)^\s*(?:[-*•]|\d+[.)])\s+`)
)

// quotePairs are the quotes a reply may come wrapped in.
var quotePairs = [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}, {"‘", "’"}, {"«", "»"}, {"„", "“"}, {"「", "」"}, {"`", "`"}}

// CleanReply turns a model's reply into text fit to index: reasoning
// (<think>…</think>), preambles ("Here is the context:"), labels
// ("Summary:"), wrapping quotes and tags, markdown emphasis and list
// markers, and closing chatter ("Let me know if…") are dropped, whitespace
// is collapsed to one line, and the result is capped at maxChars characters
// at a sentence end where there is one (0: no cap). It may return "".
func CleanReply(reply string, maxChars int) string {
	s := strings.ReplaceAll(reply, "\r\n", "\n")
	s = thinkBlock.ReplaceAllString(s, "")
	s = thinkClose.ReplaceAllString(s, "")
	s = thinkOpen.ReplaceAllString(s, "")
	s = strings.TrimSpace(s)
	// Closing chatter is a paragraph of its own.
	paras := strings.Split(s, "\n\n")
	for len(paras) > 1 && chatter.MatchString(strings.TrimSpace(paras[len(paras)-1])) {
		paras = paras[:len(paras)-1]
	}
	s = strings.TrimSpace(strings.Join(paras, "\n\n"))
	for range 3 {
		before := s
		if first, rest, ok := strings.Cut(s, "\n"); ok && mdHeading.MatchString(first) {
			s = strings.TrimSpace(rest)
		}
		s = preambleLine.ReplaceAllString(s, "")
		s = preambleHead.ReplaceAllString(s, "")
		s = courtesy.ReplaceAllString(s, "")
		s = label.ReplaceAllString(s, "")
		if m := wrapperTag.FindStringSubmatch(s); m != nil {
			s = m[2]
		}
		s = openTag.ReplaceAllString(s, "")
		s = closeTag.ReplaceAllString(s, "")
		s = unquote(strings.TrimSpace(s))
		if s == before {
			break
		}
	}
	s = bullet.ReplaceAllString(s, "")
	s = strings.NewReplacer("**", "", "__", "").Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	return capText(s, maxChars)
}

func unquote(s string) string {
	for _, q := range quotePairs {
		if len(s) >= len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			inner := s[len(q[0]) : len(s)-len(q[1])]
			// "A" and "B" is not a quoted reply.
			if !strings.Contains(inner, q[0]) && !strings.Contains(inner, q[1]) {
				return strings.TrimSpace(inner)
			}
		}
	}
	return s
}

// capText cuts s to at most n runes: after the last sentence end in the
// second half of them, else at the last space there, else after any
// sentence end, else where the cap falls.
func capText(s string, n int) string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	end := 0
	for i := range s {
		if n == 0 {
			end = i
			break
		}
		n--
	}
	head := s[:end]
	best := -1
	for i, r := range head {
		switch r {
		case '.', '!', '?', '。', '！', '？':
			j := i + utf8.RuneLen(r)
			if j == len(head) || head[j] == ' ' || r >= 0x3000 {
				best = j
			}
		}
	}
	if best >= len(head)/2 {
		return strings.TrimSpace(head[:best])
	}
	if i := strings.LastIndexByte(head, ' '); i > len(head)/2 {
		return strings.TrimSpace(head[:i])
	}
	if best > 0 {
		// Text without spaces (Chinese, Japanese): any sentence end beats
		// a cut mid-word.
		return strings.TrimSpace(head[:best])
	}
	return strings.TrimSpace(head)
}
