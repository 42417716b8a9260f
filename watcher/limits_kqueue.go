//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package watcher

import "syscall"

// kqueue, fsnotify's backend here, holds an open file descriptor for every
// watched folder and for every entry in it.
const fdPerEntry = true

// watchBudget is how many descriptors the watcher may hold: half the
// process's limit, so that the index, the files being hashed and parsed,
// and any network connections keep the other half. (Go raises the soft
// limit to the hard one at start-up, capped by kern.maxfilesperproc.)
func watchBudget() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 128
	}
	cur := uint64(rl.Cur)
	if cur == 0 {
		return 128
	}
	return int(min(cur/2, 1<<20))
}
