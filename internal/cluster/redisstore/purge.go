package redisstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Kept lists the keys that a cluster under prefix keeps in the Redis that
// rawURL names: every key that starts with the prefix and a colon (see
// keys.go). A Redis Cluster's primaries are each asked.
func Kept(ctx context.Context, rawURL, prefix string) ([]string, error) {
	c, err := dialPurge(rawURL)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return keysUnder(ctx, c, prefix)
}

// Purge deletes every key of Kept: what a cluster under prefix left in
// Redis once no node of it runs (a node's heartbeat expires, but the node
// list, counts and caches stay). Deleting them under running nodes would
// take the cluster's shared state away from it.
func Purge(ctx context.Context, rawURL, prefix string) error {
	c, err := dialPurge(rawURL)
	if err != nil {
		return err
	}
	defer c.Close()
	keys, err := keysUnder(ctx, c, prefix)
	for _, k := range keys {
		if err == nil {
			err = c.Del(ctx, k).Err() // one key a call: a Redis Cluster refuses keys of several slots
		}
	}
	if err != nil {
		return fmt.Errorf("cluster: purge %s: %w", prefix, err)
	}
	return nil
}

func dialPurge(rawURL string) (redis.UniversalClient, error) {
	c, _, err := dial(rawURL, 5*time.Second, 10*time.Second)
	return c, err
}

// keysUnder scans for the keys under prefix, on each primary of a Redis
// Cluster (SCAN sees one node's keys).
func keysUnder(ctx context.Context, c redis.UniversalClient, prefix string) ([]string, error) {
	match := globEscape(prefix) + ":*"
	var keys []string
	var err error
	if cc, ok := c.(*redis.ClusterClient); ok {
		var mu sync.Mutex // guards keys: ForEachMaster calls concurrently
		err = cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			ks, err := scanKeys(ctx, n, match)
			mu.Lock()
			defer mu.Unlock()
			keys = append(keys, ks...)
			return err
		})
	} else {
		keys, err = scanKeys(ctx, c, match)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: keys under %s: %w", prefix, err)
	}
	return keys, nil
}

func scanKeys(ctx context.Context, n redis.Cmdable, match string) ([]string, error) {
	var keys []string
	it := n.Scan(ctx, 0, match, 1000).Iterator()
	for it.Next(ctx) {
		keys = append(keys, it.Val())
	}
	return keys, it.Err()
}

// globEscape quotes the characters that SCAN's MATCH pattern reads as
// wildcards, so that a prefix matches only itself.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
