//go:build !linux

package netpoll

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"time"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/ws"
)

// Supported reports whether this platform has the epoll transport.
const Supported = false

// Poller is unavailable on this platform; the server uses the portable
// transport instead.
type Poller struct{}

// New fails: epoll is Linux-only.
func New(Config) (*Poller, error) {
	return nil, errors.New("netpoll: epoll is only available on Linux")
}

// UringWorks reports false: io_uring is Linux's.
func UringWorks() bool { return false }

// Dup fails: no loop can own a socket on this platform.
func Dup(net.Conn) (int, error) { return -1, errors.ErrUnsupported }

// CloseDup is never called on this platform.
func CloseDup(int) {}

// Add is never called on this platform.
func (*Poller) Add(int, []byte, *config.App, ws.State) {}

// Held is a socket a loop holds; there are none on this platform.
type Held struct{}

// Hold is never called on this platform.
func (*Poller) Hold(int, Feed) *Held { return nil }

// HoldTLS is never called on this platform.
func (*Poller) HoldTLS(int, *tls.Conn, Feed) *Held { return nil }

// Wake does nothing.
func (*Held) Wake() {}

// End does nothing.
func (*Held) End() {}

// Blocked returns the zero time.
func (*Held) Blocked() time.Time { return time.Time{} }

// Holding returns 0.
func (*Poller) Holding() int { return 0 }

// Len returns 0.
func (*Poller) Len() int { return 0 }

// Shutdown does nothing.
func (*Poller) Shutdown(context.Context) error { return nil }

// DisableApp does nothing: no loop holds connections.
func (*Poller) DisableApp(string) {}

// AddTLS is never called on this platform.
func (*Poller) AddTLS(int, *tls.Conn, []byte, *config.App, ws.State) {}

// Listen fails: no loop accepts on this platform.
func (*Poller) Listen(net.Listener, Handshaker, int, time.Duration) error {
	return errors.ErrUnsupported
}

// Unlisten does nothing.
func (*Poller) Unlisten() {}
