package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/webhook"
)

// Store is what a node needs of the shared store that links it to the
// others (docs/design.md, "What a store provides"). Every call is bounded
// by its context. A call that finds the store unreachable returns an error
// that wraps ErrDown, and the node answers from its own share; any other
// error may mean the call was carried out, and the node writes its shares
// again. The node calls no method but Beat while the store counts as
// unreachable.
type Store interface {
	// Name names the store in logs and in the readiness answer.
	Name() string
	// Start starts the store's own goroutines with n.Go, once n is ready.
	Start(n *Node)
	// Close ends the subscriptions, calls wait (which returns once every
	// goroutine of the node has), and closes the connections.
	Close(wait func()) error

	Heartbeats
	Shares
	Reads
	Board
	Outbox
	Tallies
	Refresher
	Routes

	// Write sends a batch of the outbox in order: messages to the other
	// nodes, cache entries, and marks whose Done it calls once the writes
	// before them are stored. False: nothing may have been sent, and the
	// node tries the same batch again.
	Write(batch []Outbound) bool
	// Subscribe applies subscription changes in order; each SubOp's Ready
	// is called once the store delivers the channel's messages.
	Subscribe(ops []SubOp)
	// Hold applies delayed webhook operations in order (webhook.Pending).
	Hold(ctx context.Context, ops []webhook.Op)
}

// Heartbeats are a store's node records: each node's heartbeat (its
// epoch), which lapses NodeTTL after its last refresh, the list of nodes
// that ever beat, and the reapers' locks.
type Heartbeats interface {
	// Beat refreshes this node's heartbeat with epoch and lists the node;
	// missing reports that the heartbeat had lapsed (or the store lost it).
	Beat(ctx context.Context, epoch string) (missing bool, err error)
	// Leave removes this node's heartbeat: it is stopping.
	Leave(ctx context.Context)
	// Nodes returns the live nodes' epochs and every node listed.
	Nodes(ctx context.Context) (alive map[string]string, listed []string, err error)
	// Lock takes the lock on reaping node for ttl, if no other node holds it.
	Lock(ctx context.Context, node string, ttl time.Duration) bool
	// Alive reports whether node's heartbeat is there.
	Alive(ctx context.Context, node string) (bool, error)
	// Reap removes a dead node's shares: counts first, then presence,
	// then users. It reports what vanished, also when it fails midway.
	Reap(ctx context.Context, node string) (Reaped, error)
	// Forget unlists a reaped node, or one found alive after all, and
	// releases its lock.
	Forget(ctx context.Context, node string, reaped bool)
}

// Shares are the writes of this node's share of the cluster's state.
type Shares interface {
	// Change makes c's change of this node's share in the store and
	// returns the user's totals across the cluster around it; full means
	// a new member would exceed c.Max, and nothing changed.
	Change(ctx context.Context, c *Change) (before, after int, full bool, err error)
	// WriteShares makes this node's presence members and signed-in users
	// in the store exactly those of own.
	WriteShares(ctx context.Context, own Own) error
	// AddCounts adds b's changes to this node's channel counts and returns
	// the channels whose cluster-wide count left or reached zero. It makes
	// a batch once: see Batch.
	AddCounts(ctx context.Context, b Batch) ([]Transition, error)
	// SetCounts makes this node's channel counts exactly b's, once, as
	// AddCounts does.
	SetCounts(ctx context.Context, b Batch) ([]Transition, error)
}

// Reads are the store's cluster-wide answers.
type Reads interface {
	// Count is a channel's subscriptions on every node.
	Count(ctx context.Context, app, channel string) (int, error)
	// Channels are the counts of an app's channels starting with prefix.
	Channels(ctx context.Context, app, prefix string) (map[string]int, error)
	// Members are a presence channel's members, in any order.
	Members(ctx context.Context, app, channel string) ([]hub.Member, error)
	// IsMember reports whether user is a member of a presence channel.
	IsMember(ctx context.Context, app, channel, user string) (bool, error)
	// Online returns the ids of users signed in on any node.
	Online(ctx context.Context, app string, ids []string) ([]string, error)
	// Cached returns a cache channel's last event and how long it lives.
	Cached(ctx context.Context, app, channel string) (m hub.Message, ttl time.Duration, ok bool, err error)
}

// ErrDown is wrapped by the error of a call that found the store
// unreachable.
var ErrDown = errors.New("store unreachable")

// Outbound is one write of the outbox: a message for the other nodes, a
// cache entry (Cache), or, with no Msg, a mark whose Done is called once
// the writes queued before it are stored (see Node.Stored).
type Outbound struct {
	Msg   *hub.Message
	Cache bool
	Seq   uint64 // a store's number for the message, given on its first try
	Done  func()
}

// Reaped is what vanished with a dead node.
type Reaped struct {
	Vacated []Key       // channels whose last subscriptions were the node's
	Removed []Departure // members whose last connections were the node's
	Offline []Key       // users (Name) whose last sign-ins were the node's
}

// Batch is one write of this node's channel counts. A write whose answer
// did not arrive may still have been made (a reply lost to a timeout, a
// stopped store that runs it when it resumes), so the node sends a batch
// again, as it was and under the same ID, until the store answers; a
// store keeps, for a while beside the counts, the transitions each batch
// made, and answers a batch it has made already with them instead of
// making it again. Only an answer without error reports the transitions:
// a store answers a batch whole or not at all. IDs increase with every
// batch of a node, and a store may ignore a batch older than the last one
// it made for the node (it was answered).
type Batch struct {
	ID     uint64
	Counts map[Key]int
}

// Transition is a channel count that a write took from or to zero.
type Transition struct {
	Key
	Before, After int
}

// Own is this node's own share, for a store to write again outright.
type Own struct {
	Presence map[Key][]Share // per channel, its members here
	Users    map[Key]int     // per user (Name), its connections here
}

// Share is one member's connections on this node.
type Share struct {
	hub.Member
	Conns int
}
