package cluster

import "context"

// Backend is a store as a configuration names it (a Redis or a NATS URL):
// what opens a node's store there, and what lists and removes what a
// cluster left there under its prefix once no node of it runs (roost
// bench cluster).
type Backend struct {
	URL string
	// Open returns the store at url for a node with settings s; a bad URL
	// is an error, an unreachable store is not.
	Open func(url string, s Settings) (Store, error)
	// Kept lists the keys or buckets a cluster under prefix keeps.
	Kept func(ctx context.Context, url, prefix string) ([]string, error)
	// Purge deletes them: only when no node of the cluster runs.
	Purge func(ctx context.Context, url, prefix string) error
}

// StoreBackend is the Backend at url of a store package: open is its own
// open, which returns its store's type, and kept and purge its Kept and
// Purge. Every store package names its backend through it, so that a
// store it failed to open is a nil Store, never a nil pointer of its type.
func StoreBackend[S Store](url string, open func(url string, s Settings) (S, error),
	kept func(ctx context.Context, url, prefix string) ([]string, error),
	purge func(ctx context.Context, url, prefix string) error) Backend {
	return Backend{URL: url, Open: func(url string, s Settings) (Store, error) {
		store, err := open(url, s)
		if err != nil {
			return nil, err
		}
		return store, nil
	}, Kept: kept, Purge: purge}
}

// Board is where the nodes' dashboards share each node's latest figures,
// under the cluster's prefix.
type Board interface {
	// Post sets node's entry.
	Post(ctx context.Context, node string, v []byte) error
	// Entries returns every node's entry.
	Entries(ctx context.Context) (map[string][]byte, error)
	// Unpost removes the entries of nodes.
	Unpost(ctx context.Context, nodes ...string)
}

// Post implements Board, through the node's store.
func (n *Node) Post(ctx context.Context, node string, v []byte) error {
	if !n.link.Healthy.Load() {
		return ErrDown
	}
	return n.store.Post(ctx, node, v)
}

// Entries implements Board, through the node's store.
func (n *Node) Entries(ctx context.Context) (map[string][]byte, error) {
	if !n.link.Healthy.Load() {
		return nil, ErrDown
	}
	return n.store.Entries(ctx)
}

// Unpost implements Board, through the node's store.
func (n *Node) Unpost(ctx context.Context, nodes ...string) {
	if n.link.Healthy.Load() {
		n.store.Unpost(ctx, nodes...)
	}
}
