package redisstore

import (
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/redisurl"
)

// TestDialChoosesTheClient: each URL form gets go-redis's client for it,
// with the credentials, database, TLS and the no-retry timeouts.
func TestDialChoosesTheClient(t *testing.T) {
	c, kind, err := dial("rediss+cluster://u:p@a:7000,b:7001", time.Second, 5*time.Second)
	if err != nil || kind != redisurl.Cluster {
		t.Fatalf("cluster: %v %v", kind, err)
	}
	cc, ok := c.(*redis.ClusterClient)
	if !ok {
		t.Fatalf("cluster URL gave a %T", c)
	}
	o := cc.Options()
	if !slices.Equal(o.Addrs, []string{"a:7000", "b:7001"}) || o.Username != "u" || o.Password != "p" ||
		o.TLSConfig == nil || o.MaxRetries > 0 || o.ClusterStateReloadInterval != 5*time.Second {
		t.Fatalf("cluster options %+v", o)
	}
	cc.Close()

	c, kind, err = dial("redis+sentinel://:pw@s1:26379/mymaster/2", time.Second, 5*time.Second)
	if err != nil || kind != redisurl.Sentinel {
		t.Fatalf("sentinel: %v %v", kind, err)
	}
	fc := c.(*redis.Client)
	if fo := fc.Options(); fo.Password != "pw" || fo.DB != 2 || fo.TLSConfig != nil || fo.MaxRetries > 0 {
		t.Fatalf("sentinel options %+v", fo)
	}
	fc.Close()

	c, kind, err = dial("redis://127.0.0.1:1/3", time.Second, 5*time.Second)
	if err != nil || kind != redisurl.Single || c.(*redis.Client).Options().DB != 3 {
		t.Fatalf("single: %v %v", kind, err)
	}
	c.Close()

	if _, _, err := dial("redis+cluster://a", time.Second, time.Second); err == nil {
		t.Fatal("a seed without a port was accepted")
	}
}
