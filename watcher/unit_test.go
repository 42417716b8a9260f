package watcher

import (
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testLogger sends the watcher's log to the test's log, shown on failure
// or with -v.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// paths turns slash-separated test paths into the platform's form.
func paths(ps ...string) []string {
	if len(ps) == 0 {
		return nil
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = filepath.FromSlash(p)
	}
	return out
}

func TestBatchMerge(t *testing.T) {
	cases := []struct {
		name     string
		old, new Batch
		want     Batch
	}{
		{
			name: "disjoint paths add up",
			old:  Batch{Changed: paths("/l/a"), Removed: paths("/l/x")},
			new:  Batch{Changed: paths("/l/b"), Removed: paths("/l/y")},
			want: Batch{Changed: paths("/l/a", "/l/b"), Removed: paths("/l/x", "/l/y")},
		},
		{
			name: "changed then removed is removed",
			old:  Batch{Changed: paths("/l/a")},
			new:  Batch{Removed: paths("/l/a")},
			want: Batch{Removed: paths("/l/a")},
		},
		{
			name: "removed then changed is changed",
			old:  Batch{Removed: paths("/l/a")},
			new:  Batch{Changed: paths("/l/a")},
			want: Batch{Changed: paths("/l/a")},
		},
		{
			name: "a change below a folder removed since is dropped",
			old:  Batch{Changed: paths("/l/d/a", "/l/e")},
			new:  Batch{Removed: paths("/l/d")},
			want: Batch{Changed: paths("/l/e"), Removed: paths("/l/d")},
		},
		{
			name: "a removed folder that came back with files is a rescan",
			old:  Batch{Removed: paths("/l/d")},
			new:  Batch{Changed: paths("/l/d/a")},
			want: Batch{Rescan: true, Reason: "a removed folder reappeared while the previous changes were waiting"},
		},
		{
			name: "a rescan absorbs changes",
			old:  Batch{Changed: paths("/l/a")},
			new:  Batch{Rescan: true, Reason: "periodic rescan"},
			want: Batch{Rescan: true, Reason: "periodic rescan"},
		},
		{
			name: "changes after a rescan are absorbed by it",
			old:  Batch{Rescan: true, Reason: "initial scan"},
			new:  Batch{Changed: paths("/l/a")},
			want: Batch{Rescan: true, Reason: "initial scan"},
		},
		{
			name: "rescan reasons are kept once each",
			old:  Batch{Rescan: true, Reason: "initial scan; periodic rescan"},
			new:  Batch{Rescan: true, Reason: "periodic rescan"},
			want: Batch{Rescan: true, Reason: "initial scan; periodic rescan"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.old
			b.merge(tc.new)
			if !slices.Equal(b.Changed, tc.want.Changed) || !slices.Equal(b.Removed, tc.want.Removed) ||
				b.Rescan != tc.want.Rescan || b.Reason != tc.want.Reason {
				t.Fatalf("got %+v\nwant %+v", b, tc.want)
			}
		})
	}
}

func TestMessagesCarryTheFix(t *testing.T) {
	cases := []struct {
		name string
		msg  string
		want []string
	}{
		{"inotify watches", limitMessage(syscall.ENOSPC, false, 8192, 0, time.Hour),
			[]string{"8192 folders", "sudo sysctl fs.inotify.max_user_watches=524288", "/etc/sysctl.d/90-grimoire.conf", "every 1h"}},
		{"kqueue descriptors", limitMessage(syscall.EMFILE, true, 900, 10240, time.Hour),
			[]string{"too large for kqueue watching", "10240", "900 folders", "periodic rescan (every 1h)"}},
		{"inotify instances", notifierMessage(syscall.EMFILE, true, 30*time.Minute),
			[]string{"fs.inotify.max_user_instances=512", "every 30m"}},
		{"no periodic rescan", limitMessage(syscall.ENOSPC, false, 1, 0, -1),
			[]string{"only the next sync"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				if !strings.Contains(tc.msg, w) {
					t.Errorf("%q\nlacks %q", tc.msg, w)
				}
			}
			if strings.Contains(tc.msg, "; ") {
				t.Errorf("%q contains the reason separator", tc.msg)
			}
		})
	}
}

func TestJitter(t *testing.T) {
	for _, r := range []float64{0, 0.25, 0.5, 0.999999} {
		got := jitter(time.Hour, r)
		if got < 54*time.Minute || got >= 66*time.Minute {
			t.Errorf("jitter(1h, %v) = %v, outside ±10%%", r, got)
		}
	}
	if got := jitter(time.Hour, 0.5); got != time.Hour {
		t.Errorf("jitter(1h, 0.5) = %v", got)
	}
}

func TestHuman(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour: "1h", 30 * time.Minute: "30m", 90 * time.Second: "1m30s", 30 * time.Second: "30s",
		90 * time.Minute: "1h30m", 150 * time.Millisecond: "150ms",
	} {
		if got := human(d); got != want {
			t.Errorf("human(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestNewValidates(t *testing.T) {
	cases := []struct {
		name  string
		roots []string
		opts  Options
		err   string
	}{
		{"no roots", nil, Options{}, "no library folder"},
		{"empty root", []string{""}, Options{}, "empty library folder"},
		{"negative debounce", []string{"/l"}, Options{Debounce: -1}, "negative Debounce"},
		{"max delay below debounce", []string{"/l"}, Options{Debounce: time.Second, MaxDelay: time.Millisecond}, "shorter than Debounce"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.roots, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	lib := filepath.Join(dir, "lib")
	w, err := New([]string{lib, lib + string(filepath.Separator), "rel"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{lib, filepath.Join(dir, "rel")}; !slices.Equal(w.Roots(), want) {
		t.Errorf("roots %v, want %v: cleaned, absolute and unique", w.Roots(), want)
	}
	o := w.opts
	if o.Debounce != 2*time.Second || o.MaxDelay != 30*time.Second || o.RescanInterval != time.Hour || o.RootPollInterval != 10*time.Second {
		t.Errorf("defaults %+v", o)
	}
	if !o.Ignore(filepath.Join(lib, ".grimoire"), true) || o.Ignore(filepath.Join(lib, ".hidden.md"), false) || o.Ignore(filepath.Join(lib, "books"), true) {
		t.Error("default Ignore is not \"hidden folders only\"")
	}
	w2, _ := New([]string{lib}, Options{Debounce: 100 * time.Millisecond})
	if w2.opts.MaxDelay != 1500*time.Millisecond {
		t.Errorf("MaxDelay %v does not scale with Debounce", w2.opts.MaxDelay)
	}
}

func TestIsLimit(t *testing.T) {
	if !isLimit(syscall.ENOSPC) || !isLimit(syscall.EMFILE) || isLimit(syscall.EACCES) || isLimit(errors.New("x")) {
		t.Error("isLimit misclassifies")
	}
}
