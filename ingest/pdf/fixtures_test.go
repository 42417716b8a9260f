package pdf

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// The tests build their PDFs with pdfcpu's object model, so that the
// suite needs nothing outside the repository. Text is set in the standard
// 14 fonts, which PDFium knows without embedded programs.

// Fonts of every fixture, by resource name.
var fixtureFonts = map[string]string{
	"F1": "Helvetica",
	"F2": "Helvetica-Bold",
	"F3": "Times-Roman",
	"F4": "Courier",
	// FL is Times-Roman whose codes 128-130 name ligature glyphs with
	// underscores, which PDFium cannot map to Unicode by itself.
	"FL": "Times-Roman",
}

// fxPage is a page under construction: a content stream of text runs.
type fxPage struct {
	w, h    float64
	rotate  int
	content strings.Builder
	image   bool // draws a picture instead of text
}

func newPage() *fxPage { return &fxPage{w: 612, h: 792} }

// text sets s at (x, y) in font at size.
func (p *fxPage) text(font string, size, x, y float64, s string) *fxPage {
	return p.textMatrix(font, size, 1, 0, 0, 1, x, y, s)
}

// textMatrix sets s with the text matrix [a b c d e f].
func (p *fxPage) textMatrix(font string, size, a, b, c, d, e, f float64, s string) *fxPage {
	fmt.Fprintf(&p.content, "BT /%s %g Tf %g %g %g %g %g %g Tm (%s) Tj ET\n", font, size, a, b, c, d, e, f, pdfString(s))
	return p
}

// lines sets text lines top down from y, leading apart, wrapping nothing.
func (p *fxPage) lines(font string, size, x, y, leading float64, ls ...string) *fxPage {
	for i, l := range ls {
		p.text(font, size, x, y-float64(i)*leading, l)
	}
	return p
}

// pdfString escapes s for a literal string in WinAnsi encoding.
func pdfString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 128:
			b.WriteRune(r)
		case r <= 0xFF:
			fmt.Fprintf(&b, "\\%03o", r)
		case r == '’':
			b.WriteString("\\222")
		case r == '“':
			b.WriteString("\\223")
		case r == '”':
			b.WriteString("\\224")
		case r == '–':
			b.WriteString("\\226")
		case r == '—':
			b.WriteString("\\227")
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// fxEntry is an outline item; named puts its destination in the /Dests
// name tree instead of the item.
type fxEntry struct {
	title string
	level int
	page  int // 0-based
	y     float64
	named bool
}

// fxLabel is a page label range.
type fxLabel struct {
	start  int
	style  string
	prefix string
	first  int
}

type fixture struct {
	pages   []*fxPage
	outline []fxEntry
	labels  []fxLabel
	info    map[string]string
	xmp     string
	lang    string
	// classic writes a cross-reference table and no object streams.
	classic bool
}

// build writes the fixture as a PDF.
func (fx fixture) build(t testing.TB) []byte {
	t.Helper()
	x, err := pdfcpu.CreateXRefTableWithRootDict()
	if err != nil {
		t.Fatal(err)
	}
	root, err := x.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	must := func(ir *types.IndirectRef, err error) types.IndirectRef {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return *ir
	}
	fonts := types.Dict{}
	for name, base := range fixtureFonts {
		d := types.Dict{"Type": types.Name("Font"), "Subtype": types.Name("Type1"), "BaseFont": types.Name(base)}
		if name == "FL" {
			d["Encoding"] = must(x.IndRefForNewObject(types.Dict{
				"Type":         types.Name("Encoding"),
				"BaseEncoding": types.Name("WinAnsiEncoding"),
				"Differences":  types.Array{types.Integer(128), types.Name("f_i"), types.Name("f_l"), types.Name("T_h")},
			}))
		} else {
			d["Encoding"] = types.Name("WinAnsiEncoding")
		}
		fonts[name] = must(x.IndRefForNewObject(d))
	}
	resources := must(x.IndRefForNewObject(types.Dict{"Font": fonts}))
	pagesDict := types.Dict{"Type": types.Name("Pages"), "Count": types.Integer(len(fx.pages))}
	pagesRef := must(x.IndRefForNewObject(pagesDict))
	var kids types.Array
	var pageRefs []types.IndirectRef
	for _, p := range fx.pages {
		content := p.content.String()
		if p.image {
			content = imageContent()
		}
		sd, err := x.NewStreamDictForBuf([]byte(content))
		if err != nil {
			t.Fatal(err)
		}
		if err := sd.Encode(); err != nil {
			t.Fatal(err)
		}
		page := types.Dict{
			"Type":      types.Name("Page"),
			"Parent":    pagesRef,
			"MediaBox":  types.Array{types.Integer(0), types.Integer(0), types.Float(p.w), types.Float(p.h)},
			"Resources": resources,
			"Contents":  must(x.IndRefForNewObject(*sd)),
		}
		if p.image {
			page["Resources"] = imageResources(t, x)
		}
		if p.rotate != 0 {
			page["Rotate"] = types.Integer(p.rotate)
		}
		ref := must(x.IndRefForNewObject(page))
		kids = append(kids, ref)
		pageRefs = append(pageRefs, ref)
	}
	pagesDict["Kids"] = kids
	root["Pages"] = pagesRef
	x.PageCount = len(fx.pages)

	if len(fx.outline) > 0 {
		fx.addOutline(t, x, root, pageRefs)
	}
	if len(fx.labels) > 0 {
		var nums types.Array
		for _, l := range fx.labels {
			d := types.Dict{}
			if l.style != "" {
				d["S"] = types.Name(l.style)
			}
			if l.prefix != "" {
				d["P"] = types.StringLiteral(l.prefix)
			}
			if l.first > 0 {
				d["St"] = types.Integer(l.first)
			}
			nums = append(nums, types.Integer(l.start), d)
		}
		root["PageLabels"] = types.Dict{"Nums": nums}
	}
	if len(fx.info) > 0 {
		info := types.Dict{}
		for k, v := range fx.info {
			s, err := types.EscapedUTF16String(v)
			if err != nil {
				t.Fatal(err)
			}
			info[k] = types.StringLiteral(*s)
		}
		ir := must(x.IndRefForNewObject(info))
		x.Info = &ir
	}
	if fx.xmp != "" {
		sd, err := x.NewStreamDictForBuf([]byte(fx.xmp))
		if err != nil {
			t.Fatal(err)
		}
		sd.Dict["Type"] = types.Name("Metadata")
		sd.Dict["Subtype"] = types.Name("XML")
		if err := sd.Encode(); err != nil {
			t.Fatal(err)
		}
		root["Metadata"] = must(x.IndRefForNewObject(*sd))
	}
	if fx.lang != "" {
		root["Lang"] = types.StringLiteral(fx.lang)
	}
	conf := model.NewDefaultConfiguration()
	conf.Optimize = false
	conf.OptimizeBeforeWriting = false
	if fx.classic {
		conf.WriteObjectStream = false
		conf.WriteXRefStream = false
	}
	var buf bytes.Buffer
	if err := api.WriteContext(pdfcpu.CreateContext(x, conf), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func (fx fixture) addOutline(t testing.TB, x *model.XRefTable, root types.Dict, pages []types.IndirectRef) {
	t.Helper()
	top := types.Dict{"Type": types.Name("Outlines")}
	topRef, err := x.IndRefForNewObject(top)
	if err != nil {
		t.Fatal(err)
	}
	named := types.Array{}
	type item struct {
		d   types.Dict
		ref types.IndirectRef
	}
	items := make([]item, len(fx.outline))
	for i, e := range fx.outline {
		dest := types.Array{pages[e.page], types.Name("XYZ"), types.Integer(0), types.Float(e.y), types.Integer(0)}
		d := types.Dict{"Title": types.StringLiteral(pdfString(e.title))}
		if e.named {
			name := fmt.Sprintf("dest.%d", i)
			named = append(named, types.StringLiteral(name), dest)
			d["A"] = types.Dict{"S": types.Name("GoTo"), "D": types.StringLiteral(name)}
		} else {
			d["Dest"] = dest
		}
		ref, err := x.IndRefForNewObject(d)
		if err != nil {
			t.Fatal(err)
		}
		items[i] = item{d, *ref}
	}
	// Link each item to its parent and siblings.
	parents := make([]int, len(items))
	for i, e := range fx.outline {
		parents[i] = -1
		for j := i - 1; j >= 0; j-- {
			if fx.outline[j].level < e.level {
				parents[i] = j
				break
			}
		}
	}
	lastChild := map[int]int{}
	for i := range items {
		p := parents[i]
		pd := top
		if p >= 0 {
			pd = items[p].d
		}
		if p >= 0 {
			items[i].d["Parent"] = items[p].ref
		} else {
			items[i].d["Parent"] = *topRef
		}
		if prev, ok := lastChild[p]; ok {
			items[prev].d["Next"] = items[i].ref
			items[i].d["Prev"] = items[prev].ref
		} else {
			pd["First"] = items[i].ref
		}
		pd["Last"] = items[i].ref
		lastChild[p] = i
	}
	top["Count"] = types.Integer(len(items))
	root["Outlines"] = *topRef
	if len(named) > 0 {
		root["Names"] = types.Dict{"Dests": types.Dict{"Names": named}}
	}
}

// imageContent paints a small grey image: a page without text.
func imageContent() string { return "q 200 0 0 200 100 400 cm /Im1 Do Q\n" }

func imageResources(t testing.TB, x *model.XRefTable) types.Dict {
	t.Helper()
	px := bytes.Repeat([]byte{0x80}, 16*16)
	sd, err := x.NewStreamDictForBuf(px)
	if err != nil {
		t.Fatal(err)
	}
	sd.Dict["Type"] = types.Name("XObject")
	sd.Dict["Subtype"] = types.Name("Image")
	sd.Dict["Width"] = types.Integer(16)
	sd.Dict["Height"] = types.Integer(16)
	sd.Dict["ColorSpace"] = types.Name("DeviceGray")
	sd.Dict["BitsPerComponent"] = types.Integer(8)
	if err := sd.Encode(); err != nil {
		t.Fatal(err)
	}
	ir, err := x.IndRefForNewObject(*sd)
	if err != nil {
		t.Fatal(err)
	}
	return types.Dict{"XObject": types.Dict{"Im1": *ir}}
}

// encrypt returns data encrypted with AES-256 (or RC4-128) and the given
// passwords; an empty user password opens without asking.
func encrypt(t testing.TB, data []byte, user, owner string, aes bool) []byte {
	t.Helper()
	var conf *model.Configuration
	if aes {
		conf = model.NewAESConfiguration(user, owner, 256)
	} else {
		conf = model.NewRC4Configuration(user, owner, 128)
	}
	var out bytes.Buffer
	if err := api.Encrypt(bytes.NewReader(data), &out, conf); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// prose returns n words of filler in lines of 11 words; every ninth word
// is a tag with a number, so a test can tell where each ended up.
func prose(tag string, n int) []string { return proseLines(tag, n, 11) }

func proseLines(tag string, n, perLine int) []string {
	words := strings.Fields("the quick brown fox jumps over the lazy dog while a patient reader follows every line of this careful sentence")
	var ls []string
	var cur []string
	for i := range n {
		w := words[i%len(words)]
		if i%9 == 0 {
			w = fmt.Sprintf("%s%d", tag, i/9)
		}
		cur = append(cur, w)
		if len(cur) == perLine {
			ls = append(ls, strings.Join(cur, " "))
			cur = nil
		}
	}
	if len(cur) > 0 {
		ls = append(ls, strings.Join(cur, " ")+".")
	}
	return ls
}

// xmpPacket is a minimal XMP packet with a title and creators.
func xmpPacket(title string, creators ...string) string {
	var li strings.Builder
	for _, c := range creators {
		fmt.Fprintf(&li, "<rdf:li>%s</rdf:li>", c)
	}
	return `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title><rdf:Alt><rdf:li xml:lang="de">Der Titel</rdf:li><rdf:li xml:lang="x-default">` + title + `</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq>` + li.String() + `</rdf:Seq></dc:creator>
<dc:language><rdf:Bag><rdf:li>en-GB</rdf:li></rdf:Bag></dc:language>
</rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`
}
