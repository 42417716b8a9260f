package markdown

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// frontMatter is the book metadata a front matter block may carry.
type frontMatter struct {
	title    string
	authors  []string
	language string
	// catalog holds tags, keywords and categories as tags, the date, the
	// publisher, the series and the ISBN or DOI.
	catalog doc.Catalog
}

// splitFrontMatter separates a YAML ("---") or TOML ("+++") front matter
// block at the very start of src from the Markdown after it. It returns the
// metadata, the body, and the file line on which the body starts.
//
// A block that does not decode is still dropped when it looks like metadata
// (its first entry is a "key:" or "key ="): it was never meant as text, and
// showing it would put configuration into the index. One that does not look
// like metadata is left alone, because "---" on the first line is also a
// legal thematic break, and the rest may be prose under a setext heading.
func splitFrontMatter(src []byte) (frontMatter, []byte, int) {
	first, rest, ok := bytes.Cut(src, []byte{'\n'})
	if !ok {
		return frontMatter{}, src, 1
	}
	var closers []string
	isTOML := false
	switch string(bytes.TrimRight(first, " \t")) {
	case "---":
		closers = []string{"---", "..."}
	case "+++":
		closers, isTOML = []string{"+++"}, true
	default:
		return frontMatter{}, src, 1
	}

	content, bodyStart, found := closingLine(rest, closers)
	if !found {
		return frontMatter{}, src, 1
	}
	bodyStart += len(first) + 1
	bodyLine := 1 + bytes.Count(src[:bodyStart], []byte{'\n'})

	m, err := decodeMeta(content, isTOML)
	switch {
	case err == nil && m != nil:
		return metaFrom(m), src[bodyStart:], bodyLine
	case err == nil && len(bytes.TrimSpace(content)) == 0:
		return frontMatter{}, src[bodyStart:], bodyLine
	case err != nil && looksLikeMeta(content, isTOML):
		return frontMatter{}, src[bodyStart:], bodyLine
	}
	return frontMatter{}, src, 1
}

// closingLine finds the first line of s that is one of closers. It returns
// the text before that line and the offset just past it.
func closingLine(s []byte, closers []string) (content []byte, end int, found bool) {
	off := 0
	for off <= len(s) {
		ln := s[off:]
		next := len(s) + 1
		if i := bytes.IndexByte(ln, '\n'); i >= 0 {
			ln, next = ln[:i], off+i+1
		}
		t := string(bytes.TrimRight(ln, " \t"))
		for _, c := range closers {
			if t == c {
				return s[:off], min(next, len(s)), true
			}
		}
		if next > len(s) {
			break
		}
		off = next
	}
	return nil, 0, false
}

// decodeMeta decodes front matter into a map. It returns nil and no error
// for content that decodes to something other than a mapping.
func decodeMeta(content []byte, isTOML bool) (m map[string]any, err error) {
	// Both decoders are well tested, but this runs on whatever a library
	// folder holds; a decoder panic must cost the metadata, not the book.
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("front matter decoder failed: %v", r)
		}
	}()
	if isTOML {
		if err := toml.Unmarshal(content, &m); err != nil {
			return nil, fmt.Errorf("toml front matter: %w", err)
		}
		return m, nil
	}
	var v any
	if err := yaml.Unmarshal(content, &v); err != nil {
		return nil, fmt.Errorf("yaml front matter: %w", err)
	}
	return asMap(v), nil
}

// asMap returns v as a string-keyed map, or nil when it is not a mapping.
func asMap(v any) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = x
		}
		return m
	}
	return nil
}

// looksLikeMeta reports whether the first entry of a block that failed to
// decode reads like a metadata key.
func looksLikeMeta(content []byte, isTOML bool) bool {
	for ln := range strings.SplitSeq(string(content), "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" || ln[0] == '#' {
			continue
		}
		if isTOML && ln[0] == '[' {
			return true
		}
		sep := ":"
		if isTOML {
			sep = "="
		}
		key, _, ok := strings.Cut(ln, sep)
		return ok && isKey(strings.TrimSpace(key))
	}
	return false
}

func isKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, r := range strings.Trim(k, `"'`) {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-. ", r)) {
			return false
		}
	}
	return true
}

// metaFrom picks the fields grimoire uses. Keys match case-insensitively,
// since hand-written front matter is not consistent about it.
func metaFrom(m map[string]any) frontMatter {
	var fm frontMatter
	var authors []any
	// Sorted keys make the result independent of map order: "author"
	// comes before "authors", "lang" before "language".
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		switch strings.ToLower(k) {
		case "title":
			if fm.title == "" {
				fm.title = scalar(v)
			}
		case "author", "authors":
			authors = append(authors, v)
		case "lang", "language":
			if fm.language == "" {
				fm.language = languageTag(scalar(v))
			}
		case "tags", "keywords", "categories", "subject", "subjects":
			for _, t := range tags(v) {
				fm.catalog.AddKeywords(strings.TrimPrefix(t, "#"))
			}
		case "date", "published":
			if fm.catalog.Published == "" {
				fm.catalog.Published = doc.DatePart(fmt.Sprint(v))
			}
		case "publisher":
			if fm.catalog.Publisher == "" {
				fm.catalog.Publisher = scalar(v)
			}
		case "series":
			if fm.catalog.Series == "" {
				fm.catalog.Series = scalar(v)
			}
		case "series_index", "series-index":
			fm.catalog.SeriesIndex, _ = strconv.ParseFloat(scalar(v), 64)
		case "isbn", "doi":
			fm.catalog.SetIdentifier(strings.ToLower(k), scalar(v))
		}
	}
	fm.catalog = fm.catalog.Clean()
	seen := map[string]bool{}
	for _, a := range authors {
		for _, name := range names(a) {
			if !seen[name] {
				seen[name] = true
				fm.authors = append(fm.authors, name)
			}
		}
	}
	return fm
}

// tags reads a tags field: a list, or one string of them.
func tags(v any) []string {
	if list, ok := v.([]any); ok {
		var out []string
		for _, x := range list {
			if s := scalar(x); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	if s := scalar(v); s != "" {
		return []string{s}
	}
	return nil
}

// names reads an author field: a name, a list of names, or entries with a
// "name" key (as in CITATION-style and some site generators).
func names(v any) []string {
	switch v := v.(type) {
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, names(x)...)
		}
		return out
	case map[string]any, map[any]any:
		for k, x := range asMap(v) {
			if strings.EqualFold(k, "name") {
				return names(x)
			}
		}
		return nil
	}
	if s := scalar(v); s != "" {
		return []string{s}
	}
	return nil
}

// scalar renders a string, number or boolean value as one line of text; a
// title such as 1984 decodes as a number.
func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return oneLine(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// languageTag returns s as a canonical BCP 47 tag, or "" when it is not one
// ("English" is not, and guessing would put a wrong filter value in the
// index).
func languageTag(s string) string {
	if s == "" {
		return ""
	}
	t, err := language.Parse(s)
	if err != nil || t == language.Und {
		return ""
	}
	return t.String()
}
