package natsstore

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
)

// A count batch is made once (cluster.Batch): each count key keeps, beside
// each node's count, the node's receipt of the last batch that wrote it
// ("id before after", the totals around the write). A batch sent again
// finds its receipt and gets the first try's answer back instead of a
// second change; the write and its receipt are one compare-and-set, so a
// late copy of the first try's write loses to the revision moved since. A
// count that comes to zero keeps its key, holding the receipt, until
// purgeEmpty removes it.

// AddCounts implements cluster.Shares: one compare-and-set a channel,
// flushParallel at once, each made once per batch.
func (n *NATS) AddCounts(ctx context.Context, batch cluster.Batch) ([]cluster.Transition, error) {
	keys := slices.AppendSeq(make([]cluster.Key, 0, len(batch.Counts)), maps.Keys(batch.Counts))
	return with(n, func(b *buckets) ([]cluster.Transition, error) {
		var mu sync.Mutex
		var moved []cluster.Transition
		err := inParallel(n.parallel, keys, func(k cluster.Key) error {
			t, err := writeCount(ctx, b.counts, &n.guesses, k, n.node, batch.ID, func(e *entry) { e.add(n.node, batch.Counts[k]) })
			mu.Lock()
			defer mu.Unlock()
			moved = append(moved, t)
			return err
		})
		if err != nil {
			return nil, err
		}
		return moved, nil
	})
}

// SetCounts implements cluster.Shares: every key that holds this node's
// count or its receipt of the batch, and every key of the batch; one
// compare-and-set each, made once per batch.
func (n *NATS) SetCounts(ctx context.Context, batch cluster.Batch) ([]cluster.Transition, error) {
	return with(n, func(b *buckets) ([]cluster.Transition, error) {
		keys, err := keysWith(ctx, b.counts, func(f string, e *entry) bool {
			_, _, kept := e.receipt(n.node, batch.ID) // a count the batch took away, sent again
			return f == "" && (e.N[n.node] != 0 || kept)
		})
		if err != nil {
			return nil, err
		}
		for k := range batch.Counts {
			keys[key(k.App, k.Name)] = true
		}
		var moved []cluster.Transition
		for s := range keys {
			app, name, ok := splitKey(s)
			if !ok {
				continue
			}
			k := cluster.Key{App: app, Name: name}
			c := batch.Counts[k]
			t, err := writeCount(ctx, b.counts, nil, k, n.node, batch.ID, func(e *entry) { e.add(n.node, c-e.N[n.node]) })
			if err != nil {
				return nil, err
			}
			moved = append(moved, t)
		}
		return moved, nil
	})
}

// writeCount makes change to node's count at k, unless k holds node's
// receipt of batch id, and returns the totals around the change.
func writeCount(ctx context.Context, kv jetstream.KeyValue, g *guesses, k cluster.Key, node string, id uint64, change func(e *entry)) (cluster.Transition, error) {
	t := cluster.Transition{Key: k}
	err := edit(ctx, kv, key(k.App, k.Name), g, func(h hash) bool {
		e := h[""]
		if e == nil {
			e = &entry{N: map[string]int{}}
		}
		var ok bool
		if t.Before, t.After, ok = e.receipt(node, id); ok {
			return false
		}
		t.Before = e.total()
		change(e)
		t.After = e.total()
		e.keep(node, id, t.Before, t.After)
		h[""] = e
		return true
	})
	return t, err
}

// add adds delta to node's count.
func (e *entry) add(node string, delta int) {
	if e.N[node] += delta; e.N[node] <= 0 {
		delete(e.N, node)
	}
}

// receipt returns the totals kept for node's batch id, if e holds them.
func (e *entry) receipt(node string, id uint64) (before, after int, ok bool) {
	f := strings.Fields(e.R[node])
	if len(f) != 3 || f[0] != strconv.FormatUint(id, 10) {
		return 0, 0, false
	}
	before, err1 := strconv.Atoi(f[1])
	after, err2 := strconv.Atoi(f[2])
	return before, after, err1 == nil && err2 == nil
}

// keep keeps node's receipt of batch id, in place of its last.
func (e *entry) keep(node string, id uint64, before, after int) {
	if e.R == nil {
		e.R = make(map[string]string)
	}
	e.R[node] = strconv.FormatUint(id, 10) + " " + strconv.Itoa(before) + " " + strconv.Itoa(after)
}
