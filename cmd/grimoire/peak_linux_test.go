package main

import (
	"os"
	"syscall"
)

// peakRSS is a finished process's peak resident memory in bytes; Linux
// counts it in kilobytes.
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) << 10
	}
	return 0
}
