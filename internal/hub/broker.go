package hub

// Message is one event on one channel as it travels between nodes. The hub
// encodes it into a WebSocket frame only on the node that delivers it.
type Message struct {
	App     string `json:"a"`
	Channel string `json:"c"`
	Event   string `json:"e"`
	Data    string `json:"d"`
	// UserID is added to the delivered message as "user_id" (client events on
	// presence channels); empty means none.
	UserID string `json:"u,omitempty"`
	// Except is the socket_id ("node.seq") that must not receive the message.
	Except string `json:"x,omitempty"`
	// Terminate, instead of an event, closes every connection subscribed to
	// the channel (terminate_connections on a server-to-user channel).
	Terminate bool `json:"t,omitempty"`
}

// Broker moves messages between the nodes of a cluster. The hub calls Publish
// for every event; the broker hands every message meant for this node,
// including the node's own, back through the Deliver function it was given.
// Subscribe and Unsubscribe tell the broker which channels have local
// subscribers, so a node only receives what it serves; Subscribe calls ready
// (from any goroutine) once the channel's messages from other nodes will
// arrive, so that no event published after subscription_succeeded is lost.
//
// Implementations must not block in any method: the hub calls them with its
// own locks held, in order, and a broker that talks to a network queues the
// work (keeping that order) instead.
type Broker interface {
	Publish(m *Message) error
	Subscribe(app, channel string, ready func())
	Unsubscribe(app, channel string)
}

// Storer is implemented by a Broker that writes to a shared store after
// Publish has returned. Stored calls done, from any goroutine and at most
// once, when everything this node published and cached before the call is
// in the store; at once while the store is known unreachable or the node's
// queue is full. It must not block. An HTTP API publish waits for it (see
// WaitStored); events from the loops never do.
type Storer interface {
	Stored(done func())
}

// MemoryBroker is the single-node broker: a publish is delivered at once to
// this node's subscribers. It is the default.
type MemoryBroker struct {
	deliver func(*Message)
}

var _ Broker = (*MemoryBroker)(nil)

// NewMemoryBroker returns a broker that passes every message to deliver.
func NewMemoryBroker(deliver func(*Message)) *MemoryBroker {
	return &MemoryBroker{deliver: deliver}
}

// Publish delivers m locally.
func (b *MemoryBroker) Publish(m *Message) error {
	b.deliver(m)
	return nil
}

// Subscribe is ready at once: one node receives every message already.
func (b *MemoryBroker) Subscribe(app, channel string, ready func()) { ready() }

// Unsubscribe does nothing.
func (b *MemoryBroker) Unsubscribe(app, channel string) {}
