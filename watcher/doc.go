// Package watcher tells the caller, soon after the fact, which files in the
// library folders have changed: it watches every folder below each root
// with fsnotify, settles bursts of events per path (a quiet window, a
// write-stability check and a hard cap), and hands on batches of changed
// and removed paths, or a request for a full rescan when events were lost
// or cannot be trusted.
//
// The full scan stays the source of truth; the watcher only makes it
// sooner. It never reads file contents and never touches the index.
package watcher
