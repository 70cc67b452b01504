package portable

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"

	"github.com/roostproject/roost/internal/config"
	"github.com/roostproject/roost/internal/connstats"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/session"
	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// Config holds what the transport needs. All fields are required unless noted.
type Config struct {
	Shard  int // the hub shard id of this transport
	Hub    *hub.Hub
	Env    *session.Env
	Policy transport.Policy // the limits and timeouts of every connection
	Logger *slog.Logger     // nil means slog.Default()
}

// Transport serves connections with goroutines.
type Transport struct {
	cfg   Config
	count atomic.Int64
	stats connstats.Stats
	wg    sync.WaitGroup

	mu    sync.Mutex // guards inbox, conns, draining, closed
	inbox []func()
	conns map[*conn]struct{}
	// draining is set when Shutdown begins: no connection joins wg after
	// it, so wg.Add never races wg.Wait.
	draining bool
	closed   bool
	wake     chan struct{}
	stopped  chan struct{}
}

// New starts the dispatcher and registers the transport as a hub shard.
func New(cfg Config) *Transport {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	t := &Transport{cfg: cfg, conns: make(map[*conn]struct{}), wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	cfg.Hub.SetShard(cfg.Shard, t)
	go t.dispatch()
	return t
}

// Post implements hub.Shard.
func (t *Transport) Post(d hub.Delivery) { t.do(func() { t.cfg.Hub.Flush(d) }) }

// Do implements hub.Shard.
func (t *Transport) Do(f func()) { t.do(f) }

// do runs f on the dispatcher goroutine, in order. It never blocks.
func (t *Transport) do(f func()) {
	t.mu.Lock()
	t.inbox = append(t.inbox, f)
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

func (t *Transport) dispatch() {
	defer close(t.stopped)
	for range t.wake {
		t.mu.Lock()
		work, closed := t.inbox, t.closed
		t.inbox = nil
		t.mu.Unlock()
		for _, f := range work {
			f()
		}
		if closed {
			return
		}
	}
}

// Len returns the number of connections served.
func (t *Transport) Len() int { return int(t.count.Load()) }

// Serve runs one upgraded connection until it ends; buffered are bytes read
// past the handshake, and st the decoder state the handshake left
// (ws.Upgrade). It blocks: call it from the connection's goroutine.
func (t *Transport) Serve(nc net.Conn, buffered []byte, app *config.App, st ws.State) {
	t.mu.Lock()
	if t.draining { // upgraded as the server stops: the client reconnects elsewhere
		t.mu.Unlock()
		nc.Close()
		return
	}
	t.wg.Add(1)
	t.mu.Unlock()
	defer t.wg.Done()
	capSend(nc, t.cfg.Policy.SendBuffer)
	c := newConn(t, nc, st)
	t.count.Add(1)
	t.stats.Opened()
	go c.writeLoop()
	t.do(func() {
		c.call().Init(app)
		t.mu.Lock()
		t.conns[c] = struct{}{}
		t.mu.Unlock()
	})
	c.readLoop(buffered)
	ended := make(chan struct{})
	t.do(func() {
		c.call().Closed()
		t.mu.Lock()
		delete(t.conns, c)
		t.mu.Unlock()
		close(ended)
	})
	<-ended
	c.stopWriter()
	t.stats.Ended(c.reason())
	t.count.Add(-1)
}

// DisableApp closes every connection of the app with id appID with 4003,
// on the dispatcher goroutine. It does not wait.
func (t *Transport) DisableApp(appID string) {
	t.do(func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		for c := range t.conns {
			c.call().Disable(appID)
		}
	})
}

// Shutdown asks every connection to reconnect elsewhere (4200), waits for
// them to go or for ctx to end, then closes what is left.
func (t *Transport) Shutdown(ctx context.Context) error {
	t.mu.Lock()
	t.draining = true
	t.mu.Unlock()
	t.do(func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		for c := range t.conns {
			c.call().Shutdown()
		}
	})
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		t.mu.Lock()
		for c := range t.conns {
			c.nc.Close()
		}
		t.mu.Unlock()
		<-done
	}
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.do(func() {})
	<-t.stopped
	return ctx.Err()
}

// capSend caps the kernel send buffer of nc's socket (Policy.SendBuffer).
func capSend(nc net.Conn, n int) {
	if tc, ok := nc.(interface{ NetConn() net.Conn }); ok {
		nc = tc.NetConn()
	}
	if tcp, ok := nc.(*net.TCPConn); ok && n > 0 {
		tcp.SetWriteBuffer(n)
	}
}
