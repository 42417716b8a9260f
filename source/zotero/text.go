package zotero

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// noteText turns a note's HTML, as Zotero's editor writes it
// (`<div data-schema-version="…"><p>…</p></div>`), into plain text: the
// text of each block (paragraph, heading, list item, …) on its own,
// separated by blank lines; white space collapsed as a browser shows it,
// but within <pre>; a <br> a line break.
func noteText(src string) string {
	var (
		paras []string
		cur   strings.Builder
		space bool // white space seen since the last word
		pre   int  // depth of <pre>
		skip  int  // depth of elements whose text is not shown
	)
	flush := func() {
		if p := strings.TrimSpace(cur.String()); p != "" {
			paras = append(paras, p)
		}
		cur.Reset()
		space = false
	}
	z := html.NewTokenizer(strings.NewReader(src))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			flush()
			return strings.Join(paras, "\n\n")
		case html.TextToken:
			if skip > 0 {
				continue
			}
			text := strings.ToValidUTF8(string(z.Text()), "\uFFFD")
			if pre > 0 {
				cur.WriteString(text)
				continue
			}
			for _, r := range text {
				if unicode.IsSpace(r) {
					space = true
					continue
				}
				if space && cur.Len() > 0 && !endsWithNewline(&cur) {
					cur.WriteByte(' ')
				}
				cur.WriteRune(r)
				space = false
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case a == atom.Script || a == atom.Style || a == atom.Head || a == atom.Title:
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case a == atom.Br:
				if skip == 0 {
					cur.WriteByte('\n')
					space = false
				}
			case a == atom.Td || a == atom.Th:
				// Cells of a row read as words apart.
				space = true
			case a == atom.Pre:
				flush()
				if tt == html.StartTagToken {
					pre++
				} else if tt == html.EndTagToken && pre > 0 {
					pre--
				}
			case block(a):
				flush()
			}
		}
	}
}

func endsWithNewline(b *strings.Builder) bool {
	s := b.String()
	return s != "" && s[len(s)-1] == '\n'
}

// block reports whether the element a begins a block of its own.
func block(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Li, atom.Ul, atom.Ol, atom.Dl, atom.Dt, atom.Dd, atom.Blockquote,
		atom.Table, atom.Tr, atom.Hr, atom.Section, atom.Article, atom.Header,
		atom.Footer, atom.Aside, atom.Figure, atom.Figcaption, atom.Body, atom.Html:
		return true
	}
	return false
}

// pageIndex returns the page index, 0-based, of an annotation's position,
// `{"pageIndex":11,"rects":[…]}`, or -1 when it has none. The position may
// be cut short (it is read only so far): the page index comes first in
// Zotero's positions, and is found as long as it was read.
func pageIndex(position string) int {
	d := json.NewDecoder(strings.NewReader(position))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return -1
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return -1
		}
		key, _ := t.(string)
		if key != "pageIndex" {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return -1
			}
			continue
		}
		t, err = d.Token()
		if err != nil {
			return -1
		}
		n, ok := t.(json.Number)
		if !ok {
			return -1
		}
		f, err := n.Float64()
		// A page index beyond any book's page count is no page.
		if err != nil || f < 0 || f > 1e7 || f != math.Trunc(f) {
			return -1
		}
		return int(f)
	}
	return -1
}

// maxPrefs bounds what is read of a prefs.js, which holds a few hundred
// lines in a real profile.
const maxPrefs = 16 << 20

// BaseDirFromPrefs returns the linked attachment base directory that the
// prefs.js of a Zotero profile sets
// (`user_pref("extensions.zotero.baseAttachmentPath", "…");`), or "" when
// it sets none. The profile is not in the data directory: it is Firefox's
// kind of profile, in the user's application data.
func BaseDirFromPrefs(prefsJS string) (string, error) {
	f, err := openRegular(prefsJS)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPrefs))
	if err != nil {
		return "", err
	}
	return baseDirIn(data), nil
}

// baseDirIn finds the base directory's preference in the text of a
// prefs.js; the last setting wins, as when Firefox reads the file.
func baseDirIn(data []byte) string {
	const name = `"extensions.zotero.baseAttachmentPath"`
	found := ""
	for line := range bytes.Lines(data) {
		line = bytes.TrimSpace(line)
		rest, ok := bytes.CutPrefix(line, []byte("user_pref("))
		if !ok {
			continue
		}
		rest, ok = bytes.CutPrefix(bytes.TrimSpace(rest), []byte(name))
		if !ok {
			continue
		}
		rest, ok = bytes.CutPrefix(bytes.TrimSpace(rest), []byte(","))
		if !ok {
			continue
		}
		if v, ok := jsString(bytes.TrimSpace(rest)); ok {
			found = v
		}
	}
	return found
}

// jsString reads the JavaScript string literal that b begins with, as
// Firefox writes them in prefs.js (double quotes, backslash escapes).
func jsString(b []byte) (string, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", false
	}
	var out strings.Builder
	for i := 1; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			return out.String(), true
		case c != '\\':
			out.WriteByte(c)
			continue
		}
		i++
		if i >= len(b) {
			return "", false
		}
		switch e := b[i]; e {
		case 'n':
			out.WriteByte('\n')
		case 't':
			out.WriteByte('\t')
		case 'r':
			out.WriteByte('\r')
		case 'u':
			if i+4 >= len(b) {
				return "", false
			}
			var r rune
			for _, h := range b[i+1 : i+5] {
				v, ok := hexValue(h)
				if !ok {
					return "", false
				}
				r = r<<4 | rune(v)
			}
			out.WriteRune(r)
			i += 4
		default:
			out.WriteByte(e)
		}
	}
	return "", false
}

func hexValue(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// ProfileBaseDir returns the linked attachment base directory that the
// first Zotero profile of the user sets, or "" when none sets one: the
// profiles under home (macOS, Linux) and appData (Windows' %APPDATA%, ""
// elsewhere), in order of their folders' names.
func ProfileBaseDir(home, appData string) string {
	var patterns []string
	if home != "" {
		patterns = append(patterns,
			filepath.Join(home, "Library", "Application Support", "Zotero", "Profiles", "*", "prefs.js"),
			filepath.Join(home, ".zotero", "zotero", "*", "prefs.js"))
	}
	if appData != "" {
		patterns = append(patterns, filepath.Join(appData, "Zotero", "Zotero", "Profiles", "*", "prefs.js"))
	}
	for _, pattern := range patterns {
		found, _ := filepath.Glob(pattern)
		slices.Sort(found)
		for _, p := range found {
			if dir, err := BaseDirFromPrefs(p); err == nil && dir != "" {
				return dir
			}
		}
	}
	return ""
}
