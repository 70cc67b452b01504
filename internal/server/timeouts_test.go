package server

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/config"
)

// TestHandshakeTimeoutsAreCounted: a client that sends nothing, and one
// that stops in the middle of its headers (slowloris), are closed at the
// handshake timeout and counted; a served connection is not.
func TestHandshakeTimeoutsAreCounted(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr string) {
		s := startServer(t, tr, func(c *config.Config) { c.Limits.HandshakeTimeout = time.Second })
		s.connect(t).Subscribe("served")
		for _, sent := range []string{"", "GET /app/app-key?protocol=7 HTTP/1.1\r\nHost: roost\r\n"} {
			c, err := net.Dial("tcp", s.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, sent)
			c.SetReadDeadline(time.Now().Add(waitLimit))
			if n, err := c.Read(make([]byte, 1)); err != io.EOF {
				t.Fatalf("after sending %q: read %d bytes, %v; want the server to close the connection", sent, n, err)
			}
		}
		waitForMetrics(t, s, "roost_handshake_timeouts_total 2")
	})
}
