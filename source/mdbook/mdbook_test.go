package mdbook

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/libfile"
)

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFindAndLoad(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "book")
	write(t, filepath.Join(dir, "book.toml"), "[book]\ntitle = \"Knots\"\nauthors = \"Ann Bend\"\nsrc = \"text\"\n\n[output.html]\n")
	write(t, filepath.Join(dir, "text", "SUMMARY.md"), "# Summary\n\n- [Bowline](bowline.md)\n- [Hitches](hitches.md)\n  - [Clove](hitches/clove.md)\n")
	write(t, filepath.Join(dir, "text", "bowline.md"), "# Bowline\n\nA loop that does not slip.\n")
	write(t, filepath.Join(dir, "text", "hitches", "clove.md"), "## Clove\n\nTwo turns round a post.\n")

	summary, cfg, err := Find(ctx, root, dir, true)
	if err != nil || summary != filepath.Join(dir, "text", SummaryName) || cfg != filepath.Join(dir, ConfigName) {
		t.Fatalf("Find = %q, %q, %v", summary, cfg, err)
	}
	b, err := LoadAt(ctx, root, summary)
	if err != nil {
		t.Fatal(err)
	}
	if b.Config != cfg || b.Dir != dir || b.Header.Title != "Knots" || strings.Join(b.Header.Authors, ",") != "Ann Bend" {
		t.Errorf("book: %+v", b)
	}
	var files []string
	for _, e := range b.Header.Entries {
		files = append(files, e.Title+"="+e.File)
	}
	if got, want := strings.Join(files, " "), "Bowline=bowline.md Hitches= Clove=hitches/clove.md"; got != want {
		t.Errorf("entries %q, want %q", got, want)
	}
	if len(b.Paths()) != 4 || Folder(filepath.Join(dir, "text", "hitches"), root) != dir {
		t.Errorf("paths %q, folder %q", b.Paths(), Folder(filepath.Join(dir, "text", "hitches"), root))
	}

	r := b.Reader(ctx)
	data, err := io.ReadAll(r)
	r.Close()
	n, _ := b.Len()
	if err != nil || int64(len(data)) != n || !strings.HasPrefix(string(data), Magic) || !strings.HasSuffix(string(data), "Two turns round a post.\n") {
		t.Fatalf("bytes (%d of %d, %v):\n%s", len(data), n, err, data)
	}

	t.Run("a chapter written to after the look fails the read", func(t *testing.T) {
		write(t, filepath.Join(dir, "text", "bowline.md"), "# Bowline\n\nA loop that does not slip, tied one-handed.\n")
		r := b.Reader(ctx)
		defer r.Close()
		if _, err := io.ReadAll(r); !errors.Is(err, libfile.ErrChanged) {
			t.Errorf("read after a change: %v", err)
		}
	})
}

func TestFindRefuses(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	t.Run("src above the book", func(t *testing.T) {
		dir := filepath.Join(root, "up")
		write(t, filepath.Join(dir, "book.toml"), "[book]\nsrc = \"../..\"\n")
		if _, _, err := Find(ctx, root, dir, true); !errors.Is(err, ErrSrc) {
			t.Errorf("Find: %v", err)
		}
	})
	t.Run("a SUMMARY.md too large to be one", func(t *testing.T) {
		dir := filepath.Join(root, "huge")
		write(t, filepath.Join(dir, SummaryName), strings.Repeat("- [x](x.md)\n", maxSummary/12+1))
		if _, err := Load(ctx, root, filepath.Join(dir, SummaryName), ""); err == nil || !strings.Contains(err.Error(), "over the") {
			t.Errorf("Load: %v", err)
		}
	})
	t.Run("book.toml without a SUMMARY.md is no book", func(t *testing.T) {
		dir := filepath.Join(root, "bare")
		write(t, filepath.Join(dir, "book.toml"), "[book]\n")
		write(t, filepath.Join(dir, "src", "a.md"), "# A\n")
		if s, _, err := Find(ctx, root, dir, true); s != "" || err != nil {
			t.Errorf("Find = %q, %v", s, err)
		}
	})
}
