package clustertest

import (
	"context"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/hub"
	"github.com/roostproject/roost/internal/testutil"
)

// Left is how long a store keeps the key of kind ("presence", "users",
// "counts") that holds k's shares, if no node writes it again; false when
// there is no such key, or it never expires.
type Left func(kind string, k cluster.Key) (time.Duration, bool)

// SharesExpire checks that the keys holding a node's shares of presence,
// users and counts expire, within ShareTTL, and that a refresh gives a key
// about to expire its ShareTTL again. age makes the key of kind that holds
// k's shares as near its end as it would be a little before its expiry; a
// store that cannot (an entry's age on NATS is its last write's) passes
// nil and tests its refresh on its own.
func SharesExpire[S cluster.Store](t *testing.T, n *Node[S], wait time.Duration, left Left, age func(kind string, k cluster.Key)) {
	t.Helper()
	ctx := context.Background()
	presence, user, channel := cluster.Key{App: "app", Name: "presence-exp"}, cluster.Key{App: "app", Name: "u-exp"}, cluster.Key{App: "app", Name: "c-exp"}
	if _, err := n.Presence.Join(ctx, presence.App, presence.Name, hub.Member{ID: "u"}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Users.SignIn(ctx, user.App, user.Name); err != nil {
		t.Fatal(err)
	}
	n.Counts.Subscribed(channel.App, channel.Name, 1)
	n.Counts.Flush()
	keys := map[string]cluster.Key{"presence": presence, "users": user, "counts": channel}
	testutil.Eventually(t, wait, "every share key with an expiry", func() bool {
		for kind, k := range keys {
			if d, ok := left(kind, k); !ok || d <= 0 || d > cluster.ShareTTL {
				return false
			}
		}
		return true
	})
	if age == nil {
		return
	}
	for kind, k := range keys {
		age(kind, k)
		if err := n.RefreshShares(); err != nil {
			t.Fatal(err)
		}
		if d, ok := left(kind, k); !ok || d < cluster.ShareTTL-time.Minute {
			t.Errorf("%s key of %v: %v left after a refresh (%v), want about %v", kind, k, d, ok, cluster.ShareTTL)
		}
	}
}
