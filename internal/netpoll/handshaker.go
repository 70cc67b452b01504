package netpoll

import (
	"net"
	"net/netip"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/ws"
)

// Handshaker decides about the requests a loop reads itself. Its methods
// are called on loop goroutines and must not block.
type Handshaker interface {
	// Handshake gets the head of a request (through its blank line) that
	// arrived on socket fd from the address from. It returns an Accepted
	// with an App to upgrade the connection at once; or an answer for the
	// loop to send before it closes the connection (a refusal that must not
	// cost another descriptor); or neither, to hand the connection to
	// Handoff.
	Handshake(fd int, head []byte, from netip.Addr) (up Accepted, answer []byte)
	// Handoff receives a connection the loop does not serve, which reads
	// the bytes the loop read before what the socket has.
	Handoff(c net.Conn)
	// HandshakeTimedOut counts a connection closed because no complete
	// request head arrived within the handshake timeout.
	HandshakeTimedOut()
}

// Accepted is a handshake a loop upgrades itself.
type Accepted struct {
	App *config.App
	Key string // the client's Sec-WebSocket-Key
	// Extensions is the Sec-WebSocket-Extensions value the 101 carries
	// ("" for none), and WS the decoder state the connection starts from:
	// both as ws.Negotiate returns them.
	Extensions string
	WS         ws.State
}
