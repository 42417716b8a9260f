//go:build unix

package retrieve

import "syscall"

// cpuTime returns the CPU time this process has used, user and system, in
// seconds: on a shared machine it varies less with the load than the wall
// clock does.
func cpuTime() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
