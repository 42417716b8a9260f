package watcher

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMeasureLargeLibrary reports what watching a library of 10,000 files
// in 1,000 folders costs: start-up, idle CPU, memory, and a change to
// every file. It takes about a minute and runs only when asked:
//
//	GRIMOIRE_WATCHER_MEASURE=1 go test -run TestMeasureLargeLibrary -v ./watcher/
func TestMeasureLargeLibrary(t *testing.T) {
	if os.Getenv("GRIMOIRE_WATCHER_MEASURE") == "" {
		t.Skip("set GRIMOIRE_WATCHER_MEASURE=1 to measure (about a minute)")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	idle := 30 * time.Second
	if s := os.Getenv("GRIMOIRE_WATCHER_MEASURE_IDLE"); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			idle = d
		}
	}
	root := filepath.Join(t.TempDir(), "lib")
	var files []string
	for i := range 10 {
		for j := range 100 {
			dir := filepath.Join(root, fmt.Sprintf("shelf-%02d", i), fmt.Sprintf("author-%03d", j))
			if j == 0 {
				dir = filepath.Join(root, fmt.Sprintf("shelf-%02d", i))
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for k := range 10 {
				p := filepath.Join(dir, fmt.Sprintf("book-%d.md", k))
				if err := os.WriteFile(p, []byte("# a book\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, p)
			}
		}
	}
	runtime.GC()
	heapBefore := heapInUse()
	cpu0 := cpuTicks(t)

	w, err := New([]string{root}, Options{}) // production defaults
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()

	start := time.Now()
	if b := <-w.Batches(); !b.Rescan {
		t.Fatalf("first batch %+v", b)
	}
	walk := time.Since(start)
	cpu1 := cpuTicks(t)
	st := w.Stats()
	t.Logf("start-up: %d folders watched in %v, %d CPU ticks (%s)", st.Watched, walk.Round(time.Millisecond), cpu1-cpu0, tickUnit())

	runtime.GC()
	t.Logf("memory with the watcher running: heap in use %+.1f MiB, RSS %s, %d goroutines",
		float64(heapInUse()-heapBefore)/(1<<20), rss(t), runtime.NumGoroutine())

	time.Sleep(idle)
	cpu2 := cpuTicks(t)
	t.Logf("idle for %v: %d CPU ticks (%s) for the whole test process", idle, cpu2-cpu1, tickUnit())

	// Touch every book at once: how long until all are handed on, and at
	// what cost.
	start = time.Now()
	for _, p := range files {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString("more\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	wrote := time.Since(start)
	cpuWrote := cpuTicks(t)
	seen := map[string]bool{}
	batches, rescans := 0, 0
	for len(seen) < len(files) && rescans == 0 {
		select {
		case b := <-w.Batches():
			batches++
			if b.Rescan {
				rescans++
			}
			for _, p := range b.Changed {
				seen[p] = true
			}
		case <-time.After(time.Minute):
			t.Fatalf("only %d of %d files reported", len(seen), len(files))
		}
	}
	cpu3 := cpuTicks(t)
	t.Logf("changed all %d files in %v (%d CPU ticks for the writes and the events they raised so far): "+
		"reported %d in %d batches (%d rescans) %v after the first write, %d CPU ticks for the rest",
		len(files), wrote.Round(time.Millisecond), cpuWrote-cpu2, len(seen), batches, rescans,
		time.Since(start).Round(time.Millisecond), cpu3-cpuWrote)
	runtime.GC()
	t.Logf("memory after the burst: heap in use %+.1f MiB, RSS %s", float64(heapInUse()-heapBefore)/(1<<20), rss(t))
}

func heapInUse() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// cpuTicks returns the process's user plus system time in clock ticks.
func cpuTicks(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	// The command name may hold spaces; the fields after it are plain.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64) // field 14 of stat(5)
	stime, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	return utime + stime
}

func tickUnit() string { return "1 tick = 10 ms at the usual USER_HZ of 100" }

func rss(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
