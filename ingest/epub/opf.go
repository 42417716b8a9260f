package epub

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	goepub "github.com/taylorskalyo/goreader/epub"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/meta"
	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

const (
	containerPath  = "META-INF/container.xml"
	encryptionPath = "META-INF/encryption.xml"
)

// The package document is decoded into goreader's types where they are
// right (the container's rootfiles, a manifest item's id, href and media
// type, an itemref's idref), extended with what EPUB 3 added and goreader
// does not read. goreader's own Reader is not used: it reads every entry it
// touches without a size limit, panics when container.xml is missing, joins
// hrefs without percent-decoding them, keeps the last of several titles and
// creators, and fails the whole book on one dangling itemref.
type opfPackage struct {
	UniqueIdentifier string    `xml:"unique-identifier,attr"`
	Metadata         meta.OPF  `xml:"metadata"`
	Items            []opfItem `xml:"manifest>item"`
	Spine            opfSpine  `xml:"spine"`
}

type opfItem struct {
	goepub.Item
	// Properties holds EPUB 3 flags such as "nav".
	Properties string `xml:"properties,attr"`
}

type opfSpine struct {
	// TOC is the manifest id of the EPUB 2 NCX.
	TOC      string       `xml:"toc,attr"`
	Itemrefs []opfItemref `xml:"itemref"`
}

type opfItemref struct {
	goepub.Itemref
	Linear string `xml:"linear,attr"`
}

// encryptionDoc is META-INF/encryption.xml: which entries are encrypted.
type encryptionDoc struct {
	Data []struct {
		Ref struct {
			URI string `xml:"URI,attr"`
		} `xml:"CipherData>CipherReference"`
	} `xml:"EncryptedData"`
}

// pkg is what the book is made of, resolved to archive paths.
type pkg struct {
	path  string // the package document
	meta  meta.Info
	spine []spineItem
	// nav and ncx are the archive paths of the EPUB 3 navigation document
	// and the EPUB 2 NCX, empty when the book has none.
	nav, ncx string
	// encrypted holds the archive paths that META-INF/encryption.xml
	// lists, whatever the algorithm: a content document that is only
	// obfuscated is as unreadable as one that is encrypted.
	encrypted map[string]bool
	// encryptionUnreadable is set when META-INF/encryption.xml exists but
	// could not be read: the content may be encrypted.
	encryptionUnreadable bool
}

type spineItem struct {
	path   string
	linear bool
}

// decodeXML decodes an XML entry leniently: real books carry HTML entities
// (&nbsp;) and sloppy markup. encoding/xml never expands entities declared
// in a DTD, so an entity bomb stays a few literal characters.
func decodeXML(data []byte, v any) error {
	return xhtml.NewXMLDecoder(data).Decode(v)
}

func readPackage(a *archive) (*pkg, error) {
	if !a.has(containerPath) {
		return nil, doc.Failf(ErrNotEPUB, "not an EPUB: no %s", containerPath)
	}
	data, err := a.readFile(containerPath)
	if err != nil {
		return nil, err
	}
	var c goepub.Container
	if err := decodeXML(data, &c); err != nil {
		return nil, doc.Failf(ErrNotEPUB, "not an EPUB: %s is not valid XML: %w", containerPath, err)
	}
	opfPath, first := "", ""
	for _, rf := range c.Rootfiles {
		name, ok := entryName(strings.TrimSpace(rf.FullPath))
		if !ok {
			continue
		}
		if first == "" {
			first = name
		}
		if canon, ok := a.canonical(name); ok {
			opfPath = canon
			break
		}
	}
	switch {
	case first == "":
		return nil, doc.Failf(ErrNotEPUB, "not an EPUB: %s names no package document", containerPath)
	case opfPath == "":
		return nil, doc.Failf(ErrNotEPUB, "not an EPUB: container points to %s, which is missing", first)
	}

	p := &pkg{path: opfPath}
	if err := p.readEncryption(a); err != nil {
		return nil, err
	}
	if p.encrypted[opfPath] {
		return nil, drmError(opfPath)
	}
	data, err = a.readFile(opfPath)
	if err != nil {
		return nil, err
	}
	var opf opfPackage
	if err := decodeXML(data, &opf); err != nil {
		return nil, doc.Failf(ErrNotEPUB, "not an EPUB: package document %s is not valid XML: %w", opfPath, err)
	}
	p.meta = meta.FromOPF(&opf.Metadata, opf.UniqueIdentifier)
	p.resolve(a, &opf)
	if len(p.spine) == 0 {
		return nil, doc.Failf(ErrNotEPUB, "not an EPUB: the spine of %s lists no content document in the archive", opfPath)
	}
	return p, nil
}

// readEncryption loads META-INF/encryption.xml, if there is one.
func (p *pkg) readEncryption(a *archive) error {
	if !a.has(encryptionPath) {
		return nil
	}
	data, err := a.readFile(encryptionPath)
	if err != nil {
		if fatal(err) {
			return err
		}
		p.encryptionUnreadable = true
		return nil
	}
	var enc encryptionDoc
	if err := decodeXML(data, &enc); err != nil {
		p.encryptionUnreadable = true
		return nil
	}
	p.encrypted = make(map[string]bool, len(enc.Data))
	for _, d := range enc.Data {
		// CipherReference URIs are relative to the root of the container,
		// not to META-INF.
		name, _, ok := resolveHref("", d.Ref.URI)
		if ok && name != "" {
			if canon, found := a.canonical(name); found {
				name = canon
			}
			p.encrypted[name] = true
		}
	}
	return nil
}

func drmError(covered string) error {
	return doc.Failf(ErrDRM, "DRM-protected (META-INF/encryption.xml covers the content, %s among it); grimoire cannot read it", covered)
}

// checkDRM fails a book whose content documents, navigation or NCX are
// encrypted. Font obfuscation, which EPUB allows for embedded fonts only, is
// not DRM and leaves the text readable.
func (p *pkg) checkDRM() error {
	if len(p.encrypted) == 0 {
		return nil
	}
	for _, s := range p.spine {
		if p.encrypted[s.path] {
			return drmError(s.path)
		}
	}
	for _, n := range []string{p.nav, p.ncx} {
		if n != "" && p.encrypted[n] {
			return drmError(n)
		}
	}
	return nil
}

// resolve turns the manifest and spine into archive paths, keeping what can
// be read and dropping what cannot (dangling idrefs, remote resources,
// entries that are not in the archive).
func (p *pkg) resolve(a *archive, opf *opfPackage) {
	dir := path.Dir(p.path)
	type item struct {
		path, mediaType string
	}
	items := make(map[string]item, len(opf.Items))
	var ncxByType, navByProp string
	for _, it := range opf.Items {
		name, _, ok := resolveHref(dir, it.HREF)
		if !ok || name == "" {
			continue
		}
		canon, found := a.canonical(name)
		if !found {
			// Some tools percent-encode the href but store the name
			// encoded too.
			if raw, ok := joinRaw(dir, it.HREF); ok {
				canon, found = a.canonical(raw)
			}
		}
		if !found {
			continue
		}
		mt := strings.ToLower(strings.TrimSpace(it.MediaType))
		if _, dup := items[it.ID]; !dup {
			items[it.ID] = item{path: canon, mediaType: mt}
		}
		if navByProp == "" && hasToken(it.Properties, "nav") {
			navByProp = canon
		}
		if ncxByType == "" && mt == "application/x-dtbncx+xml" {
			ncxByType = canon
		}
	}
	p.nav = navByProp
	if it, ok := items[strings.TrimSpace(opf.Spine.TOC)]; ok {
		p.ncx = it.path
	} else {
		p.ncx = ncxByType
	}

	seen := make(map[string]bool)
	for _, ref := range opf.Spine.Itemrefs {
		it, ok := items[strings.TrimSpace(ref.IDREF)]
		if !ok || seen[it.path] || !isContent(it.mediaType, it.path) {
			continue
		}
		seen[it.path] = true
		p.spine = append(p.spine, spineItem{path: it.path, linear: strings.TrimSpace(ref.Linear) != "no"})
	}
}

// isContent reports whether a manifest item is a document whose text we
// read: XHTML or HTML, also when a tool mislabelled it as generic XML.
func isContent(mediaType, name string) bool {
	switch mediaType {
	case "application/xhtml+xml", "text/html", "application/html", "text/xhtml":
		return true
	case "", "application/xml", "text/xml", "text/plain", "application/octet-stream":
		ext := strings.ToLower(path.Ext(name))
		return ext == ".xhtml" || ext == ".html" || ext == ".htm" || ext == ".xml"
	}
	return false
}

func hasToken(list, tok string) bool {
	return slices.Contains(strings.Fields(strings.ToLower(list)), tok)
}

// uriScheme matches a URI scheme ("http:", "mailto:"); a one-letter one is
// a Windows drive letter, which is as foreign.
var uriScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// resolveHref resolves href, found in a document in directory dir, to a clean
// archive path and a fragment. The path is empty for a fragment-only href.
// ok is false for hrefs that leave the book: a scheme, or a path that climbs
// out of the archive root.
func resolveHref(dir, href string) (name, frag string, ok bool) {
	href = strings.TrimSpace(href)
	if href == "" || uriScheme.MatchString(href) || strings.HasPrefix(href, "//") {
		return "", "", false
	}
	p, frag, _ := strings.Cut(href, "#")
	p, _, _ = strings.Cut(p, "?")
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	if p == "" {
		return "", frag, true
	}
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	name, ok = joinPath(dir, p)
	return name, frag, ok
}

// joinRaw joins href's path to dir without percent-decoding it.
func joinRaw(dir, href string) (string, bool) {
	p, _, _ := strings.Cut(strings.TrimSpace(href), "#")
	p, _, _ = strings.Cut(p, "?")
	if p == "" {
		return "", false
	}
	return joinPath(dir, p)
}

func joinPath(dir, p string) (string, bool) {
	if strings.ContainsRune(p, 0) {
		return "", false
	}
	p = strings.ReplaceAll(p, `\`, "/")
	var name string
	if strings.HasPrefix(p, "/") {
		// Root-relative: the root is the container's.
		name = path.Clean(p[1:])
	} else {
		name = path.Join(dir, p)
	}
	if name == "." || name == ".." || strings.HasPrefix(name, "../") || strings.HasPrefix(name, "/") {
		return "", false
	}
	return name, true
}
