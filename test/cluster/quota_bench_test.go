package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostproject/roost/internal/testutil"
	"github.com/roostproject/roost/internal/ws"
)

// Overshoot of apps[].max_connections across a cluster (docs/cluster.md,
// "Connection limits"): each node learns the others' connections within a
// fraction of a second, so clients connecting as fast as they can on
// every node at once may take the app past its limit by what the nodes let
// in meanwhile. BenchmarkQuotaOvershoot measures it with three real nodes.
const (
	quotaLimit   = 3000 // the app's max_connections
	quotaDialers = 4    // concurrent clients dialing each node
	quotaRefused = time.Second
)

// BenchmarkQuotaOvershoot: three nodes, quotaDialers clients dialing each
// as fast as they can and holding what they get, until every dialer has
// been refused for quotaRefused. over-limit is how many connections the
// cluster held above quotaLimit at the end (its peak: none closes);
// accepted/s is the rate they were let in at.
func BenchmarkQuotaOvershoot(b *testing.B) {
	for _, be := range testutil.Backends {
		if be.Name == "redis-cluster" {
			continue // its nodes' records are one Redis key each, as on one Redis
		}
		b.Run(be.Name, func(b *testing.B) {
			bin := testutil.RoostBinary(b)
			r := be.Start(b)
			var over, rate float64
			for range b.N {
				o, rt := quotaRound(b, bin, r)
				over, rate = over+float64(o), rate+rt
			}
			b.ReportMetric(over/float64(b.N), "over-limit")
			b.ReportMetric(rate/float64(b.N), "accepted/s")
		})
	}
}

// quotaRound starts three nodes under a fresh prefix, has every dialer
// connect until refused for long enough, and returns how many the cluster
// let in above the limit and at what rate.
func quotaRound(b *testing.B, bin string, r testutil.Reach) (over int, perSecond float64) {
	prefix := prefixFor("quota")
	if !r.Private {
		b.Cleanup(func() { deleteRedisKeys(context.Background(), r.URL, prefix) })
	}
	cfg := filepath.Join(b.TempDir(), "roost.yaml")
	yaml := fmt.Sprintf("apps:\n  - { id: %q, key: %q, secret: %q, max_connections: %d }\n", appID, appKey, appSecret, quotaLimit)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		b.Fatal(err)
	}
	var urls []string
	for i := range 3 {
		p := testutil.StartRoost(b, bin, fmt.Sprint("node ", i+1), append([]string{"--config", cfg}, r.NodeFlags(prefix)...)...)
		b.Cleanup(p.Kill)
		urls = append(urls, "ws"+strings.TrimPrefix(p.URL, "http")+"/app/"+appKey+"?protocol=7&client=go&version=8.6.0")
	}
	time.Sleep(6 * time.Second) // a benchmark's setup: every node has had a heartbeat to find the others
	var accepted atomic.Int64
	var held sync.Map
	var wg sync.WaitGroup
	start := time.Now()
	for _, u := range urls {
		for range quotaDialers {
			wg.Go(func() { dialUntilRefused(u, &accepted, &held) })
		}
	}
	wg.Wait()
	elapsed := time.Since(start) - quotaRefused
	held.Range(func(k, _ any) bool { k.(*ws.Client).Close(); return true })
	n := int(accepted.Load())
	return n - quotaLimit, float64(n) / elapsed.Seconds()
}

// dialUntilRefused connects to url again and again, keeping every
// connection let in, until it has been refused (4004) for quotaRefused.
func dialUntilRefused(url string, accepted *atomic.Int64, held *sync.Map) {
	var refusedSince time.Time
	for refusedSince.IsZero() || time.Since(refusedSince) < quotaRefused {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := ws.Dial(ctx, url, nil)
		cancel()
		if err != nil {
			continue
		}
		c.NetConn().SetReadDeadline(time.Now().Add(5 * time.Second))
		_, msg, err := c.ReadMessage()
		switch {
		case err == nil && bytes.Contains(msg, []byte("pusher:connection_established")):
			accepted.Add(1)
			held.Store(c, true)
			refusedSince = time.Time{}
		default:
			c.Close()
			if refusedSince.IsZero() {
				refusedSince = time.Now()
			}
		}
	}
}
