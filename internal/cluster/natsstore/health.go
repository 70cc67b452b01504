package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
)

// errNotConnected is why a node is degraded while nats.go has no connection.
var errNotConnected = fmt.Errorf("no connection to nats: %w", cluster.ErrDown)

// errNoBuckets answers a call made before JetStream has answered once.
var errNoBuckets = fmt.Errorf("nats: buckets not open: %w", cluster.ErrDown)

// The node records: a heartbeat per node in the alive bucket, whose
// entries expire after NodeTTL, and in the nodes bucket the nodes that
// ever beat ("node.<id>", refreshed by each beat, expiring RecordTTL after
// the last) and the reapers' locks ("reap.<id>").

// Beat implements cluster.Heartbeats; it opens the buckets if need be.
func (n *NATS) Beat(ctx context.Context, epoch string) (missing bool, err error) {
	if !n.nc.IsConnected() {
		return false, errNotConnected // no request could be answered: do not wait for one
	}
	b, err := n.buckets(ctx)
	if err == nil {
		missing, err = n.beat(ctx, b, epoch)
	}
	if err != nil {
		n.kv.Store(nil) // JetStream may have restarted without them
		n.lost()
	}
	return missing, err
}

func (n *NATS) buckets(ctx context.Context) (*buckets, error) {
	if b := n.kv.Load(); b != nil {
		return b, nil
	}
	b, err := n.openBuckets(ctx)
	if err == nil {
		n.kv.Store(b)
	}
	return b, err
}

func (n *NATS) beat(ctx context.Context, b *buckets, epoch string) (missing bool, err error) {
	e, err := lookup(ctx, b.alive, n.node)
	if err != nil {
		return false, err
	}
	if _, err = b.alive.PutString(ctx, n.node, epoch); err != nil {
		return false, err
	}
	_, err = b.nodes.PutString(ctx, "node."+n.node, "")
	return e == nil, err
}

// open returns the buckets, or errNoBuckets before they are open.
func (n *NATS) open() (*buckets, error) {
	if b := n.kv.Load(); b != nil {
		return b, nil
	}
	return nil, errNoBuckets
}

// do runs f on the buckets once they are open (errNoBuckets before). A
// failure while the connection is down is the store unreachable, whatever
// f met (a timeout, a closed connection): the node answers from its own
// share, and writes its shares again once NATS is back.
func (n *NATS) do(f func(b *buckets) error) error {
	b, err := n.open()
	if err != nil {
		return err
	}
	if err = f(b); err != nil && !n.nc.IsConnected() {
		err = fmt.Errorf("%w: %v", errNotConnected, err)
	}
	return err
}

// with is do for a call with one result.
func with[T any](n *NATS, f func(b *buckets) (T, error)) (T, error) {
	var v T
	err := n.do(func(b *buckets) (err error) {
		v, err = f(b)
		return err
	})
	return v, err
}

// Leave implements cluster.Heartbeats.
func (n *NATS) Leave(ctx context.Context) {
	if b := n.kv.Load(); b != nil {
		n.nc.FlushTimeout(time.Second)
		b.alive.Delete(ctx, n.node)
	}
}

// Nodes implements cluster.Heartbeats.
func (n *NATS) Nodes(ctx context.Context) (alive map[string]string, listed []string, err error) {
	err = n.do(func(b *buckets) error {
		alive = make(map[string]string)
		if err := scanRaw(ctx, b.alive, ">", func(k string, v []byte) { alive[k] = string(v) }); err != nil {
			return err
		}
		return scanRaw(ctx, b.nodes, "node.*", func(k string, _ []byte) { listed = append(listed, strings.TrimPrefix(k, "node.")) })
	})
	return alive, listed, err
}

// Lock implements cluster.Heartbeats: it creates the lock key, or replaces
// a lapsed one (compare-and-set, so one node wins).
func (n *NATS) Lock(ctx context.Context, node string, ttl time.Duration) bool {
	b, err := n.open()
	if err != nil {
		return false
	}
	key := "reap." + node
	now := []byte(strconv.FormatInt(time.Now().UnixNano(), 10))
	if _, err := b.nodes.Create(ctx, key, now); err == nil {
		return true
	}
	e, err := b.nodes.Get(ctx, key)
	if err != nil || time.Since(e.Created()) < ttl {
		return false
	}
	_, err = b.nodes.Update(ctx, key, now, e.Revision())
	return err == nil
}

// Alive implements cluster.Heartbeats.
func (n *NATS) Alive(ctx context.Context, node string) (bool, error) {
	return with(n, func(b *buckets) (bool, error) {
		e, err := lookup(ctx, b.alive, node)
		return e != nil, err
	})
}

// Forget implements cluster.Heartbeats.
func (n *NATS) Forget(ctx context.Context, node string, reaped bool) {
	if b, err := n.open(); err == nil {
		if reaped {
			b.nodes.Delete(ctx, "node."+node)
		}
		b.nodes.Delete(ctx, "reap."+node)
	}
}

// Reap implements cluster.Heartbeats: node's shares of counts, presence
// and users, in that order.
func (n *NATS) Reap(ctx context.Context, node string) (gone cluster.Reaped, err error) {
	err = n.do(func(b *buckets) error {
		for _, part := range []struct {
			kv  jetstream.KeyValue
			add func(app, name, field string)
		}{
			{b.counts, func(a, c, _ string) { gone.Vacated = append(gone.Vacated, cluster.Key{App: a, Name: c}) }},
			{b.presence, func(a, c, u string) {
				gone.Removed = append(gone.Removed, cluster.Departure{App: a, Channel: c, User: u})
			}},
			{b.users, func(a, u, _ string) { gone.Offline = append(gone.Offline, cluster.Key{App: a, Name: u}) }},
		} {
			moved, err := setShares(ctx, part.kv, node, nil)
			for _, m := range moved {
				if app, name, ok := splitKey(m.key); ok {
					part.add(app, name, m.field)
				}
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return gone, err
}

// key joins two names into a key of two tokens.
func key(a, b string) string { return token(a) + "." + token(b) }

// splitKey reverses key.
func splitKey(k string) (a, b string, ok bool) {
	ta, tb, found := strings.Cut(k, ".")
	a, ok1 := untoken(ta)
	b, ok2 := untoken(tb)
	return a, b, found && ok1 && ok2
}

// scanRaw calls f with every live key of kv matching filter and its value.
func scanRaw(ctx context.Context, kv jetstream.KeyValue, filter string, f func(key string, value []byte)) error {
	return watch(ctx, kv, filter, func(e jetstream.KeyValueEntry) { f(e.Key(), e.Value()) }, jetstream.IgnoreDeletes())
}

// watch calls f with the latest entry of every key of kv matching filter,
// and returns once it has had them all.
func watch(ctx context.Context, kv jetstream.KeyValue, filter string, f func(jetstream.KeyValueEntry), opts ...jetstream.WatchOpt) error {
	w, err := kv.Watch(ctx, filter, opts...)
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e, ok := <-w.Updates():
			if !ok {
				return errors.New("nats: watcher closed")
			}
			if e == nil {
				return nil
			}
			f(e)
		}
	}
}
