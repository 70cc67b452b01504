package hub

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Subscriber is a connection as the hub sees it. The hub calls its methods
// from the goroutine that owns the subscriber's shard (Shard.Post's contract),
// with that shard's mutex held: they must not block and must not call back
// into the hub.
type Subscriber interface {
	// SocketSeq is the local part of the connection's socket_id, for exclusion.
	SocketSeq() uint64
	// Deliver writes one published frame, in the form the connection
	// negotiated (Frame.For).
	Deliver(f *Frame)
	// Terminate closes the connection (terminate_connections).
	Terminate()
	// Moved tells the subscriber its new position in ch's list of its shard.
	Moved(ch *Channel, index int)
}

// Shard is a group of connections served by one goroutine (an epoll loop) or
// guarded by one lock (the portable transport).
type Shard interface {
	// Post hands over a delivery. The shard later calls Hub.Flush(d) from the
	// goroutine that may write to its connections. Post must not block.
	Post(d Delivery)
	// Do runs f on the goroutine that owns the shard's connections. It must
	// not block.
	Do(f func())
}

// Delivery is one encoded event for one shard's subscribers of a channel.
type Delivery struct {
	Channel   *Channel
	Shard     int
	Frame     *Frame // nil for a terminate
	Except    uint64 // socket sequence to skip; 0 = none
	terminate bool
}

// Config holds what a Hub needs.
type Config struct {
	// Shards is the number of shards; shard ids are 0..Shards-1.
	Shards int
	// Encode turns a message into the WebSocket frame sent to subscribers.
	Encode func(*Message) []byte
	// Compress turns such a frame into its permessage-deflate form, or nil
	// when that is not smaller (see Frame). Zero value means never.
	Compress func([]byte) []byte
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// StoreWait bounds every wait for the shared state (see async); zero
	// means DefaultStoreWait.
	StoreWait time.Duration
}

// Hub indexes channels per app and fans messages out to the shards.
type Hub struct {
	encode   func(*Message) []byte
	compress func([]byte) []byte
	node     uint64
	seq      atomic.Uint64
	now      func() time.Time
	conns    connections

	// The broker and the shared state: in memory on one node, replaced by
	// SetBroker and SetState in a cluster.
	broker   Broker
	presence Presence
	users    Users
	counts   Counts
	cache    Cache
	tally    Tally
	inline   bool          // every store is the hub's own, in memory
	wait     time.Duration // Config.StoreWait
	late     atomic.Bool   // a WaitStored ran out, and no mark was answered since (see stored.go)
	recheck  atomic.Int64  // until when (UnixNano) a cache channel's joiner reads the store (see recache)

	// observer is told of the facts webhooks report; localCounts says the
	// hub reports channel transitions itself (its counts are in memory).
	observer    Observer
	localCounts bool

	// console is the dashboard's debug console while one is open, else nil
	// (see console.go).
	console atomic.Pointer[consoleRef]

	shards []Shard
	locks  []sync.Mutex

	mu        sync.RWMutex // guards apps, channel creation/removal and the totals
	apps      map[string]*appChannels
	nchannels int // channels in apps
	nsubs     int // subscriptions, the sum of their counts
}

// New returns a hub with an in-memory broker and in-memory state; node is
// the first part of every socket_id this hub hands out (unique per node in a
// cluster).
func New(cfg Config, node uint64) *Hub {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StoreWait <= 0 {
		cfg.StoreWait = DefaultStoreWait
	}
	h := &Hub{
		encode:   cfg.Encode,
		compress: cfg.Compress,
		now:      cfg.Now,
		conns:    connections{count: make(map[string]int)},
		node:     node,
		inline:   true,
		wait:     cfg.StoreWait,
		presence: NewMemoryPresence(),
		users:    NewMemoryUsers(),
		cache:    NewMemoryCache(cfg.Now),
		tally:    alone{},
		shards:   make([]Shard, cfg.Shards),
		locks:    make([]sync.Mutex, cfg.Shards),
		apps:     make(map[string]*appChannels),
		observer: NopObserver{},
	}
	h.broker = NewMemoryBroker(h.Deliver)
	h.counts, h.localCounts = memoryCounts{h}, true
	return h
}

// SetBroker replaces the broker; call before any connection is served.
func (h *Hub) SetBroker(b Broker) { h.broker = b }

// Node returns the node id: the first part of this node's socket_ids.
func (h *Hub) Node() uint64 { return h.node }

// SetShard registers the shard with id i; call before serving connections.
func (h *Hub) SetShard(i int, s Shard) { h.shards[i] = s }

// NewSocketID returns a fresh socket_id ("node.seq") and its sequence part.
func (h *Hub) NewSocketID() (string, uint64) {
	seq := h.seq.Add(1)
	return h.SocketID(seq), seq
}

// SocketID formats the socket_id of a local sequence number.
func (h *Hub) SocketID(seq uint64) string {
	b := make([]byte, 0, 24)
	b = strconv.AppendUint(b, h.node, 10)
	b = append(b, '.')
	return string(strconv.AppendUint(b, seq, 10))
}

// localSeq returns the sequence of socketID when it belongs to this node, else 0.
func (h *Hub) localSeq(socketID string) uint64 {
	node, seq, ok := strings.Cut(socketID, ".")
	if !ok {
		return 0
	}
	n, err := strconv.ParseUint(node, 10, 64)
	if err != nil || n != h.node {
		return 0
	}
	s, _ := strconv.ParseUint(seq, 10, 64)
	return s
}
