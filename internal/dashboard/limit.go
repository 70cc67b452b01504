package dashboard

import (
	"sync"
	"time"

	"github.com/roostproject/roost/internal/rate"
)

// maxAddresses bounds the limiter's table; when it is full it starts
// again empty, which lets a client a fresh burst at worst.
const maxAddresses = 4096

// limiter holds a token bucket per client address: the dashboard's own
// rate limit, apart from the HTTP API's.
type limiter struct {
	mu        sync.Mutex
	perSecond int
	buckets   map[string]*rate.Bucket
	now       func() time.Time
}

func newLimiter(perSecond int, now func() time.Time) limiter {
	if perSecond <= 0 {
		perSecond = 20
	}
	return limiter{perSecond: perSecond, buckets: make(map[string]*rate.Bucket), now: now}
}

// allow takes one request's token from addr's bucket.
func (l *limiter) allow(addr string) bool {
	l.mu.Lock()
	b := l.buckets[addr]
	if b == nil {
		if len(l.buckets) >= maxAddresses {
			clear(l.buckets)
		}
		b = rate.NewBucket(float64(l.perSecond), 2*l.perSecond)
		l.buckets[addr] = b
	}
	l.mu.Unlock()
	return b.Allow(l.now(), 1)
}
