package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// scriptModel is a Model in memory: it records prompts and answers from a
// function.
type scriptModel struct {
	prompts []string
	systems []string
	answer  func(n int, user string) (string, error)
}

func (m *scriptModel) Complete(_ context.Context, system, user string) (string, error) {
	m.prompts = append(m.prompts, user)
	m.systems = append(m.systems, system)
	return m.answer(len(m.prompts), user)
}

func (m *scriptModel) Info() Info { return Info{Provider: "test", Model: "script"} }

func answer(s string) func(int, string) (string, error) {
	return func(int, string) (string, error) { return s, nil }
}

func TestSummarizeSection(t *testing.T) {
	m := &scriptModel{answer: answer("Here is a summary of the section:\n\nThe section explains Rayleigh scattering.")}
	got, err := SummarizeSection(t.Context(), m, "Physics for Poets", "Physics for Poets › Light › Blue skies", "Short light is scattered more.")
	if err != nil {
		t.Fatal(err)
	}
	if got != "The section explains Rayleigh scattering." {
		t.Errorf("summary %q", got)
	}
	p := m.prompts[0]
	for _, s := range []string{"Book: Physics for Poets", "Section: Physics for Poets › Light › Blue skies",
		"<section>\nShort light is scattered more.\n</section>", summaryTask} {
		if !strings.Contains(p, s) {
			t.Errorf("prompt lacks %q:\n%s", s, p)
		}
	}
	if strings.Contains(p, "only its beginning") {
		t.Error("a short section said to be cut")
	}
	if m.systems[0] != summarySystem {
		t.Error("system prompt")
	}
}

func TestSummarizeLongSection(t *testing.T) {
	para := strings.Repeat("A sentence of the section. ", 20) + "\n\n"
	text := strings.Repeat(para, 40) // about 21,000 characters
	m := &scriptModel{answer: answer("Summary.")}
	c := Contextualizer{Model: m, MaxSectionChars: 2000}
	if _, err := c.SummarizeSection(t.Context(), "B", "H", text); err != nil {
		t.Fatal(err)
	}
	p := m.prompts[0]
	if !strings.Contains(p, "only its beginning is given") {
		t.Error("the prompt does not say the section was cut")
	}
	body := between(p, "<section>\n", "\n</section>")
	if n := utf8.RuneCountInString(body); n > 2000 || n < 1500 {
		t.Errorf("section body of %d characters", n)
	}
	if !strings.HasSuffix(body, ".") {
		t.Errorf("not cut at a break: …%q", body[len(body)-20:])
	}
}

func TestSummarizeTooLongShrinks(t *testing.T) {
	text := strings.Repeat("word ", 3000)
	m := &scriptModel{answer: func(n int, user string) (string, error) {
		if n < 3 {
			return "", ErrTooLong
		}
		return "Fits now.", nil
	}}
	c := Contextualizer{Model: m, MaxSectionChars: 8000}
	got, err := c.SummarizeSection(t.Context(), "B", "H", text)
	if err != nil || got != "Fits now." {
		t.Fatalf("got %q, %v", got, err)
	}
	lens := []int{}
	for _, p := range m.prompts {
		lens = append(lens, len(between(p, "<section>\n", "\n</section>")))
	}
	if len(lens) != 3 || !(lens[0] > lens[1] && lens[1] > lens[2]) || lens[2] > 2000 {
		t.Errorf("section lengths %v", lens)
	}
	// It gives up after two cuts.
	m = &scriptModel{answer: func(int, string) (string, error) { return "", ErrTooLong }}
	if _, err := (Contextualizer{Model: m}).SummarizeSection(t.Context(), "B", "H", text); !errors.Is(err, ErrTooLong) || len(m.prompts) != 3 {
		t.Errorf("err %v after %d calls", err, len(m.prompts))
	}
}

func TestSituateChunk(t *testing.T) {
	m := &scriptModel{answer: answer(`"This passage gives the formula for scattering intensity, part of the section's explanation of blue skies."`)}
	got, err := SituateChunk(t.Context(), m, "The section explains Rayleigh scattering.", "Physics › Light", "I ∝ 1/λ⁴")
	if err != nil {
		t.Fatal(err)
	}
	if got != "This passage gives the formula for scattering intensity, part of the section's explanation of blue skies." {
		t.Errorf("context %q", got)
	}
	p := m.prompts[0]
	for _, s := range []string{"Section: Physics › Light", "<summary>\nThe section explains Rayleigh scattering.\n</summary>",
		"<passage>\nI ∝ 1/λ⁴\n</passage>", situateTask} {
		if !strings.Contains(p, s) {
			t.Errorf("prompt lacks %q:\n%s", s, p)
		}
	}
	if m.systems[0] != situateSystem {
		t.Error("system prompt")
	}
	// Without a summary the prompt still stands.
	if _, err := SituateChunk(t.Context(), m, "", "H", "text"); err != nil || strings.Contains(m.prompts[1], "<summary>") {
		t.Errorf("no summary: %v\n%s", err, m.prompts[1])
	}
}

func TestContextualizerCaps(t *testing.T) {
	long := strings.Repeat("This is one sentence of a rambling reply. ", 40)
	m := &scriptModel{answer: answer(long)}
	c := Contextualizer{Model: m, MaxContextChars: 100}
	got, err := c.SituateChunk(t.Context(), "s", "h", "chunk")
	if err != nil {
		t.Fatal(err)
	}
	if utf8.RuneCountInString(got) > 100 || !strings.HasSuffix(got, ".") {
		t.Errorf("context %q", got)
	}
}

func TestContextualizerEmpty(t *testing.T) {
	m := &scriptModel{answer: answer("Here is the context:")}
	if _, err := SituateChunk(t.Context(), m, "s", "h", "chunk"); !errors.Is(err, ErrEmptyReply) {
		t.Errorf("err = %v", err)
	}
	n := len(m.prompts)
	if got, err := SummarizeSection(t.Context(), m, "b", "h", " \n "); got != "" || err != nil || len(m.prompts) != n {
		t.Errorf("empty section: %q, %v, %d calls", got, err, len(m.prompts)-n)
	}
	if _, err := SummarizeSection(t.Context(), nil, "b", "h", "text"); err == nil {
		t.Error("no model, no error")
	}
}

func TestCleanReply(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The chunk describes X.", "The chunk describes X."},
		{"  Here is a short context:\n\nThe chunk describes X.  ", "The chunk describes X."},
		{"Here's the succinct context for the chunk: The chunk describes X.", "The chunk describes X."},
		{"Sure! Here is the summary:\nThe section covers X.", "The section covers X."},
		{"Certainly. The section covers X.", "The section covers X."},
		{"Summary: The section covers X.", "The section covers X."},
		{"**Context:** The chunk describes X.", "The chunk describes X."},
		{"## Summary\nThe section covers X.", "The section covers X."},
		{`"The chunk describes X."`, "The chunk describes X."},
		{"“The chunk describes X.”", "The chunk describes X."},
		{"<context>The chunk describes X.</context>", "The chunk describes X."},
		{"<think>\nThe user wants a context. Let me think.\n</think>\n\nThe chunk describes X.", "The chunk describes X."},
		{"reasoning that began in the template</think>The chunk describes X.", "The chunk describes X."},
		{"<think>never finished", ""},
		{"The section covers X.\n\nLet me know if you need anything else!", "The section covers X."},
		{"The section covers:\n- X\n- Y\n1. Z", "The section covers: X Y Z"},
		{"The section covers **X** and __Y__.", "The section covers X and Y."},
		{`"X" and "Y" are discussed.`, `"X" and "Y" are discussed.`},
		{"Here is a passage from Kant on the sublime.", "Here is a passage from Kant on the sublime."},
		{"Okay", "Okay"},
		{"", ""},
		{"   \n\t ", ""},
		{"Cette section décrit la diffusion de Rayleigh.", "Cette section décrit la diffusion de Rayleigh."},
		{"这一节讲述瑞利散射。", "这一节讲述瑞利散射。"},
	}
	for _, tc := range tests {
		if got := CleanReply(tc.in, 0); got != tc.want {
			t.Errorf("CleanReply(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCapText(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"Short.", 100, "Short."},
		{"First sentence. Second sentence goes on.", 30, "First sentence."},
		{"one two three four five six", 15, "one two three"},
		{"abcdefghijklmnopqrstuvwxyz", 10, "abcdefghij"},
		{"第一句。第二句很长很长很长。", 10, "第一句。"},
		{"e.g. this is not. The end", 20, "e.g. this is not."},
	}
	for _, tc := range tests {
		if got := capText(tc.in, tc.n); got != tc.want {
			t.Errorf("capText(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestClipText(t *testing.T) {
	if s, cut := clipText("short text", 100); s != "short text" || cut {
		t.Errorf("got %q, %v", s, cut)
	}
	// Han characters count double.
	han := strings.Repeat("字", 100)
	if s, cut := clipText(han, 100); utf8.RuneCountInString(s) != 50 || !cut {
		t.Errorf("han: %d runes, cut %v", utf8.RuneCountInString(s), cut)
	}
	s, cut := clipText("First paragraph here.\n\nSecond paragraph that is long enough to be cut.", 40)
	if !cut || !utf8.ValidString(s) || len(s) > 40 {
		t.Errorf("got %q", s)
	}
	s, _ = clipText(strings.Repeat("é", 100), 31)
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) != 31 {
		t.Errorf("got %q", s)
	}
}

func TestPromptVersion(t *testing.T) {
	// The stamp relies on it; an empty or unversioned value would hide a change.
	if !strings.HasPrefix(PromptVersion, "ctx-v") {
		t.Errorf("PromptVersion %q", PromptVersion)
	}
}

// TestContextualRetrievalOverOllama runs the two prompts through the Ollama
// client against a fake server, as the pipeline will.
func TestContextualRetrievalOverOllama(t *testing.T) {
	f := newFakeOllama(t, llama())
	f.reply = func(system, user string) string {
		if strings.Contains(user, "<passage>") {
			return "Here is the context:\nThe passage defines the sublime within Kant's aesthetics."
		}
		return "Sure! The section sets out Kant's account of the sublime."
	}
	m := mustOllama(t, ollamaOpts(f, "llama3.2"))
	sum, err := SummarizeSection(t.Context(), m, "Critique of Judgment", "Critique of Judgment › Analytic of the Sublime", "We call that sublime which is absolutely great.")
	if err != nil || sum != "The section sets out Kant's account of the sublime." {
		t.Fatalf("summary %q, %v", sum, err)
	}
	ctx, err := SituateChunk(t.Context(), m, sum, "Critique of Judgment › Analytic of the Sublime", "We call that sublime which is absolutely great.")
	if err != nil || ctx != "The passage defines the sublime within Kant's aesthetics." {
		t.Fatalf("context %q, %v", ctx, err)
	}
	if !strings.Contains(f.chats[1].Messages[1].Content, sum) {
		t.Error("the summary is not in the situating prompt")
	}
}

func between(s, a, b string) string {
	_, rest, _ := strings.Cut(s, a)
	in, _, _ := strings.Cut(rest, b)
	return in
}
