package redisstore

import (
	"context"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/testutil"
)

// TestPurgeTakesOnlyItsPrefix: Purge removes every key under its prefix and
// colon, and none of a prefix that merely starts the same way or that
// SCAN's pattern would read as a wildcard.
func TestPurgeTakesOnlyItsPrefix(t *testing.T) {
	srv := testutil.StartRedis(t)
	opts, err := redis.ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	mine := []string{"b*[x]:{nodes}:nodes", "b*[x]:channels:{app}", "b*[x]:m:{app:c}"}
	others := []string{"b*[x]2:{nodes}:nodes", "bz[x]:{nodes}:nodes", "b*x:{nodes}:nodes", "b*[x]"}
	for _, k := range append(slices.Clone(mine), others...) {
		if err := c.SAdd(ctx, k, "1").Err(); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := Kept(ctx, srv.URL(), "b*[x]")
	slices.Sort(kept)
	if want := slices.Sorted(slices.Values(mine)); err != nil || !slices.Equal(kept, want) {
		t.Fatalf("Kept = %v, %v; want %v", kept, err, want)
	}
	if err := Purge(ctx, srv.URL(), "b*[x]"); err != nil {
		t.Fatal(err)
	}
	left, err := c.Keys(ctx, "*").Result()
	slices.Sort(left)
	if want := slices.Sorted(slices.Values(others)); err != nil || !slices.Equal(left, want) {
		t.Fatalf("left %v, %v; want exactly %v", left, err, want)
	}
}
