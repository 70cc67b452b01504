package natsstore

import (
	"context"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
)

// Change implements cluster.Shares: one compare-and-set of the key, so a
// presence channel's limit holds exactly.
func (n *NATS) Change(ctx context.Context, c *cluster.Change) (before, after int, full bool, err error) {
	err = n.do(func(b *buckets) (err error) {
		kv, k, field, info := target(b, c)
		before, after, full, err = changeShare(ctx, kv, &n.guesses, k, field, n.node, c.Delta(), info, c.Max)
		return err
	})
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
	return n.do(func(b *buckets) error {
		if _, err := setShares(ctx, b.presence, n.node, members); err != nil {
			return err
		}
		_, err := setShares(ctx, b.users, n.node, signedIn)
		return err
	})
}

// flushParallel is how many channels' counts a flush writes at once: each
// is a read and a compare-and-set, so one at a time would take a flush
// period for a few hundred changed channels.
const flushParallel = 16

// inParallel calls f for each item, at most limit calls at once, and
// returns when all have returned: one of the errors they returned, if any.
func inParallel[T any](limit int, items []T, f func(T) error) error {
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed error
	for _, it := range items {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(it); err != nil {
				mu.Lock()
				defer mu.Unlock()
				failed = err
			}
		}()
	}
	wg.Wait()
	return failed
}
