package bench

import (
	"io"
	"net"
	"testing"
)

// BenchmarkLoopbackWrite measures the floor under every delivered message
// on this machine: one write(2) of a 72-byte frame (the size of the fan-out
// bench's event) to a loopback TCP socket whose peer drains it. On loopback
// the writer's system call also runs the receiver's TCP input, so this is
// the kernel cost roost pays per subscriber before any code of its own.
func BenchmarkLoopbackWrite(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	frame := make([]byte, 72)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Write(frame); err != nil {
			b.Fatal(err)
		}
	}
}
