package natsstore

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/clustertest"
)

// TestSharesExpire: the entries of the presence, users and counts buckets
// expire within ShareTTL of their last write (clustertest.SharesExpire).
func TestSharesExpire(t *testing.T) {
	ns, _ := nodes(t, 1, 0)
	b := ns[0].Store.kv.Load()
	ctx := context.Background()
	left := func(kind string, k cluster.Key) (time.Duration, bool) {
		kv := map[string]jetstream.KeyValue{"presence": b.presence, "users": b.users, "counts": b.counts}[kind]
		st, err := kv.Status(ctx)
		if err != nil || st.TTL() == 0 {
			return 0, false
		}
		e, err := kv.Get(ctx, key(k.App, k.Name))
		if err != nil {
			return 0, false
		}
		return st.TTL() - time.Since(e.Created()), true
	}
	clustertest.SharesExpire(t, ns[0], natsWait, left, nil)
}

// TestRefreshRewritesOnlyOldEntries: a refresh writes an entry again,
// unchanged, when it was last written before the limit, and leaves a
// fresher one alone.
func TestRefreshRewritesOnlyOldEntries(t *testing.T) {
	ns, _ := nodes(t, 1, 0)
	s := ns[0].Store
	kv := s.kv.Load().users
	ctx := context.Background()
	rev, err := kv.Put(ctx, "k", []byte(`{"":{"n":{"9":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.rewrite(ctx, kv, "k", time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if e, _ := kv.Get(ctx, "k"); e.Revision() != rev {
		t.Fatalf("a fresh entry was written again: revision %d, want %d", e.Revision(), rev)
	}
	if err := s.rewrite(ctx, kv, "k", time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	e, _ := kv.Get(ctx, "k")
	if e.Revision() == rev || string(e.Value()) != `{"":{"n":{"9":1}}}` {
		t.Fatalf("an old entry: revision %d (was %d), value %s; want it written again unchanged", e.Revision(), rev, e.Value())
	}
}

// TestOldBucketGetsItsTTL: a presence bucket made without a TTL (by an
// earlier version) is given ShareTTL when a node opens it, and keeps its
// entries.
func TestOldBucketGetsItsTTL(t *testing.T) {
	ns, _ := nodes(t, 1, 0)
	s := ns[0].Store
	ctx := context.Background()
	name := s.cfg.Prefix + "_presence"
	st, err := s.js.Stream(ctx, "KV_"+name)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	cfg.MaxAge = 0
	if _, err := s.js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	s.kv.Load().presence.Put(ctx, "kept", []byte(`{}`))
	if _, err := s.openBuckets(ctx); err != nil {
		t.Fatal(err)
	}
	kv, _ := s.js.KeyValue(ctx, name)
	if st, _ := kv.Status(ctx); st.TTL() != cluster.ShareTTL {
		t.Fatalf("presence bucket TTL %v after a node opened it, want %v", st.TTL(), cluster.ShareTTL)
	}
	if _, err := kv.Get(ctx, "kept"); err != nil {
		t.Fatalf("the bucket's entry: %v", err)
	}
}
