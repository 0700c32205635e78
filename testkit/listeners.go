package testkit

import (
	"net"
	"testing"
)

// OtherProtocol starts a listener on 127.0.0.1 that speaks another
// protocol than HTTP (an SSH banner, then it hangs up) until the test ends,
// and returns its address.
func OtherProtocol(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}
