package redisstore

import (
	"crypto/tls"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roostproject/roost/internal/redisurl"
)

// dial builds the client for a URL: one server, a Redis Cluster (whose
// topics are sharded channels) or a primary found through Sentinel.
//
// Every call carries its own deadline; the timeouts here only back it up.
// A call that timed out may still have been carried out, so no call is
// retried by the client. A Redis Cluster client follows MOVED and ASK
// redirections (the command did not run where it was refused) and tries
// again after a connection broke mid-call; the node writes its shares
// again after a failover, which corrects a change applied twice or lost
// with a failed primary (see cluster.Link).
func dial(rawURL string, slow, reload time.Duration) (redis.UniversalClient, redisurl.Kind, error) {
	u, err := redisurl.Parse(rawURL)
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: redis url: %w", err)
	}
	o := options(u, slow)
	switch u.Kind {
	case redisurl.Cluster:
		// The client reads the cluster's slots again every reload, so that
		// a node that only receives (and so never hears MOVED) learns of a
		// moved slot within that time.
		c := o.Cluster()
		c.ClusterStateReloadInterval = reload
		return redis.NewClusterClient(c), u.Kind, nil
	case redisurl.Sentinel:
		return redis.NewFailoverClient(o.Failover()), u.Kind, nil
	}
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: redis url: %w", err)
	}
	opts.DialTimeout, opts.ContextTimeoutEnabled = o.DialTimeout, o.ContextTimeoutEnabled
	opts.ReadTimeout, opts.WriteTimeout, opts.PoolTimeout = o.ReadTimeout, o.WriteTimeout, o.PoolTimeout
	opts.MaxRetries = o.MaxRetries
	return redis.NewClient(opts), u.Kind, nil
}

// clusterRedirects bounds the MOVED/ASK redirections of one call.
const clusterRedirects = 3

// options are the client's for u: what a Redis Cluster or Sentinel URL
// says (go-redis reads the other forms itself), and the timeouts and no
// retries of every form.
func options(u redisurl.URL, slow time.Duration) *redis.UniversalOptions {
	return &redis.UniversalOptions{
		Addrs: u.Addrs, Username: u.User, Password: u.Password, TLSConfig: tlsFor(u),
		MasterName: u.Master, DB: u.DB, SentinelUsername: u.SentinelUser, SentinelPassword: u.SentinelPassword,
		DialTimeout: time.Second, ContextTimeoutEnabled: true,
		ReadTimeout: slow, WriteTimeout: slow, PoolTimeout: slow,
		MaxRetries: -1, MaxRedirects: clusterRedirects,
	}
}

// tlsFor returns the TLS settings of a rediss+ URL, or nil. With no
// ServerName each connection checks the certificate against the address it
// dials: a seed node, a sentinel, or the node the cluster or the sentinels
// name.
func tlsFor(u redisurl.URL) *tls.Config {
	if !u.TLS {
		return nil
	}
	return &tls.Config{MinVersion: tls.VersionTLS12}
}
