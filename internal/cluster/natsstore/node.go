package natsstore

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
)

// NATS is a cluster's store on NATS with JetStream.
type NATS struct {
	cfg  *cluster.Settings
	node string
	nc   *nats.Conn
	js   jetstream.JetStream
	log  *slog.Logger
	kv   atomic.Pointer[buckets]      // nil until JetStream has answered
	host atomic.Pointer[cluster.Node] // set by Start, for nats.go's callbacks
	ctx  context.Context
	link *cluster.Link

	acks      acks
	in        chan *nats.Msg // every channel subject's messages, for receiveLoop
	subs      map[string]*nats.Subscription
	lastSeq   atomic.Uint64 // the number of the last message written; the publish loop writes it
	sent      unconfirmed   // the messages NATS has not confirmed
	before    uint64        // the writes the previous confirmation covered; confirm's
	resendDue atomic.Bool   // an outage was seen: send them again once settled
	seen      cluster.Seen  // the numbers received from other nodes
	guesses   guesses       // the values this node last wrote, to change them in one round trip
	parallel  int           // channels written at once by a count flush (flushParallel)
}

var _ cluster.Store = (*NATS)(nil)

// open connects to the NATS that url names (see Backend). A bad URL is an
// error; an unreachable NATS is not.
func open(url string, s cluster.Settings) (*NATS, error) {
	n := &NATS{in: make(chan *nats.Msg, s.Outbox), subs: make(map[string]*nats.Subscription), parallel: flushParallel}
	n.sent.max = s.Outbox
	n.seen.Window = (uint64(s.Outbox) + 63) / 64 * 64
	nc, err := nats.Connect(url, n.options(s)...)
	if err != nil {
		return nil, fmt.Errorf("natsstore: nats url: %w", err)
	}
	n.nc = nc
	if err = n.acks.listen(nc); err == nil {
		n.js, err = jetstream.New(nc)
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("natsstore: jetstream: %w", err)
	}
	return n, nil
}

// options are the connection's: it retries for ever, a failed first
// connection included, and tells the node when it drops and comes back.
func (n *NATS) options(s cluster.Settings) []nats.Option {
	return []nats.Option{
		nats.Name(fmt.Sprint("roost node ", s.Node)),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(cluster.ProbeEvery),
		nats.Timeout(time.Second),
		nats.PingInterval(s.SlowReply),
		nats.MaxPingsOutstanding(1),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if h := n.host.Load(); h != nil && !nc.IsClosed() {
				n.lost()
				h.Down(err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { n.suspect() }),
		nats.ConnectHandler(func(*nats.Conn) { n.suspect() }),
	}
}

func (n *NATS) suspect() {
	if h := n.host.Load(); h != nil {
		h.Link().Suspect()
	}
}

// lost forgets what an outage makes stale (the guesses), and has the
// messages NATS had not confirmed sent again.
func (n *NATS) lost() {
	n.resendDue.Store(true)
	n.guesses.forget()
}

// Name implements cluster.Store.
func (n *NATS) Name() string { return "nats" }

// Start implements cluster.Store.
func (n *NATS) Start(h *cluster.Node) {
	n.cfg, n.node, n.log, n.ctx = h.Settings(), h.ID(), h.Settings().Logger, h.Context()
	n.link = h.Link()
	n.host.Store(h)
	h.Go(n.receiveLoop)
	h.Every(purgeEvery, n.purgeTombstones)
	h.Every(confirmEvery, n.confirm)
}

// Close implements cluster.Store.
func (n *NATS) Close(wait func()) error {
	wait()
	n.nc.Close()
	return nil
}
