//go:build unix

package transport

import (
	"net"
	"syscall"
)

// rawSocket is the socket under c, for writes that never wait (writeNow).
func rawSocket(c *net.TCPConn) syscall.RawConn {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// writeNow writes what the socket takes of buf at once and returns how much
// that was: less than all (even nothing) when its buffer is full, or on any
// error, which the writer's own write then meets and handles.
func writeNow(raw syscall.RawConn, buf []byte) int {
	var n int
	_ = raw.Write(func(fd uintptr) bool {
		n, _ = syscall.Write(int(fd), buf)
		return true // never wait for the socket to become writable
	})
	return max(n, 0)
}
