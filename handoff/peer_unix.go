//go:build linux || darwin || freebsd

package handoff

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

const canCheckPeers = true

// peerUID is the user of the process at the other end of conn, as the
// kernel recorded it when that process connected.
func peerUID(conn net.Conn) (int, error) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return 0, errors.New("not a socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("reach the socket: %w", err)
	}
	var uid uint32
	var ferr error
	if err := raw.Control(func(fd uintptr) { uid, ferr = socketPeerUID(int(fd)) }); err != nil {
		return 0, fmt.Errorf("reach the socket: %w", err)
	}
	return int(uid), ferr
}
