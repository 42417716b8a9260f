//go:build darwin || freebsd

package handoff

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

const canCheckPeers = true

// peerUID is the user of the process at the other end of conn, as the
// kernel recorded it when that process connected.
func peerUID(conn net.Conn) (int, error) {
	var uid int
	err := control(conn, func(fd int) error {
		cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if err != nil {
			return fmt.Errorf("LOCAL_PEERCRED: %w", err)
		}
		uid = int(cred.Uid)
		return nil
	})
	return uid, err
}
