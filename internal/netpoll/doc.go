// Package netpoll serves WebSocket connections from epoll loops after the
// HTTP handshake, so that an idle connection owns no goroutine, no timer and
// no buffer (docs/design.md, "The life of a connection"). The loops may also
// accept connections and upgrade plain handshakes themselves
// (handshake_linux.go), and serve TLS connections with their crypto/tls
// state (tls_linux.go, Stream), and hold the sockets of HTTP responses that
// stay open once net/http has let them go (Hold, held_linux.go).
//
// A Poller runs one loop per configured core. Each loop owns its connections
// outright: their session state, their timing-wheel entries and their write
// backlogs are touched only by the loop's goroutine, so none of it is
// locked. Other goroutines talk to a loop through its inbox (a mutex-guarded
// slice plus an eventfd wake-up): new connections, hub deliveries and
// shutdown all arrive that way.
//
// Reads go into one buffer per loop; only an incomplete frame is copied into
// a pooled per-connection buffer, returned to the pool as soon as the frame
// completes. Writes go straight to the socket; what the kernel does not take
// waits in a per-connection backlog capped in bytes, and a connection whose
// backlog overflows or stays blocked past the write timeout is closed.
package netpoll
