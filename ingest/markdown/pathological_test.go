package markdown

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestPathologicalInputs feeds shapes that make parsers slow or blow up
// their output. Each must parse, keep the invariants and finish well inside
// the bound; the bound is loose so that only a return to super-linear cost
// fails it.
func TestPathologicalInputs(t *testing.T) {
	const n = 20000
	var nested strings.Builder
	for i := range 300 {
		nested.WriteString(strings.Repeat(" ", 2*i))
		nested.WriteString("- x\n")
	}
	cases := []struct{ name, src string }{
		{"quote markers on one line", strings.Repeat(">", n) + " x\n"},
		{"list markers on one line", strings.Repeat("- ", n) + "x\n"},
		{"ordered markers on one line", strings.Repeat("1. ", n) + "x\n"},
		{"mixed markers on one line", strings.Repeat("> - ", n/4) + "x\n"},
		{"long spaced thematic break", strings.Repeat("- ", n) + "\n"},
		{"indented nested lists", nested.String()},
		{"open brackets", strings.Repeat("[", n) + "x" + strings.Repeat("](u)", n)},
		{"unclosed emphasis", strings.Repeat("*a ", n) + strings.Repeat("_b ", n)},
		{"unclosed code spans", strings.Repeat("`a ", n)},
		{"unclosed tags", strings.Repeat("<a ", n)},
		{"references", strings.Repeat("[a]: b\n", n) + strings.Repeat("[a] ", n)},
		{"wide table", "|" + strings.Repeat("a|", 1000) + "\n|" + strings.Repeat("-|", 1000) + "\n" + strings.Repeat("|"+strings.Repeat("b|", 1000)+"\n", 100)},
		{"many headings", strings.Repeat("# h\n## s\n### t\n#### u\nx\n", n/4)},
		{"yaml alias expansion", "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n---\nx\n"},
		{"lone CRs", strings.Repeat("a\r", n)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			d, err := Parse(context.Background(), []byte(tc.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("took %v", el)
			}
			checkInvariants(t, d, []byte(tc.src))
			if out := len(d.Text()); out > 4*len(tc.src) {
				t.Errorf("%d bytes of text from %d bytes of input", out, len(tc.src))
			}
		})
	}
}
