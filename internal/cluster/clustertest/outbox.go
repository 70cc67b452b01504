package clustertest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/webhook"
)

// entries returns n outbox entries whose keys sort in the order made
// (webhook keys are fixed-width hex), from first on.
func entries(first, n int) []webhook.Entry {
	out := make([]webhook.Entry, n)
	for i := range out {
		out[i] = webhook.Entry{Key: fmt.Sprintf("%016x", first+i), Data: fmt.Appendf(nil, `{"n":%d}`, first+i)}
	}
	return out
}

// keys are the keys of es.
func keys(es []webhook.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Key
	}
	return out
}

// OutboxKeepsEntries checks a store's webhook outbox: a write's puts and
// then its removals, one node's entries apart from another's, read back
// by another node sorted by key whatever order they were written in, and
// cleared.
func OutboxKeepsEntries[S cluster.Store](t *testing.T, a, b *Node[S]) {
	t.Helper()
	ctx := context.Background()
	all := entries(1, 300) // 256 and more: the keys' order is not the strings' order of their numbers
	later, first := all[:150], all[150:]
	must(t, a.Store.OutboxWrite(ctx, a.ID(), first, nil))
	// a put and the removal of it in one write, and of entries written before
	must(t, a.Store.OutboxWrite(ctx, a.ID(), later, []string{all[0].Key, all[200].Key}))
	must(t, b.Store.OutboxWrite(ctx, b.ID(), entries(1, 2), nil))
	got, err := b.Store.OutboxRead(ctx, a.ID())
	must(t, err)
	want := slices.Concat(all[1:200], all[201:])
	if !slices.Equal(keys(got), keys(want)) {
		t.Fatalf("outbox keys %v,\nwant %v", keys(got), keys(want))
	}
	for i := range got {
		if string(got[i].Data) != string(want[i].Data) {
			t.Fatalf("entry %s holds %s, want %s", got[i].Key, got[i].Data, want[i].Data)
		}
	}
	must(t, b.Store.OutboxClear(ctx, a.ID()))
	if got, err := b.Store.OutboxRead(ctx, a.ID()); err != nil || len(got) != 0 {
		t.Fatalf("after clear: %d entries, %v", len(got), err)
	}
	if got, _ := a.Store.OutboxRead(ctx, b.ID()); len(got) != 2 {
		t.Fatalf("the other node's outbox has %d entries after one node's was cleared, want 2", len(got))
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Adoptions records what a node's Settings.Adopt is handed.
type Adoptions struct {
	mu  sync.Mutex
	got []webhook.Entry
}

// Adopt is a node's Settings.Adopt.
func (a *Adoptions) Adopt(_ context.Context, es []webhook.Entry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, es...)
	return nil
}

// Keys are the keys of the entries adopted, in order.
func (a *Adoptions) Keys() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return keys(a.got)
}

// DeadNodesOutboxIsTakenOver checks that the node that reaps a dead node
// is handed the dead node's outbox entries, once and in order, and that
// the dead node's outbox is gone then. took is alive's Adopt.
func DeadNodesOutboxIsTakenOver[S cluster.Store](t *testing.T, alive, dead *Node[S], took *Adoptions, wait time.Duration) {
	t.Helper()
	ctx := context.Background()
	es := entries(7, 20)
	must(t, dead.Store.OutboxWrite(ctx, dead.ID(), es, []string{es[3].Key}))
	dead.Halt()
	want := slices.Delete(keys(es), 3, 4)
	testutil.Eventually(t, wait, "the dead node's outbox taken over", func() bool { return len(took.Keys()) >= len(want) })
	if got := took.Keys(); !slices.Equal(got, want) {
		t.Fatalf("taken over %v, want %v", got, want)
	}
	testutil.Eventually(t, wait, "the dead node's outbox removed", func() bool {
		left, err := alive.Store.OutboxRead(ctx, dead.ID())
		return err == nil && len(left) == 0
	})
}
