package natsstore

import (
	"context"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
)

// Change implements cluster.Shares: one compare-and-set of the key, so a
// presence channel's limit holds exactly.
func (n *NATS) Change(ctx context.Context, c *cluster.Change) (before, after int, full bool, err error) {
	b, err := n.open()
	if err != nil {
		return 0, 0, false, err
	}
	kv, k, field, info := target(b, c)
	before, after, full, err = changeShare(ctx, kv, &n.guesses, k, field, n.node, c.Delta(), info, c.Max)
	if err != nil && !n.nc.IsConnected() {
		err = fmt.Errorf("%w: %v", cluster.ErrDown, err)
	}
	return before, after, full, err
}

// target returns the bucket, key and field c changes, and the info a new
// presence member is kept with.
func target(b *buckets, c *cluster.Change) (kv jetstream.KeyValue, k, field, info string) {
	switch c.Kind {
	case cluster.Join:
		return b.presence, key(c.App, c.Channel), c.Member.ID, c.Member.Info
	case cluster.Leave:
		return b.presence, key(c.App, c.Channel), c.Member.ID, ""
	default:
		return b.users, key(c.App, c.Member.ID), "", ""
	}
}

// WriteShares implements cluster.Shares.
func (n *NATS) WriteShares(ctx context.Context, own cluster.Own) error {
	b, err := n.open()
	if err != nil {
		return err
	}
	members := make(map[string]map[string]share)
	for k, shares := range own.Presence {
		m := make(map[string]share, len(shares))
		for _, s := range shares {
			m[s.ID] = share{n: s.Conns, info: s.Info}
		}
		members[key(k.App, k.Name)] = m
	}
	signedIn := make(map[string]map[string]share)
	for k, conns := range own.Users {
		signedIn[key(k.App, k.Name)] = map[string]share{"": {n: conns}}
	}
	if _, err := setShares(ctx, b.presence, n.node, members); err != nil {
		return err
	}
	_, err = setShares(ctx, b.users, n.node, signedIn)
	return err
}

// flushParallel is how many channels' counts a flush writes at once: each
// is a read and a compare-and-set, so one at a time would take a flush
// period for a few hundred changed channels.
const flushParallel = 16

// AddCounts implements cluster.Shares: one compare-and-set a channel,
// flushParallel at once.
func (n *NATS) AddCounts(ctx context.Context, changes map[cluster.Key]int) ([]cluster.Transition, error) {
	b, err := n.open()
	if err != nil {
		return nil, err
	}
	keys := make([]cluster.Key, 0, len(changes))
	for k := range changes {
		keys = append(keys, k)
	}
	var mu sync.Mutex
	var moved []cluster.Transition
	inParallel(n.parallel, keys, func(k cluster.Key) {
		before, after, _, e := changeShare(ctx, b.counts, &n.guesses, key(k.App, k.Name), "", n.node, changes[k], "", 0)
		mu.Lock()
		defer mu.Unlock()
		if e != nil {
			err = e
			return
		}
		moved = append(moved, cluster.Transition{Key: k, Before: before, After: after})
	})
	return moved, err
}

// SetCounts implements cluster.Shares.
func (n *NATS) SetCounts(ctx context.Context, all map[cluster.Key]int) ([]cluster.Transition, error) {
	b, err := n.open()
	if err != nil {
		return nil, err
	}
	want := make(map[string]map[string]share, len(all))
	for k, c := range all {
		want[key(k.App, k.Name)] = map[string]share{"": {n: c}}
	}
	changed, err := setShares(ctx, b.counts, n.node, want)
	var moved []cluster.Transition
	for _, m := range changed {
		if app, name, ok := splitKey(m.key); ok {
			t := cluster.Transition{Key: cluster.Key{App: app, Name: name}, Before: 1}
			if m.up {
				t.Before, t.After = 0, 1
			}
			moved = append(moved, t)
		}
	}
	return moved, err
}

// inParallel calls f for each item, at most limit calls at once, and
// returns when all have returned.
func inParallel[T any](limit int, items []T, f func(T)) {
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for _, it := range items {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(it)
		}()
	}
	wg.Wait()
}
