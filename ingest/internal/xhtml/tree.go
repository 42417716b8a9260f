package xhtml

import (
	"bytes"
	"context"
	"strings"

	"golang.org/x/net/html"
)

// Node is an element or a text of a small document tree, built for the
// parts that are easier to read as a tree than as a stream: the navigation
// document and MathML.
type Node struct {
	Name  string // element name; "" for text
	Text  string
	Attrs []html.Attribute
	Kids  []*Node
}

// Attr returns the value of the attribute key, "" when it has none.
func (n *Node) Attr(key string) string {
	for _, a := range n.Attrs {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// Bounds on a tree, so that hostile markup costs little: nodes past
// maxTreeNodes are dropped, and elements nested deeper than MaxTreeDepth are
// attached to their ancestor at that depth.
const (
	maxTreeNodes = 200000
	// MaxTreeDepth is also how deep a walk over a tree need go.
	MaxTreeDepth = 128
)

// voidElement reports the elements that never have content, whether or
// not they are written self-closing.
func voidElement(s string) bool {
	switch s {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
		"source", "track", "wbr",
		// MOBI6's page break, written unclosed.
		"mbp:pagebreak":
		return true
	}
	return false
}

// treeAttr reports the attributes that the readers of trees look at; the
// rest (class, style, layout) are not stored.
func treeAttr(key []byte) bool {
	switch string(key) {
	case "href", "role", "alt", "alttext", "encoding", "open", "close", "separators":
		return true
	}
	return bytes.HasSuffix(key, []byte(":type"))
}

// newTokenizer returns a tokenizer set for XHTML: CDATA sections are text,
// as they are in XML.
func newTokenizer(data []byte) *html.Tokenizer {
	z := html.NewTokenizer(bytes.NewReader(blankInternalSubset(data)))
	z.AllowCDATA(true)
	return z
}

// blankInternalSubset returns data with the internal subset of its
// DOCTYPE (<!DOCTYPE html [ <!ENTITY …> ]>) turned to spaces. The HTML
// tokenizer ends a DOCTYPE at its first '>', which would leave the rest
// of the subset, down to "]>", as text. Spaces keep every byte where it
// was, for the readers that keep offsets; data is copied only when it
// has a subset.
func blankInternalSubset(data []byte) []byte {
	// A DOCTYPE comes before the root element, after an XML declaration
	// and comments.
	i := bytes.IndexByte(data, '<')
	for i >= 0 && i+1 < len(data) && (data[i+1] == '?' || data[i+1] == '!') {
		if len(data) >= i+9 && bytes.EqualFold(data[i+2:i+9], []byte("DOCTYPE")) {
			return blankSubsetAt(data, i+9)
		}
		end := bytes.IndexByte(data[i+1:], '<')
		if end < 0 {
			return data
		}
		i += 1 + end
	}
	return data
}

// blankSubsetAt blanks the internal subset of the DOCTYPE whose name and
// identifiers start at data[i].
func blankSubsetAt(data []byte, i int) []byte {
	var quote byte
	for ; i < len(data); i++ {
		c := data[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return data
		case c == '[':
			end := subsetEnd(data, i+1)
			if end < 0 {
				return data
			}
			out := bytes.Clone(data)
			for j := i; j <= end; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			return out
		}
	}
	return data
}

// subsetEnd returns the index of the ']' that closes an internal subset
// starting at data[i], passing over quoted entity values and comments,
// which may hold '>' and ']'; -1 when the subset never closes.
func subsetEnd(data []byte, i int) int {
	var quote byte
	for ; i < len(data); i++ {
		c := data[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case bytes.HasPrefix(data[i:], []byte("<!--")):
			end := bytes.Index(data[i+4:], []byte("-->"))
			if end < 0 {
				return -1
			}
			i += 4 + end + 2
		case c == ']':
			return i
		}
	}
	return -1
}

// selfClosed handles a self-closing tag the way XHTML means it. The HTML
// tokenizer would treat the text after <title/> or <script/> as the
// element's raw content, swallowing the rest of the document.
func selfClosed(z *html.Tokenizer) {
	z.NextIsNotRawText()
}

// ParseTree reads a whole document into a tree under a root Node with no
// name.
func ParseTree(ctx context.Context, data []byte) *Node {
	root := &Node{}
	budget := maxTreeNodes
	buildTree(ctx, newTokenizer(data), root, "", &budget, true)
	return root
}

// buildTree reads tokens from z into root's children until the end tag
// named stop closes root (or, with stop empty, until the input ends). A
// self-closing tag is an empty element, as in XML; an end tag closes the
// innermost open element of its name and is ignored when none is open.
// budget counts down the nodes that may still be stored. Text that is only
// white space is kept when keepSpace is set: between inline elements it
// separates words, but in MathML it is only indentation. A done ctx ends
// the tree where it is.
func buildTree(ctx context.Context, z *html.Tokenizer, root *Node, stop string, budget *int, keepSpace bool) {
	stack := []*Node{root}
	var names []string // names of the open elements below root
	add := func(n *Node) {
		if *budget <= 0 {
			return
		}
		*budget--
		parent := stack[len(stack)-1]
		parent.Kids = append(parent.Kids, n)
	}
	for tok := 0; ; tok++ {
		if tok%ctxCheckEvery == 0 && ctx.Err() != nil {
			return
		}
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return
		case html.TextToken:
			t := z.Text()
			if len(bytes.TrimSpace(t)) == 0 {
				if !keepSpace {
					continue
				}
				t = []byte(" ")
			}
			add(&Node{Text: string(t)})
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			n := &Node{Name: tagName(name)}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if treeAttr(k) {
					n.Attrs = append(n.Attrs, html.Attribute{Key: string(k), Val: string(v)})
				}
			}
			add(n)
			if tt == html.SelfClosingTagToken {
				selfClosed(z)
				continue
			}
			if voidElement(n.Name) {
				continue
			}
			if len(names) < MaxTreeDepth {
				stack = append(stack, n)
				names = append(names, n.Name)
			}
			// Deeper elements are kept but never opened: what they hold
			// goes to the deepest open element, and their end tags find no
			// match and are ignored.
		case html.EndTagToken:
			name, _ := z.TagName()
			i := len(names) - 1
			for ; i >= 0; i-- {
				if names[i] == string(name) {
					break
				}
			}
			if i < 0 {
				if stop != "" && string(name) == stop {
					return
				}
				continue
			}
			names = names[:i]
			stack = stack[:i+1]
		}
	}
}

// TextOf returns the text of n and its descendants with white space
// collapsed; images contribute their alt text.
func TextOf(n *Node) string {
	var sb strings.Builder
	var walk func(*Node, int)
	walk = func(n *Node, depth int) {
		if depth > MaxTreeDepth+1 {
			return
		}
		if n.Name == "" {
			sb.WriteString(n.Text)
			return
		}
		switch n.Name {
		case "script", "style", "rt", "rp":
			return
		case "img":
			sb.WriteString(n.Attr("alt"))
			return
		case "br":
			sb.WriteByte(' ')
			return
		}
		for _, k := range n.Kids {
			walk(k, depth+1)
		}
	}
	walk(n, 0)
	return CleanText(sb.String())
}
