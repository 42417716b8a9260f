package zotero

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/source/zotero/zoterotest"
)

func TestNoteText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, html, want string }{
		{"empty", "", ""},
		{"zotero", `<div data-schema-version="9"><p>One</p><p>Two</p></div>`, "One\n\nTwo"},
		{"inline", `<p>a <b>bold</b><i>italic</i>  word</p>`, "a bolditalic word"},
		{"entities", `<p>Caf&eacute; &amp; &lt;tea&gt;&nbsp;x</p>`, "Café & <tea> x"},
		{"line break", `<p>one<br>two<br/>three</p>`, "one\ntwo\nthree"},
		{"headings and lists", `<h2>Head</h2><ol><li>a</li><li>b <em>c</em></li></ol>`, "Head\n\na\n\nb c"},
		{"pre", "<pre>  keep\n    this</pre><p>then</p>", "keep\n    this\n\nthen"},
		{"script", `<p>seen</p><script>var x = "<p>unseen</p>";</script><style>p{}</style>`, "seen"},
		{"bare text", "just text\n\n  spread   out", "just text spread out"},
		{"blockquote", `<blockquote><p>quoted</p></blockquote><p>after</p>`, "quoted\n\nafter"},
		{"unclosed", `<p>open <b>bold`, "open bold"},
		{"invalid utf-8", "<p>a\xffb</p>", "a\uFFFDb"},
		{"table", `<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>`, "a b\n\nc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := noteText(tc.html); got != tc.want {
				t.Errorf("noteText(%q) = %q, want %q", tc.html, got, tc.want)
			}
		})
	}
}

func TestPageIndex(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		position string
		want     int
	}{
		{`{"pageIndex":11,"rects":[[1,2,3,4]]}`, 11},
		{`{"rects":[[1,2,3,4]],"pageIndex":0}`, 0},
		{`{"pageIndex":3.0}`, 3},
		{`{"pageIndex":3.5}`, -1},
		{`{"pageIndex":-1}`, -1},
		{`{"pageIndex":1e12}`, -1},
		{`{"pageIndex":"3"}`, -1},
		{`{"type":"FragmentSelector","value":"epubcfi(/6/4)"}`, -1},
		{`{"pageIndex":7,"paths":[[1,2,3`, 7},
		{`{"paths":[[1,2,3`, -1},
		{``, -1},
		{`[1]`, -1},
		{`not json`, -1},
	} {
		if got := pageIndex(tc.position); got != tc.want {
			t.Errorf("pageIndex(%q) = %d, want %d", tc.position, got, tc.want)
		}
	}
}

func TestBaseDirFromPrefs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, prefs, want string }{
		{"set", `user_pref("extensions.zotero.baseAttachmentPath", "/home/ada/Papers");`, "/home/ada/Papers"},
		{"windows", `user_pref("extensions.zotero.baseAttachmentPath", "C:\\Users\\ada\\Papers");`, `C:\Users\ada\Papers`},
		{"escapes", `user_pref("extensions.zotero.baseAttachmentPath", "/a \"b\" \u00e9");`, `/a "b" é`},
		{"among others", "// Mozilla User Preferences\n" +
			`user_pref("extensions.zotero.dataDir", "/home/ada/Zotero");` + "\n" +
			`user_pref("extensions.zotero.baseAttachmentPath", "/first");` + "\n" +
			`user_pref("extensions.zotero.baseAttachmentPath", "/second");` + "\n", "/second"},
		{"unset", `user_pref("extensions.zotero.dataDir", "/home/ada/Zotero");`, ""},
		{"not a string", `user_pref("extensions.zotero.baseAttachmentPath", true);`, ""},
		{"cut short", `user_pref("extensions.zotero.baseAttachmentPath", "/abc`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "prefs.js")
			if err := os.WriteFile(p, []byte(tc.prefs), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := BaseDirFromPrefs(p)
			if err != nil || got != tc.want {
				t.Errorf("BaseDirFromPrefs = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := BaseDirFromPrefs(filepath.Join(t.TempDir(), "missing.js")); err == nil {
		t.Error("BaseDirFromPrefs of a missing file: no error")
	}
	if _, err := BaseDirFromPrefs(t.TempDir()); err == nil {
		t.Error("BaseDirFromPrefs of a folder: no error")
	}
}

func FuzzNoteText(f *testing.F) {
	for _, s := range []string{
		`<div data-schema-version="9"><p>One</p><p>Two <b>x</b></p></div>`,
		"<pre>a\n b</pre><br><li>x",
		"<script><p>",
		"&#0;&#xffffff;&amp",
		"<p>\xff\xfe</p>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, html string) {
		got := noteText(html)
		if !utf8.ValidString(got) {
			t.Errorf("noteText(%q) = %q: not UTF-8", html, got)
		}
		if strings.Contains(got, "\n\n\n") || got != strings.TrimSpace(got) {
			t.Errorf("noteText(%q) = %q: loose blank lines", html, got)
		}
	})
}

func FuzzPageIndex(f *testing.F) {
	for _, s := range []string{`{"pageIndex":11,"rects":[[1,2,3,4]]}`, `{"a":{"b":[1]},"pageIndex":2}`, `{"pageIndex":`, `{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, position string) {
		if got := pageIndex(position); got < -1 || got > 1e7 {
			t.Errorf("pageIndex(%q) = %d", position, got)
		}
	})
}

func FuzzBaseDirIn(f *testing.F) {
	f.Add([]byte(`user_pref("extensions.zotero.baseAttachmentPath", "/a\\u00e9\"b");`))
	f.Add([]byte(`user_pref("extensions.zotero.baseAttachmentPath", "\u12`))
	f.Fuzz(func(t *testing.T, data []byte) {
		baseDirIn(data)
	})
}

// FuzzOpen reads databases of any bytes: Open returns an error or a
// library, never panics, and never resolves a file outside the data
// directory's storage but for linked files. Under -fuzz it runs slowly
// (a few inputs a second): the coverage instrumentation covers SQLite's
// translation to Go too.
func FuzzOpen(f *testing.F) {
	dir, src := f.TempDir(), f.TempDir()
	pdf := filepath.Join(src, "a.pdf")
	if err := os.WriteFile(pdf, []byte("%PDF"), 0o644); err != nil {
		f.Fatal(err)
	}
	zoterotest.Build(f, dir, zoterotest.Library{
		Collections: []zoterotest.Collection{{Key: "COLL0001", Name: "C"}},
		Items: []zoterotest.Item{{
			Key: "ITEM0001", Type: "book", Fields: map[string]string{"title": "T", "date": "2001"},
			Creators: [][2]string{{"A", "B"}}, Tags: []string{"t"}, Collections: []string{"COLL0001"},
			Notes: []zoterotest.Note{{HTML: "<p>n</p>"}},
			Attachments: []zoterotest.Attachment{{File: pdf, Annotations: []zoterotest.Annotation{
				{Kind: "highlight", Text: "h", PageIndex: 1},
			}}},
		}},
	})
	valid, err := os.ReadFile(filepath.Join(dir, DB))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add([]byte("SQLite format 3\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, DB), data, 0o644); err != nil {
			t.Fatal(err)
		}
		lib, err := Open(context.Background(), d, Options{Scratch: t.TempDir()})
		if err != nil {
			return
		}
		for _, it := range lib.Items {
			for _, a := range it.Attachments {
				if !a.Linked && !strings.HasPrefix(a.Path, filepath.Join(d, "storage")+string(filepath.Separator)) {
					t.Errorf("attachment resolved outside storage: %q", a.Path)
				}
			}
		}
	})
}

func TestDateText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"2019-03-15 2019-03-15": "2019-03-15",
		"2019-03-00 March 2019": "2019-03",
		"2001-00-00 2001":       "2001",
		"0000-00-00 someday":    "someday",
		"Spring 2019":           "Spring 2019",
		"2019-03-15":            "2019-03-15",
		"":                      "",
	} {
		if got := dateText(in); got != want {
			t.Errorf("dateText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestProfileBaseDir(t *testing.T) {
	t.Parallel()
	home, appData := t.TempDir(), t.TempDir()
	if got := ProfileBaseDir(home, appData); got != "" {
		t.Errorf("no profile: %q", got)
	}
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".zotero", "zotero", "a1.default", "prefs.js"), `user_pref("extensions.zotero.dataDir", "/x");`+"\n")
	write(filepath.Join(appData, "Zotero", "Zotero", "Profiles", "b2.default", "prefs.js"), `user_pref("extensions.zotero.baseAttachmentPath", "C:\\Papers");`+"\n")
	if got := ProfileBaseDir(home, appData); got != `C:\Papers` {
		t.Errorf("the Windows profile's base directory: %q", got)
	}
	write(filepath.Join(home, "Library", "Application Support", "Zotero", "Profiles", "c3.default", "prefs.js"), `user_pref("extensions.zotero.baseAttachmentPath", "/Users/me/Papers");`+"\n")
	if got := ProfileBaseDir(home, appData); got != "/Users/me/Papers" {
		t.Errorf("the macOS profile's base directory: %q", got)
	}
}
