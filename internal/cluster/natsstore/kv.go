package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
)

// buckets are the cluster's JetStream key-value buckets, named
// <prefix>_<what>. presence, users and counts hold hashes (see hash); cache
// the last event of each cache channel; alive each node's heartbeat, which
// expires after NodeTTL; nodes the nodes that ever beat (to know whom to
// reap, for RecordTTL after their last beat) and the reapers' locks;
// webhooks the delayed webhook events; dashboard each node's latest
// dashboard figures; outbox each node's undelivered webhook events
// (outbox.go); conns each node's connections per app, which expire
// after ConnsTTL; routes the HTTP fallback sessions' holders, which
// expire after cluster.RouteTTL.
type buckets struct {
	presence, users, counts, cache, alive, nodes, webhooks, dashboard, outbox, conns, routes jetstream.KeyValue
}

// webhookTTL bounds how long a delayed webhook event is kept: longer than
// any delay plus its margin (each entry carries its own expiry too).
const webhookTTL = time.Hour

// bucketSpec is one bucket: where it goes, its name after the prefix and
// the TTL of its entries (zero: none).
type bucketSpec struct {
	kv  *jetstream.KeyValue
	sfx string
	ttl time.Duration
}

// specs lists the buckets, the one place that names them.
func (b *buckets) specs(nodeTTL time.Duration) []bucketSpec {
	return []bucketSpec{
		{&b.presence, "presence", cluster.ShareTTL}, {&b.users, "users", cluster.ShareTTL}, {&b.counts, "counts", cluster.ShareTTL},
		{&b.cache, "cache", hub.CacheTTL}, {&b.alive, "alive", nodeTTL}, {&b.nodes, "nodes", cluster.RecordTTL},
		{&b.webhooks, "webhooks", webhookTTL}, {&b.dashboard, "dashboard", webhookTTL},
		{&b.outbox, "outbox", cluster.RecordTTL},
		{&b.conns, "conns", cluster.ConnsTTL},
		{&b.routes, "routes", cluster.RouteTTL},
	}
}

// BucketNames are the key-value buckets a cluster under prefix keeps.
func BucketNames(prefix string) []string {
	var names []string
	for _, s := range new(buckets).specs(0) {
		names = append(names, prefix+"_"+s.sfx)
	}
	return names
}

// openBuckets creates the buckets that do not exist yet, keeping those that
// do as they are (an operator may have created them with replicas).
func (n *NATS) openBuckets(ctx context.Context) (*buckets, error) {
	var b buckets
	for _, s := range b.specs(n.cfg.NodeTTL) {
		kv, err := n.bucket(ctx, n.cfg.Prefix+"_"+s.sfx, s.ttl)
		if err != nil {
			return nil, err
		}
		*s.kv = kv
	}
	return &b, nil
}

func (n *NATS) bucket(ctx context.Context, name string, ttl time.Duration) (jetstream.KeyValue, error) {
	kv, err := n.js.KeyValue(ctx, name)
	if err == nil {
		err = n.giveTTL(ctx, name, ttl)
	}
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = n.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: name, TTL: ttl, Storage: jetstream.FileStorage})
		if errors.Is(err, jetstream.ErrBucketExists) {
			kv, err = n.js.KeyValue(ctx, name)
		}
	}
	return kv, err
}

// giveTTL sets the TTL of an existing bucket that has none but should: a
// bucket made by an earlier version, whose entries would never expire. A
// bucket with a TTL of its own keeps it, as any other setting of its.
func (n *NATS) giveTTL(ctx context.Context, name string, ttl time.Duration) error {
	if ttl <= 0 {
		return nil
	}
	st, err := n.js.Stream(ctx, "KV_"+name)
	if err != nil || st.CachedInfo().Config.MaxAge != 0 {
		return err
	}
	cfg := st.CachedInfo().Config
	cfg.MaxAge = ttl
	if _, err := n.js.UpdateStream(ctx, cfg); err != nil {
		return err
	}
	n.log.Info("nats bucket given its TTL", "bucket", name, "ttl", ttl)
	return nil
}

// hash is the value of a presence, users or counts key: per field (a
// presence channel's user ids; "" in users and counts, whose keys name one
// user or channel), each node's share.
type hash map[string]*entry

// entry is one field: each node's count and, for presence, the first
// connection's user_info; for counts, each node's receipt of its last
// batch (see counts.go).
type entry struct {
	N map[string]int    `json:"n"`
	I string            `json:"i,omitempty"`
	R map[string]string `json:"r,omitempty"`
}

func (e *entry) total() int {
	t := 0
	for _, c := range e.N {
		t += c
	}
	return t
}

// conflict reports that a write lost a race: the key's revision moved.
func conflict(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// lookup returns the entry at key, nil when there is none; it is nil too
// when lookup fails, as jetstream's Get returns no entry with an error.
func lookup(ctx context.Context, kv jetstream.KeyValue, key string) (jetstream.KeyValueEntry, error) {
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	return e, err
}

// read returns the hash at key and its revision (0: no such key).
func read(ctx context.Context, kv jetstream.KeyValue, key string) (hash, uint64, error) {
	e, err := lookup(ctx, kv, key)
	if e == nil {
		return hash{}, 0, err
	}
	return decode(e.Value()), e.Revision(), nil
}

func decode(b []byte) hash {
	var h hash
	if json.Unmarshal(b, &h) != nil || h == nil {
		return hash{} // a JSON null decodes to a nil map, which a write would panic on
	}
	for f, e := range h {
		if e == nil || e.N == nil {
			delete(h, f)
		}
	}
	return h
}

// edit applies f to the hash at key and writes the result if the key has
// not changed since it was read (compare-and-set on its revision), reading
// and applying f again as often as another node wins the race. An empty
// hash deletes the key. f returns false to write nothing. With g, edit
// first tries the value this node last wrote at key, without reading it
// (see guesses); f may be called with it, and then again with what is read.
func edit(ctx context.Context, kv jetstream.KeyValue, key string, g *guesses, f func(h hash) bool) error {
	if done, err := g.try(ctx, kv, key, f); done {
		return err
	}
	for {
		h, rev, err := read(ctx, kv, key)
		if err != nil {
			return err
		}
		if !f(h) {
			return nil
		}
		rev, b, err := write(ctx, kv, key, h, rev)
		if !conflict(err) {
			g.keep(kv, key, b, rev, err)
			return err
		}
	}
}

// write stores h at key if its revision is still rev, and returns the new
// revision and value (0 and nil when it deleted the key).
func write(ctx context.Context, kv jetstream.KeyValue, key string, h hash, rev uint64) (uint64, []byte, error) {
	if len(h) == 0 {
		if rev == 0 {
			return 0, nil, nil
		}
		return 0, nil, kv.Delete(ctx, key, jetstream.LastRevision(rev))
	}
	b, _ := json.Marshal(h)
	var err error
	if rev == 0 {
		rev, err = kv.Create(ctx, key, b)
	} else {
		rev, err = kv.Update(ctx, key, b, rev)
	}
	return rev, b, err
}

// changeShare adds delta to node's share of field at key and returns the
// field's totals before and after; full reports that a new field would
// make the hash hold more than max fields (max 0: no limit), and then
// nothing changed. Exactly one node sees a given total leave or reach zero:
// the one whose write took it there.
func changeShare(ctx context.Context, kv jetstream.KeyValue, g *guesses, key, field, node string, delta int, info string, max int) (before, after int, full bool, err error) {
	err = edit(ctx, kv, key, g, func(h hash) bool {
		e := h[field]
		full = e == nil && delta > 0 && max > 0 && len(h) >= max
		if full {
			return false
		}
		if e == nil {
			e = &entry{N: map[string]int{}, I: info}
		}
		before = e.total()
		e.add(node, delta)
		after = e.total()
		h[field] = e
		if after == 0 {
			delete(h, field)
		}
		return true
	})
	return before, after, full, err
}

// share is one node's part of one field.
type share struct {
	n    int
	info string
}

// moved is a field whose total a setShares took to zero.
type moved struct {
	key, field string
}

// setShares makes node's shares in kv exactly want (key -> field -> share):
// it sets each wanted share and removes node's share from every other
// field. It returns the fields whose totals it took to zero. It
// reads the whole bucket: it runs after an outage and to reap a dead node.
func setShares(ctx context.Context, kv jetstream.KeyValue, node string, want map[string]map[string]share) ([]moved, error) {
	keys, err := keysWith(ctx, kv, func(_ string, e *entry) bool { return e.N[node] != 0 })
	if err != nil {
		return nil, err
	}
	for k := range want {
		keys[k] = true
	}
	var out []moved
	for key := range keys {
		var changed []moved
		err := edit(ctx, kv, key, nil, func(h hash) bool {
			changed = setKey(h, key, node, want[key])
			return true
		})
		if err != nil {
			return out, err
		}
		out = append(out, changed...)
	}
	return out, nil
}

// setKey makes node's shares in h exactly want.
func setKey(h hash, key, node string, want map[string]share) []moved {
	var out []moved
	for f, e := range h {
		if _, ok := want[f]; ok || e.N[node] == 0 {
			continue
		}
		delete(e.N, node)
		if e.total() == 0 {
			delete(h, f)
			out = append(out, moved{key, f})
		}
	}
	for f, s := range want {
		e := h[f]
		if e == nil {
			e = &entry{N: map[string]int{}, I: s.info}
			h[f] = e
		}
		e.N[node] = s.n
	}
	return out
}

// keysWith returns the keys of kv whose hash has a field that has (a
// share of a node, say).
func keysWith(ctx context.Context, kv jetstream.KeyValue, has func(field string, e *entry) bool) (map[string]bool, error) {
	keys := make(map[string]bool)
	err := scan(ctx, kv, ">", func(key string, h hash) {
		for f, e := range h {
			if has(f, e) {
				keys[key] = true
				return
			}
		}
	})
	return keys, err
}

// scan calls f with every live key of kv matching filter and its hash.
func scan(ctx context.Context, kv jetstream.KeyValue, filter string, f func(key string, h hash)) error {
	return scanRaw(ctx, kv, filter, func(k string, v []byte) { f(k, decode(v)) })
}
