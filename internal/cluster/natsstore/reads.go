package natsstore

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/roostproject/roost/internal/hub"
)

// Count implements cluster.Reads.
func (n *NATS) Count(ctx context.Context, app, channel string) (int, error) {
	return with(n, func(b *buckets) (int, error) {
		h, _, err := read(ctx, b.counts, key(app, channel))
		if e := h[""]; err == nil && e != nil {
			return e.total(), nil
		}
		return 0, err
	})
}

// Channels implements cluster.Reads: one pass over the app's keys.
func (n *NATS) Channels(ctx context.Context, app, prefix string) (map[string]int, error) {
	return with(n, func(b *buckets) (map[string]int, error) {
		out := make(map[string]int)
		err := scan(ctx, b.counts, token(app)+".*", func(k string, h hash) {
			_, name, ok := splitKey(k)
			if e := h[""]; ok && e != nil && strings.HasPrefix(name, prefix) {
				out[name] = e.total()
			}
		})
		return out, err
	})
}

// Members implements cluster.Reads.
func (n *NATS) Members(ctx context.Context, app, channel string) ([]hub.Member, error) {
	return with(n, func(b *buckets) ([]hub.Member, error) {
		h, _, err := read(ctx, b.presence, key(app, channel))
		if err != nil {
			return nil, err
		}
		out := make([]hub.Member, 0, len(h))
		for id, e := range h {
			if e.total() > 0 {
				out = append(out, hub.Member{ID: id, Info: e.I})
			}
		}
		return out, nil
	})
}

// IsMember implements cluster.Reads.
func (n *NATS) IsMember(ctx context.Context, app, channel, user string) (bool, error) {
	return with(n, func(b *buckets) (bool, error) {
		h, _, err := read(ctx, b.presence, key(app, channel))
		return h[user] != nil, err
	})
}

// Online implements cluster.Reads: one read per id, several at once.
func (n *NATS) Online(ctx context.Context, app string, ids []string) ([]string, error) {
	return with(n, func(b *buckets) ([]string, error) {
		online := make([]bool, len(ids))
		idx := make([]int, 0, len(ids))
		for i, id := range ids {
			if id != "" { // no user signs in without an id
				idx = append(idx, i)
			}
		}
		err := inParallel(flushParallel, idx, func(i int) error {
			e, err := lookup(ctx, b.users, key(app, ids[i]))
			online[i] = e != nil
			return err
		})
		if err != nil {
			return nil, err
		}
		var out []string
		for i, id := range ids {
			if online[i] {
				out = append(out, id)
			}
		}
		return out, nil
	})
}

// Cached implements cluster.Reads: one key per cache channel in the cache
// bucket, whose entries expire CacheTTL after they were written.
func (n *NATS) Cached(ctx context.Context, app, channel string) (m hub.Message, ttl time.Duration, ok bool, err error) {
	err = n.do(func(b *buckets) error {
		e, err := lookup(ctx, b.cache, key(app, channel))
		if e == nil {
			return err
		}
		var got hub.Message
		left := hub.CacheTTL - time.Since(e.Created())
		if json.Unmarshal(e.Value(), &got) == nil && left > 0 {
			m, ttl, ok = got, left, true
		}
		return nil
	})
	return m, ttl, ok, err
}
