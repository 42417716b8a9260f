//go:build unix

package handoff

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// control runs f on conn's socket.
func control(conn net.Conn, f func(fd int) error) error {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return errors.New("not a socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return fmt.Errorf("reach the socket: %w", err)
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return fmt.Errorf("reach the socket: %w", err)
	}
	return ferr
}
