package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlText returns the readable text of a fragment of raw HTML: tags are
// dropped, entities decoded, an image's alt text kept (as for a Markdown
// image), and script or style content skipped. Block-level elements and <br>
// end lines; other white space collapses to single spaces. In inline mode
// only <br> ends a line, since the fragment sits inside a paragraph.
func htmlText(s string, inline bool) string {
	if inline && !hasPrefixFold(s, "<br") && !hasPrefixFold(s, "<img") {
		// Inline raw HTML is a single tag or comment; only these two carry
		// text, and a tokenizer per <span> would cost more than the rest.
		return ""
	}
	if !strings.ContainsAny(s, "<&") {
		if inline {
			return s
		}
		return collapseLines(s)
	}
	var sb strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	skip := 0      // depth inside elements whose content is not text
	cellStart := 0 // where the current table row's text began
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			// io.EOF, or malformed input: what was read so far is the text.
			return finishHTML(sb.String(), inline)
		case html.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if isSkipped(a) {
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
				continue
			}
			if skip > 0 {
				continue
			}
			switch {
			case a == atom.Br:
				sb.WriteByte('\n')
			case a == atom.Img && tt != html.EndTagToken && hasAttr:
				if alt := attr(z, "alt"); alt != "" {
					sb.WriteString(oneLine(alt))
				}
			case inline:
			case a == atom.Td || a == atom.Th:
				if tt != html.EndTagToken && len(strings.TrimSpace(sb.String()[cellStart:])) > 0 {
					sb.WriteString(" | ")
				}
			case a == atom.Tr:
				sb.WriteByte('\n')
				cellStart = sb.Len()
			case isBlockElement(a):
				sb.WriteByte('\n')
			}
		}
	}
}

// attr returns the value of the named attribute of the current tag.
func attr(z *html.Tokenizer, want string) string {
	for {
		k, v, more := z.TagAttr()
		if string(k) == want {
			return strings.TrimSpace(string(v))
		}
		if !more {
			return ""
		}
	}
}

func finishHTML(s string, inline bool) string {
	if inline {
		// Keep the surrounding spacing: the fragment sits between words.
		return s
	}
	return collapseLines(s)
}

// collapseLines collapses white space inside each line and drops blank
// lines.
func collapseLines(s string) string {
	var out []string
	for ln := range strings.SplitSeq(s, "\n") {
		if ln = oneLine(ln); ln != "" {
			out = append(out, ln)
		}
	}
	return strings.Join(out, "\n")
}

func isSkipped(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Template, atom.Svg, atom.Math, atom.Head:
		return true
	}
	return false
}

func isBlockElement(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Caption,
		atom.Center, atom.Dd, atom.Details, atom.Dialog, atom.Div, atom.Dl, atom.Dt,
		atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Form,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header, atom.Hr,
		atom.Li, atom.Main, atom.Nav, atom.Ol, atom.P, atom.Pre, atom.Section,
		atom.Summary, atom.Table, atom.Tbody, atom.Tfoot, atom.Thead, atom.Ul:
		return true
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
