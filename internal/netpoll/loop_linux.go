package netpoll

import (
	"crypto/tls"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/wheel"
	"github.com/roostproject/roost/internal/ws"
)

// wakeSlot is the epoll event data of the loop's eventfd; connections use
// their slot (>= 0), the listening socket listenSlot, held sockets what
// heldEvent makes of theirs.
const wakeSlot = -1

// readBufferSize is the size of each loop's shared read buffer.
const readBufferSize = 64 << 10

type opKind uint8

const (
	opAdd opKind = iota
	opDeliver
	opDrain
	opStop
	opFunc
)

// op is a request to a loop from another goroutine.
type op struct {
	kind opKind
	add  *addReq
	d    hub.Delivery
	f    func()
}

type addReq struct {
	fd       int
	buffered []byte
	app      *config.App
	ws       ws.State  // as the handshake negotiated it
	tls      *tls.Conn // nil for a plain connection
}

// loop is one epoll instance and the connections it owns.
type loop struct {
	cfg   *Config
	log   *slog.Logger
	shard int
	epfd  int
	efd   int     // eventfd that wakes epoll_wait for the inbox
	waits *waiter // parks the loop in Go's poller (wait_linux.go); nil: epoll_wait blocks

	// Owned by the loop goroutine.
	conns     []*conn     // by slot
	tlsConns  []*tls.Conn // by slot, for TLS connections; nil until the loop has one
	free      []int32     // slots of closed connections, for reuse
	held      []*Held     // by held slot (held_linux.go)
	freeHeld  []int32     // held slots free for reuse
	wheel     *wheel.Wheel
	buf       []byte
	now       int64 // Unix nanoseconds at the last wake-up
	dying     []*conn
	budget    int     // what the connection being decoded may still spend this turn
	frag      []byte  // the fragment buffer of the connection being decoded: a slot whose address does not escape per call
	deferred  []*conn // connections whose read input waits for the next turn
	resuming  []*conn // the previous turn's deferred, being resumed
	draining  bool
	local     counters
	queued    int64   // bytes in the loop's backlogs (shed_linux.go)
	sheddable int64   // of which in connections not shed yet
	shedding  []*conn // the largest backlogs, reused by each shedding pass (shed_linux.go)
	uring     *uring  // with Config.Uring: deliveries' sends, batched (uring_linux.go)

	// The listening socket, when the loop accepts (handshake_linux.go).
	lfd         int        // -1 once Unlisten closed it
	hs          Handshaker // nil when the loop never accepted
	accepting   bool       // lfd is in the loop's epoll
	maxHead     int        // the largest request head read on the loop, bytes
	headTimeout time.Duration
	hello       []byte              // the 101 and the first frames of an upgrade, written at once
	peer        unix.RawSockaddrAny // the address accept4 fills in
	handshakes  int                 // connections with fHandshake (files_linux.go)
	heldBack    bool                // not accepting while handshakes is at its share

	count   atomic.Int64 // connections, readable by anyone
	holding atomic.Int64 // held sockets (Poller.Hold), not yet closed
	drained chan struct{}
	stopped chan struct{}

	mu       sync.Mutex // guards inbox
	inbox    []op
	spare    []op
	signaled atomic.Bool // an eventfd wake-up is pending
}

func newLoop(cfg *Config, shard int) (*loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeSlot}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(efd)
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	now := time.Now().UnixNano()
	l := &loop{
		cfg: cfg, log: log, shard: shard, epfd: epfd, efd: efd,
		waits: newWaiter(epfd),
		wheel: wheel.New(time.Second, 512, now), buf: make([]byte, readBufferSize), now: now,
		drained: make(chan struct{}), stopped: make(chan struct{}),
	}
	if cfg.Uring {
		if err := l.newUring(); err != nil {
			l.closeFDs()
			return nil, err
		}
	}
	return l, nil
}

func (l *loop) closeFDs() {
	if l.waits != nil {
		l.waits.f.Close() // first, so that Go's poller forgets the epoll instance
	}
	l.closeUring()
	unix.Close(l.epfd)
	unix.Close(l.efd)
}

// Post implements hub.Shard.
func (l *loop) Post(d hub.Delivery) { l.post(op{kind: opDeliver, d: d}) }

// Do implements hub.Shard.
func (l *loop) Do(f func()) { l.post(op{kind: opFunc, f: f}) }

// post queues o and wakes the loop if it is not already being woken.
func (l *loop) post(o op) {
	l.mu.Lock()
	l.inbox = append(l.inbox, o)
	l.mu.Unlock()
	if !l.signaled.Swap(true) {
		var one = [8]byte{1}
		unix.Write(l.efd, one[:])
	}
}

// run is the loop goroutine.
func (l *loop) run() {
	defer close(l.stopped)
	events := make([]unix.EpollEvent, 256)
	for {
		n, err := l.wait(events, l.wakeAt())
		if err != nil && err != unix.EINTR {
			l.log.Error("epoll_wait failed; loop stops", "err", err)
			return
		}
		l.now = time.Now().UnixNano()
		waiting := l.takeDeferred()
		for i := 0; i < n; i++ {
			if l.event(events[i]) {
				l.stop()
				return
			}
		}
		l.resume(waiting)
		l.wheel.Advance(l.now, l.expire)
		l.reap()
		l.local.flush(l.cfg.Stats)
	}
}

// wakeAt is when the loop must wake if no event comes first, Unix ns: 0
// for never, now when it must not sleep.
func (l *loop) wakeAt() int64 {
	now := time.Now().UnixNano()
	if len(l.deferred) > 0 {
		return now // input is waiting: look for others' events without sleeping
	}
	d := l.wheel.NextTimeout(now)
	if d < 0 {
		return 0
	}
	return now + int64(d)
}

// event handles one epoll event; it reports whether the loop must stop.
func (l *loop) event(ev unix.EpollEvent) bool {
	if ev.Fd == wakeSlot {
		return l.drain()
	}
	if ev.Fd == listenSlot {
		l.accept()
		return false
	}
	if slot := heldSlot(ev.Fd); slot >= 0 {
		if h := l.held[slot]; h != nil {
			h.event(ev.Events)
		}
		return false
	}
	c := l.conns[ev.Fd]
	if c == nil {
		return false
	}
	if ev.Events&unix.EPOLLOUT != 0 {
		c.flush()
	}
	if ev.Events&(unix.EPOLLIN|unix.EPOLLHUP|unix.EPOLLERR|unix.EPOLLRDHUP) != 0 && c.flags&fDeferred == 0 {
		c.read()
	}
	return false
}

// drain runs every queued op; it reports whether the loop must stop.
func (l *loop) drain() bool {
	var b [8]byte
	readFD(l.efd, b[:])
	l.signaled.Store(false)
	l.mu.Lock()
	ops := l.inbox
	l.inbox, l.spare = l.spare[:0], nil
	l.mu.Unlock()
	stop := false
	for i := range ops {
		stop = l.do(&ops[i]) || stop
		ops[i] = op{}
	}
	l.spare = ops[:0]
	return stop
}

func (l *loop) do(o *op) bool {
	switch o.kind {
	case opAdd:
		l.add(o.add)
	case opDeliver:
		l.deliver(o.d)
	case opDrain:
		l.drainAll()
	case opFunc:
		o.f()
	case opStop:
		return true
	}
	return false
}

// drainAll starts a graceful shutdown of every connection.
func (l *loop) drainAll() {
	l.draining = true
	l.unlisten()
	for _, c := range l.conns {
		switch {
		case c == nil:
		case c.flags&fHandshake != 0:
			l.kill(c, 0)
		default:
			c.call().Shutdown()
		}
	}
	l.checkDrained()
}

func (l *loop) checkDrained() {
	if l.draining && l.count.Load() == 0 && l.holding.Load() == 0 {
		select {
		case <-l.drained:
		default:
			close(l.drained)
		}
	}
}

// stop closes every connection at once and releases the loop's descriptors.
func (l *loop) stop() {
	for _, c := range l.conns {
		if c != nil {
			l.kill(c, connstats.Server)
		}
	}
	l.endHeld()
	l.reap()
	l.local.flush(l.cfg.Stats)
	l.closeFDs()
}

// jitter spreads first deadlines over a tenth of the activity timeout, so a
// reconnect storm does not make every connection time out in the same second.
func (l *loop) jitter() int64 {
	span := int64(l.cfg.Policy.ActivityTimeout / 10)
	if span <= 0 {
		return 0
	}
	return rand.Int64N(span)
}
