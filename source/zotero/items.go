package zotero

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// assemble makes the items out of the rows read: every regular item and
// every standalone attachment with a file, outside the trash.
func (r *reader) assemble() ([]Item, error) {
	type keyed struct {
		lib  int64
		item Item
	}
	var out []keyed
	n := 0
	for _, it := range r.items {
		if n++; n%1024 == 0 {
			if err := r.ctx.Err(); err != nil {
				return nil, err
			}
		}
		// An item of a type the database does not name is damage, not
		// an item Zotero shows.
		if it.trashed || it.typ == "" {
			continue
		}
		switch {
		case regular(it.typ):
			out = append(out, keyed{it.lib, r.regularItem(it)})
		case it.typ == typeAttachment && it.att != nil && it.att.standalone:
			if item, ok := r.standaloneItem(it); ok {
				out = append(out, keyed{it.lib, item})
			}
		}
	}
	// Keys are unique within a library only; the library orders the rare
	// key two libraries share.
	slices.SortFunc(out, func(a, b keyed) int {
		return cmp.Or(strings.Compare(a.item.Key, b.item.Key), cmp.Compare(a.lib, b.lib))
	})
	items := make([]Item, len(out))
	for i, k := range out {
		items[i] = k.item
	}
	slices.SortFunc(r.problems, func(a, b Problem) int {
		return cmp.Or(strings.Compare(a.Reason, b.Reason), strings.Compare(a.Path, b.Path))
	})
	return items, nil
}

func (r *reader) regularItem(it *itemRow) Item {
	f := it.fields
	item := Item{
		Key:         it.key,
		ItemType:    it.typ,
		Title:       pick(f, "title", "caseName", "nameOfAct", "subject"),
		Creators:    creatorNames(it.creators),
		Date:        dateText(pick(f, "date", "dateDecided", "dateEnacted", "issueDate")),
		Publication: pick(f, "publicationTitle", "bookTitle", "proceedingsTitle", "websiteTitle", "blogTitle", "forumTitle", "encyclopediaTitle", "dictionaryTitle", "programTitle"),
		Publisher:   pick(f, "publisher", "university", "institution", "company", "label", "distributor", "studio", "network"),
		DOI:         cmp.Or(f["DOI"], doiInExtra(f["extra"])),
		ISBN:        f["ISBN"],
		URL:         f["url"],
		Abstract:    f["abstractNote"],
		Language:    f["language"],
		Tags:        distinct(it.tags),
		Collections: r.collections(it),
		Modified:    it.modified,
	}
	var notes []*noteRow
	for _, n := range it.notes {
		if !n.item.trashed {
			notes = append(notes, n)
		}
	}
	slices.SortFunc(notes, func(a, b *noteRow) int {
		return cmp.Or(a.item.added.Compare(b.item.added), strings.Compare(a.item.key, b.item.key))
	})
	for _, n := range notes {
		item.Notes = append(item.Notes, Note{Key: n.item.key, Title: n.title, Text: noteText(n.html)})
		item.Modified = later(item.Modified, n.item.modified)
	}
	var atts []*attRow
	for _, a := range it.atts {
		if !a.item.trashed {
			atts = append(atts, a)
		}
	}
	slices.SortFunc(atts, func(a, b *attRow) int {
		return cmp.Or(cmp.Compare(kindRank(a.contentType), kindRank(b.contentType)),
			a.item.added.Compare(b.item.added), strings.Compare(a.item.key, b.item.key))
	})
	for _, a := range atts {
		if att, ok := r.resolve(a, it.key); ok {
			item.Attachments = append(item.Attachments, att)
		}
		item.Modified = later(item.Modified, a.item.modified)
		item.Annotations = r.annotations(item.Annotations, a, &item.Modified)
	}
	return item
}

// standaloneItem makes an item of an attachment without a parent, as
// Zotero shows it: the item is its file, so one that does not resolve
// to a file is left out (and reported).
func (r *reader) standaloneItem(it *itemRow) (Item, bool) {
	att, ok := r.resolve(it.att, "")
	if !ok {
		return Item{}, false
	}
	item := Item{
		Key:         it.key,
		ItemType:    typeAttachment,
		Title:       cmp.Or(att.Title, filepath.Base(att.Path)),
		URL:         it.fields["url"],
		Tags:        distinct(it.tags),
		Collections: r.collections(it),
		Attachments: []Attachment{att},
		Modified:    it.modified,
	}
	item.Annotations = r.annotations(nil, it.att, &item.Modified)
	return item, true
}

// annotations appends the annotations on a, in their order in the
// document, to out, and moves modified to the latest of theirs.
func (r *reader) annotations(out []Annotation, a *attRow, modified *time.Time) []Annotation {
	var list []*annotRow
	for _, an := range a.annots {
		if !an.item.trashed {
			list = append(list, an)
		}
	}
	// sortIndex is Zotero's key for the order in the document: page,
	// offset, top, zero-padded, so that its strings sort as the
	// positions do.
	slices.SortFunc(list, func(x, y *annotRow) int {
		return cmp.Or(strings.Compare(x.order, y.order), strings.Compare(x.item.key, y.item.key))
	})
	for _, an := range list {
		out = append(out, Annotation{
			Key: an.item.key, Attachment: a.item.key, Kind: an.kind,
			Text: an.text, Comment: an.comment, PageLabel: an.label,
			PageIndex: pageIndex(an.position), Color: an.color,
		})
		*modified = later(*modified, an.item.modified)
	}
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// pick returns the first of the fields named that has a value.
func pick(f map[string]string, names ...string) string {
	for _, n := range names {
		if v := f[n]; v != "" {
			return v
		}
	}
	return ""
}

// dateText returns the date in ISO 8601 as far as Zotero knows it
// ("2019-03" of "2019-03-00 March 2019": Zotero stores a sortable form, its
// unknown parts zero, a space, then what the user wrote), or what the user
// wrote when Zotero could not read it as a date.
func dateText(v string) string {
	if len(v) < 10 || !sqlDate(v[:10]) || (len(v) > 10 && v[10] != ' ') {
		return strings.TrimSpace(v)
	}
	iso := strings.TrimSuffix(strings.TrimSuffix(v[:10], "-00"), "-00")
	if iso == "0000" {
		return strings.TrimSpace(v[min(len(v), 11):])
	}
	return iso
}

func sqlDate(s string) bool {
	for i := range len(s) {
		c := s[i]
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// doiPattern finds a DOI that the Extra field carries, as Zotero writes
// one there for item types without a DOI field ("DOI: 10.1000/xyz").
var doiPattern = regexp.MustCompile(`(?im)^\s*DOI:\s*(10\.\S+)\s*$`)

func doiInExtra(extra string) string {
	if m := doiPattern.FindStringSubmatch(extra); m != nil {
		return m[1]
	}
	return ""
}

// creatorNames returns the authors, else the editors, else every
// creator, "First Last" or a single-field name, in Zotero's order.
func creatorNames(cs []creatorRow) []string {
	for _, role := range []string{"author", "editor", ""} {
		var names []string
		for _, c := range cs {
			if role != "" && c.role != role {
				continue
			}
			if n := c.name(); n != "" {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			return names
		}
	}
	return nil
}

func (c creatorRow) name() string {
	first, last := strings.TrimSpace(c.first), strings.TrimSpace(c.last)
	switch {
	case c.single || first == "":
		return cmp.Or(last, first)
	case last == "":
		return first
	}
	return first + " " + last
}

// distinct returns ss sorted, without repeats.
func distinct(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

func (r *reader) collections(it *itemRow) []string {
	var out []string
	for _, c := range it.colls {
		out = append(out, r.paths[c])
	}
	return distinct(out)
}

// kindRank orders attachments by content type as Zotero picks the best
// one: PDF, EPUB, HTML snapshot, the rest.
func kindRank(contentType string) int {
	ct, _, _ := strings.Cut(contentType, ";")
	switch strings.ToLower(strings.TrimSpace(ct)) {
	case "application/pdf":
		return 0
	case "application/epub+zip":
		return 1
	case "text/html", "application/xhtml+xml":
		return 2
	}
	return 3
}

// Zotero's link modes: how an attachment's file is kept.
const (
	importedFile = 0 // a file copied into storage/<key>/
	importedURL  = 1 // a snapshot of a web page, in storage/<key>/
	linkedFile   = 2 // a file elsewhere, named by its path
	linkedURL    = 3 // a link to a web page: no file
)

// resolve returns the file of the attachment a of the item owner ("" for
// a standalone attachment), or false when it has none: a link, or a file
// that cannot be found, which is reported as a Problem.
func (r *reader) resolve(a *attRow, owner string) (Attachment, bool) {
	att := Attachment{
		Key:         a.item.key,
		Title:       a.item.fields["title"],
		ContentType: strings.TrimSpace(a.contentType),
		Linked:      a.linkMode == linkedFile,
	}
	var (
		p   string
		why string
	)
	switch a.linkMode {
	case importedFile, importedURL:
		p, why = r.storagePath(a.item.key, a.path)
	case linkedFile:
		p, why = r.linkedPath(a.path)
	default:
		// A link to a web page, an image embedded in a note, or a mode
		// of a later Zotero: nothing to read.
		return Attachment{}, false
	}
	if why == "" {
		fi, err := os.Stat(p)
		switch {
		case err != nil && os.IsNotExist(err):
			why = "file not found"
		case err != nil:
			why = err.Error()
		case !fi.Mode().IsRegular():
			why = "not a regular file"
		}
	}
	if why != "" {
		r.problems = append(r.problems, Problem{Item: cmp.Or(owner, a.item.key), Path: cmp.Or(p, a.path), Reason: attachmentName(owner, a.item.key) + ": " + why})
		return Attachment{}, false
	}
	att.Path = p
	return att, true
}

func attachmentName(owner, key string) string {
	if owner == "" {
		return fmt.Sprintf("attachment %s", key)
	}
	return fmt.Sprintf("item %s, attachment %s", owner, key)
}

// storagePath resolves the stored path of an imported file,
// "storage:name.pdf", to the file in storage/<key>/, or says why not. A
// path that leaves that folder is refused: the database is data, and
// what it names there is read as a book.
func (r *reader) storagePath(key, stored string) (string, string) {
	rel, ok := strings.CutPrefix(stored, "storage:")
	if !ok {
		return "", fmt.Sprintf("imported file stored as %q, not as storage:<name>", stored)
	}
	if !validKey(key) {
		return "", fmt.Sprintf("attachment key %q cannot name a folder in storage", key)
	}
	rel = filepath.FromSlash(rel)
	if rel == "" || !filepath.IsLocal(rel) {
		return "", fmt.Sprintf("path %q escapes storage/%s", stored, key)
	}
	return filepath.Join(r.dir, "storage", key, rel), ""
}

// linkedPath resolves the stored path of a linked file: absolute, or
// "attachments:rel/name.pdf" below the base directory.
func (r *reader) linkedPath(stored string) (string, string) {
	if rel, ok := strings.CutPrefix(stored, "attachments:"); ok {
		if r.base == "" {
			return "", "linked file relative to Zotero's base directory for linked files, which grimoire is not told: set [zotero] base_dir"
		}
		rel = filepath.FromSlash(rel)
		if rel == "" || !filepath.IsLocal(rel) {
			return "", fmt.Sprintf("path %q escapes the base directory", stored)
		}
		return filepath.Join(r.base, rel), ""
	}
	if stored == "" || !filepath.IsAbs(stored) {
		return "", fmt.Sprintf("linked file stored as %q, not as an absolute path", stored)
	}
	return filepath.Clean(stored), ""
}

// validKey reports whether key can be a folder's name in storage: Zotero's
// keys are 8 letters and digits.
func validKey(key string) bool {
	if key == "" || len(key) > 32 {
		return false
	}
	for i := range len(key) {
		c := key[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}
