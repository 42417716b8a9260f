package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/bomb"
)

// TestPDFBombs syncs a library of decompression bombs, the 600 MB
// page among them, beside a plain book: each bomb fails with a message
// that says what it is (never "needs OCR"), the book is read, and the
// process stays far under 1 GB at its peak (the kernel's count; before the
// limits, the 600 MB page alone took it to 2.5-3.5 GB).
func TestPDFBombs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes and refuses bombs of 600 MB")
	}
	const mb = 1 << 20
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "notes.md"), "# Notes\n\nA plain book beside the bombs.\n")
	suffix := "; the file is probably hostile or broken"
	bombs := []struct {
		name string
		pdf  bomb.PDF
		want string
	}{
		{"page.pdf", bomb.PDF{Pages: 3, Bombs: 1, Where: bomb.Content, Size: 600 * mb, Unit: bomb.Moves},
			"too large to read safely: page 1's content inflates past 64 MB (the per-page limit), at its content stream"},
		{"form.pdf", bomb.PDF{Pages: 3, First: 2, Bombs: 1, Where: bomb.Form, Size: 600 * mb},
			"too large to read safely: page 3's content inflates past 64 MB (the per-page limit), at its form /Fm1"},
		{"font.pdf", bomb.PDF{Pages: 2, Bombs: 1, Where: bomb.FontFile, Size: 600 * mb},
			"too large to read safely: its fonts inflate past 256 MB in all (the limit for a document's fonts), at page 1's font /F2"},
		{"objects.pdf", bomb.PDF{Pages: 2, Bombs: 1, Where: bomb.ObjectStream, Size: 600 * mb},
			"too large to read safely: its object streams inflate past 64 MB (the limit for a document's objects)"},
	}
	for _, b := range bombs {
		if err := os.WriteFile(filepath.Join(lib, b.name), b.pdf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, peak := grimoirePeak(t, lib, "sync")
	if r.code != 0 {
		t.Fatalf("sync: exit %d\n%s", r.code, r.stderr)
	}
	if runtime.GOOS == "linux" && peak > 1<<30 {
		t.Errorf("sync peaked at %d MB resident", peak>>20)
	}
	t.Logf("sync peaked at %d MB resident", peak>>20)
	var st statusOut
	okJSON(t, &st, lib, "status")
	if st.Ready != 1 || st.Failed != len(bombs) {
		t.Errorf("status: %d ready, %d failed", st.Ready, st.Failed)
	}
	reasons := map[string]string{}
	for _, f := range st.Failures {
		reasons[filepath.Base(f.Path)] = f.Error
	}
	for _, b := range bombs {
		if got := reasons[b.name]; got != b.want+suffix {
			t.Errorf("%s: status says %q\nwant %q", b.name, got, b.want+suffix)
		}
	}
}

// grimoirePeak runs grimoire like grimoire does and also returns the
// peak resident memory of the process, in bytes (0 where unknown).
func grimoirePeak(t *testing.T, dir string, args ...string) (result, int64) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRIMOIRE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	r := collect(t, cmd)
	return r, peakRSS(cmd.ProcessState)
}
