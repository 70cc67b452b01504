package redisstore

import (
	"time"

	"github.com/redis/go-redis/v9"
)

// Dial returns a client of the Redis a cluster's redis.url names, in any
// of its forms, for a part of the node that keeps its own keys there (the
// dashboard's cluster view); each call bounds itself with its context.
func Dial(rawURL string) (redis.UniversalClient, error) {
	c, _, err := dial(rawURL, time.Second, 10*time.Second)
	return c, err
}
