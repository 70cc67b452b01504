package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/cluster"
	"github.com/roostproject/roost/internal/cluster/clustertest"
)

// TestSharesExpire: the presence hash, and the app's hashes of users and
// counts, expire within ShareTTL unless refreshed, and a refresh gives a
// key near its end its ShareTTL again (clustertest.SharesExpire).
func TestSharesExpire(t *testing.T) {
	onBackends(t, func(t *testing.T, url string) {
		rs, _ := nodes(t, url, 1, 0)
		r := rs[0].Store
		keyOf := func(kind string, k cluster.Key) string {
			switch kind {
			case "presence":
				return r.presenceKey(k.App, k.Name)
			case "users":
				return r.usersKey(k.App)
			}
			return r.channelsKey(k.App)
		}
		ctx := context.Background()
		left := func(kind string, k cluster.Key) (time.Duration, bool) {
			d, err := r.rdb.PTTL(ctx, keyOf(kind, k)).Result()
			return d, err == nil && d > 0
		}
		age := func(kind string, k cluster.Key) { r.rdb.PExpire(ctx, keyOf(kind, k), time.Minute) }
		clustertest.SharesExpire(t, rs[0], redisWait, left, age)
	})
}
