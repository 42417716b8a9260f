//go:build !(darwin || dragonfly || freebsd || netbsd || openbsd)

package watcher

// inotify and ReadDirectoryChangesW hold one watch per folder, not a file
// descriptor per entry; their limits show up as errors from Add.
const fdPerEntry = false

// watchBudget of 0 means no budget of our own.
func watchBudget() int { return 0 }
