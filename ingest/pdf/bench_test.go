package pdf

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// BenchmarkParse measures pages per second on the corpus books with a
// started extractor; BenchmarkPdftotext measures poppler on the same
// files, process start included, for comparison:
//
//	go test -run '^$' -bench 'Parse|Pdftotext' ./ingest/pdf/
func BenchmarkParse(b *testing.B) {
	for _, workers := range []int{1, 0} {
		for _, name := range textBooks {
			b.Run(fmt.Sprintf("workers=%d/%s", workers, name), func(b *testing.B) {
				data, err := os.ReadFile(testcorpus.Path(b, "books", "pdf", name))
				if err != nil {
					b.Fatal(err)
				}
				e := testExtractor
				if workers != 0 {
					e = NewExtractor(Options{CacheDir: testCacheDir(), Workers: workers})
					defer e.Close()
				}
				// Start PDFium before the clock runs.
				if _, err := e.Parse(context.Background(), data); err != nil {
					b.Fatal(err)
				}
				pages := 0
				for b.Loop() {
					d, err := e.Parse(context.Background(), data)
					if err != nil {
						b.Fatal(err)
					}
					pages += d.PageCount
				}
				b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
			})
		}
	}
}

func BenchmarkPdftotext(b *testing.B) {
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		b.Skip("pdftotext not installed")
	}
	for _, name := range textBooks {
		b.Run(name, func(b *testing.B) {
			path := testcorpus.Path(b, "books", "pdf", name)
			pages := len(pdftotext(b, path))
			n := 0
			for b.Loop() {
				if err := exec.Command(bin, "-enc", "UTF-8", path, os.DevNull).Run(); err != nil {
					b.Fatal(err)
				}
				n += pages
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}

// TestStartupLatency measures the first Parse of a process: with an empty
// compilation cache (PDFium is compiled, seconds of CPU) and with the
// cache it left (loaded from disk). Set GRIMOIRE_PDF_LATENCY=1 to run it.
func TestStartupLatency(t *testing.T) {
	if os.Getenv("GRIMOIRE_PDF_LATENCY") == "" {
		t.Skip("set GRIMOIRE_PDF_LATENCY=1 to measure start-up (it compiles PDFium from scratch)")
	}
	data := bookFixture().build(t)
	dir := t.TempDir()
	first := func() time.Duration {
		e := NewExtractor(Options{CacheDir: filepath.Join(dir, "cache")})
		defer e.Close()
		start := time.Now()
		if _, err := e.Parse(context.Background(), data); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	cold := first()
	warm := first()
	noCache := func() time.Duration {
		e := NewExtractor(Options{NoDiskCache: true})
		defer e.Close()
		start := time.Now()
		if _, err := e.Parse(context.Background(), data); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}()
	t.Logf("first Parse: cold cache %v, warm cache %v, no disk cache %v", cold.Round(time.Millisecond), warm.Round(time.Millisecond), noCache.Round(time.Millisecond))
}

// TestCorpusMemory reports the peak resident memory of this process after
// parsing the 352-page book (Linux only; the process includes the test
// binary and whatever ran before). Run it alone:
//
//	GRIMOIRE_PDF_MEMORY=1 go test -run TestCorpusMemory -v ./ingest/pdf/
func TestCorpusMemory(t *testing.T) {
	if os.Getenv("GRIMOIRE_PDF_MEMORY") == "" || runtime.GOOS != "linux" {
		t.Skip("set GRIMOIRE_PDF_MEMORY=1 on Linux to measure peak memory")
	}
	data := readCorpus(t, "books", "pdf", "freeculture.pdf")
	before := vmHWM(t)
	start := time.Now()
	d := parseBytes(t, data)
	t.Logf("freeculture.pdf: %d pages in %v; peak RSS %s before, %s after", d.PageCount, time.Since(start).Round(time.Millisecond), before, vmHWM(t))
}

func vmHWM(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "?"
}
