// Package redisurl reads the URL forms that name the Redis a cluster of
// roost nodes shares: one server, a Redis Cluster by its seed nodes, or a
// primary found through Sentinel (docs/cluster.md, "Choosing a backend").
// Configuration checks and the cluster's client read a URL with the same
// rules, so a URL the config accepts is one the cluster can dial.
package redisurl
