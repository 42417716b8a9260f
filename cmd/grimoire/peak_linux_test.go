package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// peakRSS is a finished process's peak resident memory in bytes; Linux
// counts it in kilobytes.
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) << 10
	}
	return 0
}

// followPeak follows the peak resident memory of the running process p as
// its own status tells it (VmHWM), until the returned function, called
// once p has ended, gives it in bytes. wait4's ru_maxrss would also count
// this test process's memory when it started p: Go starts a child sharing
// its memory until exec, and exec records that memory's peak as the
// child's.
func followPeak(p *os.Process) func(*os.ProcessState) int64 {
	var peak atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if kb := highWater(p.Pid); kb > peak.Load() {
				peak.Store(kb)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func(*os.ProcessState) int64 {
		close(stop)
		<-stopped
		return peak.Load() << 10
	}
}

// highWater is process pid's VmHWM in KiB, 0 when it cannot be read (the
// process has ended).
func highWater(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
