//go:build windows

package handoff

import (
	"net"
	"os"
)

const canCheckPeers = true

// peerUID is this process's user (-1 on Windows) for every connection:
// Windows tells a socket's server no peer's user, and the socket's access
// list (mkdirPrivate) already let only this user connect.
func peerUID(net.Conn) (int, error) { return os.Geteuid(), nil }
