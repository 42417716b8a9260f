package epub

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// renderTOC shows entries one per line, indented by depth: "title -> href".
func renderTOC(es []tocEntry) string {
	var sb strings.Builder
	var walk func([]tocEntry, int)
	walk = func(es []tocEntry, depth int) {
		for _, e := range es {
			fmt.Fprintf(&sb, "%s%s -> %s\n", strings.Repeat("  ", depth), e.title, e.href)
			walk(e.kids, depth+1)
		}
	}
	walk(es, 0)
	return sb.String()
}

func TestParseNav(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{
			name: "typed nav among others, nested, labels from all descendants",
			body: `<nav epub:type="page-list"><ol><li><a href="a.xhtml#p1">1</a></li></ol></nav>
<nav epub:type="toc"><h1>Contents</h1><ol>
<li><a href="a.xhtml"><span class="num">1</span>
   <em>Loomings</em></a></li>
<li><span>Part <b>Two</b></span><ol><li><a href="b.xhtml#x">B</a></li><li><a href="c.xhtml"><img src="i.png" alt="Pictured"/></a></li></ol></li>
</ol></nav>`,
			want: "1 Loomings -> a.xhtml\nPart Two -> \n  B -> b.xhtml#x\n  Pictured -> c.xhtml\n",
		},
		{
			name: "another prefix for the EPUB namespace, and role",
			body: `<nav ops:type="toc"><ol><li><a href="a.xhtml">A</a></li></ol></nav>`,
			want: "A -> a.xhtml\n",
		},
		{
			name: "role doc-toc",
			body: `<nav role="doc-toc"><ul><li><a href="a.xhtml">A</a></li></ul></nav>`,
			want: "A -> a.xhtml\n",
		},
		{
			name: "untyped nav when no nav is typed toc",
			body: `<nav epub:type="landmarks"><ol><li><a href="x.xhtml">L</a></li></ol></nav><nav><ol><li><a href="a.xhtml">A</a></li></ol></nav>`,
			want: "A -> a.xhtml\n",
		},
		{
			name: "a link wrapped in a span, a label in the item itself",
			body: `<nav epub:type="toc"><ol><li><span><a href="a.xhtml">A</a></span></li><li>Bare <i>label</i><ol><li><a href="b.xhtml">B</a></li></ol></li></ol></nav>`,
			want: "A -> a.xhtml\nBare label -> \n  B -> b.xhtml\n",
		},
		{
			name: "self-closing anchors inside the nav",
			body: `<nav epub:type="toc"><a id="top"/><ol><li><a href="a.xhtml">A</a><a id="z"/></li><li><a href="b.xhtml">B</a></li></ol></nav>`,
			want: "A -> a.xhtml\nB -> b.xhtml\n",
		},
		{
			name: "no nav",
			body: `<ol><li><a href="a.xhtml">A</a></li></ol>`,
			want: "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := renderTOC(parseNav(context.Background(), []byte(page("Nav", tc.body)), 1000))
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestParseNavLimits(t *testing.T) {
	deep := `<nav epub:type="toc">` + strings.Repeat(`<ol><li><a href="a.xhtml">x</a>`, 100) + strings.Repeat(`</li></ol>`, 100) + `</nav>`
	es := parseNav(context.Background(), []byte(page("N", deep)), 1000)
	depth := 0
	for cur := es; len(cur) > 0; cur = cur[0].kids {
		depth++
	}
	if depth > maxTOCDepth {
		t.Errorf("depth %d past %d", depth, maxTOCDepth)
	}
	wide := `<nav epub:type="toc"><ol>` + strings.Repeat(`<li><a href="a.xhtml">x</a></li>`, 500) + `</ol></nav>`
	if n := len(parseNav(context.Background(), []byte(page("N", wide)), 100)); n != 100 {
		t.Errorf("%d entries kept, want 100", n)
	}
}

func TestParseNCX(t *testing.T) {
	ncx := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE ncx PUBLIC "-//NISO//DTD ncx 2005-1//EN" "http://www.daisy.org/z3986/2005/ncx-2005-1.dtd">
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
<navMap>
  <navPoint id="a" playOrder="1"><navLabel><text>Caf&eacute;&nbsp;one</text></navLabel><content src="a.xhtml#s%201"/>
    <navPoint id="b" playOrder="2"><navLabel><text>Sub</text></navLabel><content src="a.xhtml#b"/></navPoint>
  </navPoint>
  <navPoint id="c" playOrder="3"><navLabel><text>
     Two
  </text></navLabel><content src=" b.xhtml "/></navPoint>
</navMap>
<pageList><pageTarget><navLabel><text>1</text></navLabel><content src="a.xhtml#p1"/></pageTarget></pageList>
</ncx>`
	got := renderTOC(parseNCX([]byte(ncx), 1000))
	want := "Café one -> a.xhtml#s%201\n  Sub -> a.xhtml#b\nTwo -> b.xhtml\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if es := parseNCX([]byte("not xml at all <<<"), 10); len(es) != 0 {
		t.Errorf("garbage gave %q", renderTOC(es))
	}
	deep := `<ncx><navMap>` + strings.Repeat(`<navPoint><navLabel><text>x</text></navLabel><content src="a.xhtml"/>`, 5000) +
		strings.Repeat(`</navPoint>`, 5000) + `</navMap></ncx>`
	es := parseNCX([]byte(deep), 100000)
	depth, total := 0, 0
	for cur := es; len(cur) > 0; cur = cur[len(cur)-1].kids {
		depth++
		total += len(cur)
	}
	if depth > maxTOCDepth || total != 5000 {
		t.Errorf("deep NCX: depth %d, %d entries", depth, total)
	}
}

func TestResolveHref(t *testing.T) {
	tests := []struct {
		dir, href  string
		name, frag string
		ok         bool
	}{
		{"OEBPS", "ch1.xhtml", "OEBPS/ch1.xhtml", "", true},
		{"OEBPS", "Text/Chapter%201.xhtml#s%202", "OEBPS/Text/Chapter 1.xhtml", "s 2", true},
		{"OEBPS/Text", "../Images/a.png", "OEBPS/Images/a.png", "", true},
		{"OEBPS", "#only", "", "only", true},
		{"OEBPS", "./a.xhtml?x=1#f", "OEBPS/a.xhtml", "f", true},
		{"OEBPS", "/OEBPS/abs.xhtml", "OEBPS/abs.xhtml", "", true},
		{"OEBPS", "100%.xhtml", "OEBPS/100%.xhtml", "", true},
		{"OEBPS", "../../etc/passwd", "", "", false},
		{"", "../x.xhtml", "", "", false},
		{"OEBPS", "http://example.com/a.xhtml", "", "", false},
		{"OEBPS", "mailto:a@b.c", "", "", false},
		{"OEBPS", "C:/Windows/x", "", "", false},
		{"OEBPS", "//host/share", "", "", false},
		{"OEBPS", "", "", "", false},
		{"OEBPS", "a\x00b", "", "", false},
	}
	for _, tc := range tests {
		name, frag, ok := resolveHref(tc.dir, tc.href)
		if name != tc.name || frag != tc.frag || ok != tc.ok {
			t.Errorf("resolveHref(%q, %q) = %q, %q, %v; want %q, %q, %v", tc.dir, tc.href, name, frag, ok, tc.name, tc.frag, tc.ok)
		}
	}
}
