//go:build !linux

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS is unknown here: the unit of ru_maxrss differs between systems.
func peakRSS(*os.ProcessState) int64 { return 0 }

// followPeak gives a finished process's peak resident memory in bytes, as
// wait4 tells it: in bytes on macOS, in KiB elsewhere.
func followPeak(*os.Process) func(*os.ProcessState) int64 {
	return func(ps *os.ProcessState) int64 {
		ru, ok := ps.SysUsage().(*syscall.Rusage)
		if !ok {
			return 0
		}
		if runtime.GOOS == "darwin" {
			return int64(ru.Maxrss)
		}
		return int64(ru.Maxrss) << 10
	}
}
