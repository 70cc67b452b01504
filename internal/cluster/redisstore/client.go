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
	switch u.Kind {
	case redisurl.Cluster:
		return redis.NewClusterClient(clusterOptions(u, slow, reload)), u.Kind, nil
	case redisurl.Sentinel:
		return redis.NewFailoverClient(failoverOptions(u, slow)), u.Kind, nil
	}
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: redis url: %w", err)
	}
	opts.DialTimeout, opts.ContextTimeoutEnabled = time.Second, true
	opts.ReadTimeout, opts.WriteTimeout, opts.PoolTimeout = slow, slow, slow
	opts.MaxRetries = -1
	return redis.NewClient(opts), u.Kind, nil
}

// clusterRedirects bounds the MOVED/ASK redirections of one call.
const clusterRedirects = 3

// clusterOptions are a Redis Cluster client's. The client reads the
// cluster's slots again every reload, so that a node that only receives
// (and so never hears MOVED) learns of a moved slot within that time.
func clusterOptions(u redisurl.URL, slow, reload time.Duration) *redis.ClusterOptions {
	return &redis.ClusterOptions{ClusterStateReloadInterval: reload,
		Addrs: u.Addrs, Username: u.User, Password: u.Password, TLSConfig: tlsFor(u),
		DialTimeout: time.Second, ContextTimeoutEnabled: true,
		ReadTimeout: slow, WriteTimeout: slow, PoolTimeout: slow,
		MaxRetries: -1, MaxRedirects: clusterRedirects,
	}
}

func failoverOptions(u redisurl.URL, slow time.Duration) *redis.FailoverOptions {
	return &redis.FailoverOptions{
		MasterName: u.Master, SentinelAddrs: u.Addrs, DB: u.DB, TLSConfig: tlsFor(u),
		Username: u.User, Password: u.Password,
		SentinelUsername: u.SentinelUser, SentinelPassword: u.SentinelPassword,
		DialTimeout: time.Second, ContextTimeoutEnabled: true,
		ReadTimeout: slow, WriteTimeout: slow, PoolTimeout: slow,
		MaxRetries: -1,
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
