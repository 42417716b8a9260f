// Package mdbook tells a book written as a folder of Markdown files (an
// mdBook: a SUMMARY.md that lists the chapter files in order, beside them
// or in the src folder of a book.toml) and reads it as one book: the
// chapters SUMMARY.md names that exist under its folder, in its order, as
// one stream of bytes whose BLAKE3 hash is the book's identity.
//
// Files are read only through libfile: no link is followed, and a link in
// SUMMARY.md to anything outside its folder is passed over.
package mdbook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/internal/subtree"
)

const (
	// Type is the source type of a book read from an mdBook folder.
	Type = "mdbook"
	// SummaryName is the file that lists an mdBook's chapters.
	SummaryName = "SUMMARY.md"
	// ConfigName is an mdBook's configuration, at the book's top folder.
	ConfigName = "book.toml"
	// Magic starts the bytes of a book read from a folder (see Book.Reader).
	Magic = "grimoire-mdbook 1\n"
)

// Limits on the files that describe a book: real ones are a few kilobytes.
const (
	maxSummary = 4 << 20
	maxConfig  = 1 << 20
)

// Header describes a book's chapters; it opens the book's bytes as one line
// of JSON, and the chapter files follow it in its order.
type Header struct {
	Title    string   `json:"title"`
	Authors  []string `json:"authors,omitempty"`
	Language string   `json:"language,omitempty"`
	Entries  []Entry  `json:"entries"`
}

// Entry is one entry of SUMMARY.md as the book holds it.
type Entry struct {
	Title string `json:"title"`
	Level int    `json:"level"`
	Part  bool   `json:"part,omitempty"`
	// File is the chapter file, a slash path relative to SUMMARY.md's
	// folder; "" for a part title, or a chapter without a file that
	// heads chapters with one.
	File string `json:"file,omitempty"`
	// Size is the number of bytes of File that follow the header.
	Size int64 `json:"size,omitempty"`
}

// Member is a chapter file of a book, as a stat saw it.
type Member struct {
	Path string
	Info libfile.Info
}

// Book is an mdBook folder as found on disk.
type Book struct {
	// Root is the library folder the book lies in.
	Root string
	// Dir is the book's folder: book.toml's, else SUMMARY.md's.
	Dir string
	// Summary is the path of SUMMARY.md, the path that stands for the book.
	Summary string
	// Config is the path of book.toml, or "".
	Config string
	Header Header
	// Members are the chapter files, in the header's order.
	Members []Member
	// Described are SUMMARY.md and book.toml as a stat saw them.
	Described []Member
}

// Folder returns the book folder among dir and the folders above it, up to
// root, that lies highest: one that holds a SUMMARY.md or a book.toml. A
// change to any file below it may change that book. "" when there is none.
// Links are not followed.
func Folder(dir, root string) string {
	root, dir = filepath.Clean(root), filepath.Clean(dir)
	if !subtree.Contains(root, dir) {
		return ""
	}
	found := ""
	for d := dir; ; d = filepath.Dir(d) {
		if regular(filepath.Join(d, SummaryName)) || regular(filepath.Join(d, ConfigName)) {
			found = d
		}
		if d == root || len(d) <= len(root) {
			return found
		}
	}
}

func regular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// ErrSrc means a book.toml names a source folder outside its own.
var ErrSrc = errors.New("book.toml's src lies outside the book's folder")

// Find returns where the mdBook of the folder dir reads its SUMMARY.md
// from: beside book.toml when dir holds one (in its src folder), else in
// dir. It returns "" when dir holds neither file, or its book.toml names
// a folder without a SUMMARY.md.
func Find(ctx context.Context, root, dir string, hasConfig bool) (summary, cfgPath string, err error) {
	if !hasConfig {
		summary = filepath.Join(dir, SummaryName)
		if _, err := libfile.Stat(root, summary); err != nil {
			return "", "", nil
		}
		return summary, "", nil
	}
	cfgPath = filepath.Join(dir, ConfigName)
	data, err := readSmall(ctx, root, cfgPath, maxConfig)
	if err != nil {
		return "", "", err
	}
	src := filepath.FromSlash(parseConfig(data).Src)
	if !filepath.IsLocal(src) {
		return "", cfgPath, fmt.Errorf("%s: %w", cfgPath, ErrSrc)
	}
	summary = filepath.Join(dir, src, SummaryName)
	if _, err := libfile.Stat(root, summary); err != nil {
		return "", cfgPath, nil
	}
	return summary, cfgPath, nil
}

// readSmall reads a file of the library that is at most limit bytes.
func readSmall(ctx context.Context, root, p string, limit int64) ([]byte, error) {
	info, err := libfile.Stat(root, p)
	if err != nil {
		return nil, err
	}
	if info.Size > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the %d an mdBook's description may have", p, info.Size, limit)
	}
	return libfile.ReadFile(ctx, root, p, libfile.Want{Size: info.Size, Dev: info.Dev, Ino: info.Ino})
}

// Load reads the book whose SUMMARY.md is at summary (and whose book.toml
// is at cfgPath, or none when ""), and looks at each chapter file it names.
// Chapters whose file is missing, outside SUMMARY.md's folder, not
// Markdown, or named before are left out; the book holds the others.
func Load(ctx context.Context, root, summary, cfgPath string) (*Book, error) {
	b := &Book{Root: root, Summary: summary, Config: cfgPath, Dir: filepath.Dir(summary)}
	var cfg config
	if cfgPath != "" {
		b.Dir = filepath.Dir(cfgPath)
		info, data, err := readDescribed(ctx, root, cfgPath, maxConfig)
		if err != nil {
			return nil, err
		}
		cfg = parseConfig(data)
		b.Described = append(b.Described, Member{cfgPath, info})
	}
	info, data, err := readDescribed(ctx, root, summary, maxSummary)
	if err != nil {
		return nil, err
	}
	b.Described = append(b.Described, Member{summary, info})
	s := ParseSummary(data)

	b.Header = Header{Title: cfg.Title, Authors: cfg.Authors, Language: cfg.Language}
	if b.Header.Title == "" && !generic(s.Title) {
		b.Header.Title = s.Title
	}
	if b.Header.Title == "" {
		b.Header.Title = filepath.Base(b.Dir)
	}
	src := filepath.Dir(summary)
	taken := map[string]bool{}
	entries := make([]Entry, 0, len(s.Items))
	for _, it := range s.Items {
		e := Entry{Title: it.Title, Level: it.Level, Part: it.Part}
		if rel, ok := chapterFile(it.Link); ok && !taken[rel] {
			p := filepath.Join(src, filepath.FromSlash(rel))
			if info, err := libfile.Stat(root, p); err == nil {
				taken[rel] = true
				e.File, e.Size = rel, info.Size
				b.Members = append(b.Members, Member{p, info})
			} else if ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		entries = append(entries, e)
	}
	b.Header.Entries = prune(entries)
	return b, nil
}

// LoadAt loads the book whose SUMMARY.md is at summary, with the book.toml
// whose src folder holds it, if any: the highest such one up to root, as
// a walk from root finds it.
func LoadAt(ctx context.Context, root, summary string) (*Book, error) {
	cfg := ""
	root = filepath.Clean(root)
	for d := filepath.Dir(summary); subtree.Contains(root, d); d = filepath.Dir(d) {
		if regular(filepath.Join(d, ConfigName)) {
			if s, c, err := Find(ctx, root, d, true); err == nil && s == summary {
				cfg = c
			}
		}
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	return Load(ctx, root, summary, cfg)
}

func readDescribed(ctx context.Context, root, p string, limit int64) (libfile.Info, []byte, error) {
	info, err := libfile.Stat(root, p)
	if err != nil {
		return info, nil, err
	}
	data, err := readSmall(ctx, root, p, limit)
	return info, data, err
}

// generic reports a SUMMARY.md title that names the list, not the book.
func generic(title string) bool {
	switch strings.ToLower(strings.TrimSpace(title)) {
	case "", "summary", "table of contents", "contents", "toc":
		return true
	}
	return false
}

// chapterFile returns the file a SUMMARY.md link names, as a clean slash
// path below SUMMARY.md's folder, when it is a Markdown file there: no
// URL, no absolute path, nothing above the folder.
func chapterFile(link string) (string, bool) {
	if link == "" || strings.Contains(link, ":") || strings.HasPrefix(link, "/") || strings.HasPrefix(link, `\`) {
		return "", false
	}
	if u, err := unescape(link); err == nil {
		link = u
	}
	if strings.ContainsAny(link, "\\\x00") {
		return "", false
	}
	rel := path.Clean(link)
	if !filepath.IsLocal(filepath.FromSlash(rel)) || rel == SummaryName {
		return "", false
	}
	switch strings.ToLower(path.Ext(rel)) {
	case ".md", ".markdown":
		return rel, true
	}
	return "", false
}

// unescape decodes a link's %XX escapes ("my%20chapter.md").
func unescape(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || !ishex(s[i+1]) || !ishex(s[i+2]) {
			return "", errors.New("bad escape")
		}
		b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
		i += 2
	}
	return b.String(), nil
}

func ishex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// prune keeps the entries with a file, the chapters without one that head
// chapters with one, and the part titles over any of those.
func prune(entries []Entry) []Entry {
	keep := make([]bool, len(entries))
	var open []int // the entries the one at hand lies under, shallowest first
	part := -1
	for i, e := range entries {
		if e.Part {
			open, part = open[:0], i
			continue
		}
		for len(open) > 0 && entries[open[len(open)-1]].Level >= e.Level {
			open = open[:len(open)-1]
		}
		if e.File != "" {
			keep[i] = true
			// Its heads, up to one already kept, whose heads are too.
			for k := len(open) - 1; k >= 0 && !keep[open[k]]; k-- {
				keep[open[k]] = true
			}
			if part >= 0 {
				keep[part] = true
			}
		}
		open = append(open, i)
	}
	out := make([]Entry, 0, len(entries))
	for i, e := range entries {
		if keep[i] {
			out = append(out, e)
		}
	}
	return out
}

// Size is the number of bytes that describe the book and hold its
// chapters, as the stats saw them: what the book is measured by.
func (b *Book) Size() int64 {
	var n int64
	for _, m := range b.files() {
		n += m.Info.Size
	}
	return n
}

// ModTime is the latest modification of any of the book's files.
func (b *Book) ModTime() time.Time {
	var t time.Time
	for _, m := range b.files() {
		if m.Info.ModTime.After(t) {
			t = m.Info.ModTime
		}
	}
	return t
}

// ID folds the identities of the book's files (device and inode, with
// their names below the book's folder) into one number: it changes when
// any file is replaced, and survives a move of the whole folder.
func (b *Book) ID() uint64 {
	h := fnv.New64a()
	for _, m := range b.files() {
		rel, _ := filepath.Rel(b.Dir, m.Path)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), m.Info.Ino)
	}
	return h.Sum64()
}

// Paths are the files of the book: book.toml, SUMMARY.md and the chapters.
// None of them is a book of its own.
func (b *Book) Paths() []string {
	var out []string
	for _, m := range b.files() {
		out = append(out, m.Path)
	}
	return out
}

func (b *Book) files() []Member {
	return append(append([]Member{}, b.Described...), b.Members...)
}

// header returns the line that opens the book's bytes.
func (b *Book) header() ([]byte, error) {
	h, err := json.Marshal(b.Header)
	if err != nil {
		return nil, err
	}
	return append(append([]byte(Magic), h...), '\n'), nil
}

// Len is the number of bytes Reader gives.
func (b *Book) Len() (int64, error) {
	h, err := b.header()
	if err != nil {
		return 0, err
	}
	n := int64(len(h))
	for _, m := range b.Members {
		n += m.Info.Size
	}
	return n, nil
}

// Reader gives the book's bytes: Magic, the header as one line of JSON,
// then each chapter file in turn. A file that is not what Load saw any
// more (written to, replaced, a link now) fails the read with
// libfile.ErrChanged or the error libfile.Open gives. SUMMARY.md and
// book.toml are not read again: their content is in the header.
func (b *Book) Reader(ctx context.Context) io.ReadCloser {
	h, err := b.header()
	if err != nil {
		return failed{err}
	}
	parts := make([]libfile.Part, len(b.Members))
	for i, m := range b.Members {
		parts[i] = libfile.Part{Root: b.Root, Path: m.Path, Info: m.Info}
	}
	return libfile.Concat(ctx, h, parts)
}

// failed is a reader of a book whose bytes cannot be given.
type failed struct{ err error }

func (f failed) Read([]byte) (int, error) { return 0, f.err }
func (failed) Close() error               { return nil }

// ChapterFile returns the file a passage's anchor names in a book whose
// SUMMARY.md is at summary ("ch03-02.md#L12" → its path beside summary),
// or "" when the anchor names none.
func ChapterFile(summary, anchor string) string {
	rel, _, ok := strings.Cut(anchor, "#")
	if !ok || rel == "" {
		return ""
	}
	p := filepath.FromSlash(rel)
	if !filepath.IsLocal(p) {
		return ""
	}
	return filepath.Join(filepath.Dir(summary), p)
}
