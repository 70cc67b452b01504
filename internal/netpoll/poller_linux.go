package netpoll

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/ws"
)

// Supported reports whether this platform has the epoll transport.
const Supported = true

// Poller spreads connections over its loops.
type Poller struct {
	loops []*loop
	next  atomic.Uint32
	lfd   int // the listening socket the loops accept on (Listen), or -1
}

// New creates the loops and starts their goroutines, registering each as a
// hub shard.
func New(cfg Config) (*Poller, error) {
	if cfg.Loops < 1 {
		return nil, errors.New("netpoll: at least one loop is needed")
	}
	p := &Poller{lfd: -1}
	for i := 0; i < cfg.Loops; i++ {
		l, err := newLoop(&cfg, cfg.FirstShard+i)
		if err != nil {
			for _, l := range p.loops {
				l.closeFDs()
			}
			return nil, err
		}
		cfg.Hub.SetShard(l.shard, l)
		p.loops = append(p.loops, l)
	}
	for _, l := range p.loops {
		go l.run()
	}
	return p, nil
}

// Dup duplicates c's socket so that a loop can own it, leaving c open.
// Call it before the upgrade response: a process out of descriptors then
// refuses the handshake instead of dropping the connection after 101
// Switching Protocols. It uses SyscallConn().Control and not File(), which
// would switch the shared file description to blocking mode; the duplicate
// stays non-blocking.
func Dup(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, fmt.Errorf("netpoll: %T has no file descriptor", c)
	}
	return dupFD(sc)
}

// dupFD duplicates sc's descriptor as Dup does.
func dupFD(sc syscall.Conn) (int, error) {
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("netpoll: %w", err)
	}
	fd := -1
	var dupErr error
	err = raw.Control(func(s uintptr) { fd, dupErr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) })
	if err == nil {
		err = dupErr
	}
	if err != nil {
		return -1, fmt.Errorf("netpoll: dup: %w", err)
	}
	return fd, nil
}

// CloseDup closes a descriptor from Dup that is not given to Add.
func CloseDup(fd int) { unix.Close(fd) }

// Add takes over fd, a socket from Dup whose net.Conn the caller has
// closed, so that it leaves the Go runtime (docs/design.md, "Leaving the Go
// runtime") and is served by a loop from now on. buffered are bytes the
// HTTP server read past the handshake; st is the decoder state the
// handshake left (ws.Upgrade), which says whether it negotiated compression.
func (p *Poller) Add(fd int, buffered []byte, app *config.App, st ws.State) {
	l := p.loops[p.next.Add(1)%uint32(len(p.loops))]
	l.post(op{kind: opAdd, add: &addReq{fd: fd, buffered: buffered, app: app, ws: st}})
}

// Len returns the number of connections the loops serve.
func (p *Poller) Len() int {
	n := 0
	for _, l := range p.loops {
		n += int(l.count.Load())
	}
	return n
}

// Holding returns the number of sockets the loops hold for Hold.
func (p *Poller) Holding() int {
	n := 0
	for _, l := range p.loops {
		n += int(l.holding.Load())
	}
	return n
}

// DisableApp closes every connection of the app with id appID with 4003,
// each on its own loop. It does not wait.
func (p *Poller) DisableApp(appID string) {
	for _, l := range p.loops {
		l.post(op{kind: opFunc, f: func() {
			for _, c := range l.conns {
				if c != nil && c.flags&fHandshake == 0 {
					c.call().Disable(appID)
				}
			}
		}})
	}
}

// Shutdown asks every connection to reconnect elsewhere (pusher:error and
// close 4200), waits until they and the held sockets (whose feeds are told
// to end by their owner) are gone or ctx ends, then closes whatever is left
// and stops the loops.
func (p *Poller) Shutdown(ctx context.Context) error {
	for _, l := range p.loops {
		l.post(op{kind: opDrain})
	}
	for _, l := range p.loops {
		select {
		case <-l.drained:
		case <-ctx.Done():
		}
	}
	p.close()
	return ctx.Err()
}

func (p *Poller) close() {
	for _, l := range p.loops {
		l.post(op{kind: opStop})
		<-l.stopped
	}
}
