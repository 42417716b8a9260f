package xhtml

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// mathText renders a MathML <math> element as one line of plain text that
// reads the way the formula is typed: "x^2 + y^2 = 1", "a_(ij)",
// "(a + b)/2", "√(x)". An alttext attribute, when the book supplies one, is
// the author's own rendering and wins; a TeX annotation comes next.
func mathText(m *Node) string {
	if alt := CleanText(m.Attr("alttext")); alt != "" {
		return alt
	}
	if tex := texAnnotation(m, 0); tex != "" {
		return tex
	}
	var w mathWriter
	w.Node(m, 0)
	s := CleanText(string(w.buf))
	return strings.NewReplacer(" ,", ",", " ;", ";", "( ", "(", " )", ")").Replace(s)
}

func texAnnotation(n *Node, depth int) string {
	if depth > MaxTreeDepth {
		return ""
	}
	for _, k := range n.Kids {
		if k.Name == "annotation" && isTeX(k.Attr("encoding")) {
			return CleanText(TextOf(k))
		}
		if k.Name == "semantics" || k.Name == "math" {
			if t := texAnnotation(k, depth+1); t != "" {
				return t
			}
		}
	}
	return ""
}

// isTeX reports whether an annotation's encoding is TeX or LaTeX
// ("application/x-tex", "TeX", "LaTeX").
func isTeX(enc string) bool {
	enc = strings.ToLower(strings.TrimSpace(enc))
	return enc == "tex" || strings.HasSuffix(enc, "x-tex") || strings.Contains(enc, "latex")
}

type mathWriter struct {
	buf []byte
}

func (w *mathWriter) write(s string)   { w.buf = append(w.buf, s...) }
func (w *mathWriter) writeByte(c byte) { w.buf = append(w.buf, c) }

// spacedOperator reports the operators written with a space on each side;
// others (brackets, primes, factorial) hug their operands.
func spacedOperator(s string) bool {
	switch s {
	case "=", "+", "-", "−", "±", "∓", "×", "·", "÷", "<", ">", "≤", "≥", "≠", "≈", "≡", "∼",
		"≅", "→", "←", "↦", "⇒", "⇔", "⟹", "⟺", "∈", "∉", "⊂", "⊆", "⊃", "⊇", "∪", "∩", "∧", "∨",
		"∘", "⊕", "⊗", ":=":
		return true
	}
	return false
}

func (w *mathWriter) Node(n *Node, depth int) {
	if depth > MaxTreeDepth {
		return
	}
	switch n.Name {
	case "":
		// Text directly inside layout elements is the indentation of
		// pretty-printed MathML; token elements read their text below.
		return
	case "mi", "mn":
		// A name of more than one letter is a function or a word ("sin",
		// "rank"): it must not run into the symbol after it.
		if t := TextOf(n); len([]rune(t)) > 1 && n.Name == "mi" {
			w.write(" " + t + " ")
		} else {
			w.write(t)
		}
	case "mtext", "ms":
		w.write(" " + TextOf(n) + " ")
	case "mo":
		op := TextOf(n)
		switch {
		case (op == "-" || op == "−" || op == "+" || op == "±") && !w.afterOperand():
			w.write(op) // a sign, not a binary operator: "−1"
		case spacedOperator(op):
			w.write(" " + op + " ")
		case op == "," || op == ";":
			w.write(op + " ")
		default:
			w.write(op)
		}
	case "mspace":
		w.writeByte(' ')
	case "annotation", "annotation-xml", "mphantom", "none", "mprescripts", "maligngroup", "malignmark":
	case "semantics":
		// The first child is the presentation; the rest are annotations.
		if kids := elements(n); len(kids) > 0 {
			w.Node(kids[0], depth+1)
		}
	case "msub":
		w.script(n, depth, "_")
	case "msup":
		w.script(n, depth, "^")
	case "msubsup":
		kids := elements(n)
		if len(kids) >= 3 {
			w.Node(kids[0], depth+1)
			w.group(kids[1], depth, "_")
			w.group(kids[2], depth, "^")
			return
		}
		w.children(n, depth)
	case "mfrac":
		kids := elements(n)
		if len(kids) == 2 {
			w.group(kids[0], depth, "")
			w.writeByte('/')
			w.group(kids[1], depth, "")
			return
		}
		w.children(n, depth)
	case "msqrt":
		w.write("√(")
		w.children(n, depth)
		w.writeByte(')')
	case "mroot":
		kids := elements(n)
		if len(kids) == 2 {
			w.group(kids[1], depth, "")
			w.write("√(")
			w.Node(kids[0], depth+1)
			w.writeByte(')')
			return
		}
		w.children(n, depth)
	case "munder", "mover", "munderover":
		// Limits of sums and integrals, accents: the base, then what is
		// under and over it.
		for i, k := range elements(n) {
			if i > 0 {
				w.writeByte(' ')
			}
			w.Node(k, depth+1)
		}
		w.writeByte(' ')
	case "mfenced":
		open, closing := "(", ")"
		if v, ok := attrOK(n, "open"); ok {
			open = v
		}
		if v, ok := attrOK(n, "close"); ok {
			closing = v
		}
		sep := ","
		if v, ok := attrOK(n, "separators"); ok {
			// Only the first separator is used, for all gaps.
			sep = ""
			for _, r := range strings.TrimSpace(v) {
				sep = string(r)
				break
			}
		}
		w.write(open)
		for i, k := range elements(n) {
			if i > 0 && sep != "" {
				w.write(sep + " ")
			}
			w.Node(k, depth+1)
		}
		w.write(closing)
	case "mtable":
		for i, k := range elements(n) {
			if i > 0 {
				w.write("; ")
			}
			w.Node(k, depth+1)
		}
	case "mtr", "mlabeledtr":
		for i, k := range elements(n) {
			if i > 0 {
				w.write("  ")
			}
			w.Node(k, depth+1)
		}
	default:
		w.children(n, depth)
	}
}

// afterOperand reports whether what was written last ends an operand (a
// name, a number, a closing bracket), after which + and − are binary.
func (w *mathWriter) afterOperand() bool {
	b := bytes.TrimRight(w.buf, " ")
	if len(b) == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRune(b)
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(")]}|‖〉⟩!'′", r) || unicode.Is(unicode.Sk, r)
}

func (w *mathWriter) children(n *Node, depth int) {
	for _, k := range n.Kids {
		w.Node(k, depth+1)
	}
}

// script writes a base with a sub- or superscript, marked the way plain-text
// mathematics marks them: x_1, x^2.
func (w *mathWriter) script(n *Node, depth int, mark string) {
	kids := elements(n)
	if len(kids) != 2 {
		w.children(n, depth)
		return
	}
	w.Node(kids[0], depth+1)
	w.group(kids[1], depth, mark)
}

// group writes an operand after mark, in parentheses unless it is a single
// name or number. Rendering in place, rather than into a string of its own
// that is then inspected, keeps deeply nested formulas linear.
func (w *mathWriter) group(n *Node, depth int, mark string) {
	start := len(w.buf)
	w.write(mark)
	simple := simpleOperand(n, 0)
	if !simple {
		w.writeByte('(')
	}
	inner := len(w.buf)
	w.Node(n, depth+1)
	if blank(w.buf[inner:]) {
		w.buf = w.buf[:start] // an empty script writes nothing, not "x^()"
		return
	}
	if !simple {
		w.writeByte(')')
	}
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' {
			return false
		}
	}
	return true
}

// simpleOperand reports whether n is written as one token: names and
// numbers, also several in a row ("ij"), but no operator or layout.
func simpleOperand(n *Node, depth int) bool {
	switch n.Name {
	case "mi", "mn", "mtext":
		return true
	case "mrow", "mstyle":
		if depth > 2 {
			return false
		}
		for _, k := range elements(n) {
			if !simpleOperand(k, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// elements returns n's element children, skipping the white space between
// them.
func elements(n *Node) []*Node {
	out := make([]*Node, 0, len(n.Kids))
	for _, k := range n.Kids {
		if k.Name != "" {
			out = append(out, k)
		}
	}
	return out
}

func attrOK(n *Node, key string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
