//go:build !linux

package netpoll

import (
	"context"
	"errors"
	"net"

	"github.com/roostproject/roost/internal/config"
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

// Add is never called on this platform.
func (*Poller) Add(net.Conn, []byte, *config.App) error { return errors.ErrUnsupported }

// Len returns 0.
func (*Poller) Len() int { return 0 }

// Shutdown does nothing.
func (*Poller) Shutdown(context.Context) error { return nil }

// DisableApp does nothing: no loop holds connections.
func (*Poller) DisableApp(string) {}
