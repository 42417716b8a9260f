//go:build windows

package libfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVerbatim(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`C:\lib\book.md`, `\\?\C:\lib\book.md`},
		{`C:/lib/sub/../book.md`, `\\?\C:\lib\book.md`},
		{`\\server\share\lib\book.md`, `\\?\UNC\server\share\lib\book.md`},
		{`\\?\C:\lib\book.md`, `\\?\C:\lib\book.md`},
		{`lib\book.md`, `lib\book.md`},
	} {
		if got := verbatim(tc.in); got != tc.want {
			t.Errorf("verbatim(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// writeVerbatim writes a file by the name given, which Windows would
// otherwise shorten (a trailing dot) or take for a device (CON).
func writeVerbatim(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(`\\?\`+filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(`\\?\`+path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The file read is the one the walk lists, by its name on disk: past
// MAX_PATH, with a trailing dot beside a file of the name without it, and
// under a name Windows keeps for a device, which is refused saying so.
func TestOpenNamesAsOnDisk(t *testing.T) {
	root := filepath.Join(t.TempDir(), "lib")
	long := filepath.Join(root, strings.Repeat("a-long-folder-name-", 8), strings.Repeat("and-another-one-", 8), "book.md")
	if len(long) <= 260 {
		t.Fatalf("%d characters is no long path", len(long))
	}
	writeVerbatim(t, long, "the long one")
	writeVerbatim(t, filepath.Join(root, "notes"), "without the dot")
	writeVerbatim(t, filepath.Join(root, "notes."), "with the dot")
	writeVerbatim(t, filepath.Join(root, "CON"), "a console's name")
	for _, tc := range []struct{ name, path, want string }{
		{"past MAX_PATH", long, "the long one"},
		{"trailing dot", filepath.Join(root, "notes."), "with the dot"},
		{"the name without it", filepath.Join(root, "notes"), "without the dot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Stat(root, tc.path)
			if err != nil {
				t.Fatal(err)
			}
			data, err := ReadFile(context.Background(), root, tc.path, Want{Size: info.Size})
			if err != nil || string(data) != tc.want {
				t.Fatalf("ReadFile = %q, %v; want %q", data, err, tc.want)
			}
		})
	}
	if _, err := Stat(root, filepath.Join(root, "CON")); !errors.Is(err, ErrReserved) {
		t.Errorf("a file named CON: %v, want %v", err, ErrReserved)
	}
}
