// Package rate is a token bucket: a budget of work that refills at a steady
// rate up to a ceiling, for limits such as "100 events per second" that must
// allow short bursts but not a sustained excess.
//
// A Bucket takes the time as an argument and never reads the clock, so its
// callers choose the clock and its tests need none. It imports nothing of
// roost's own.
package rate

import (
	"sync"
	"time"
)

// Bucket holds up to burst tokens and gains perSecond tokens each second.
// It starts full. It is safe for concurrent use.
type Bucket struct {
	mu        sync.Mutex
	perSecond float64
	burst     float64
	tokens    float64
	last      time.Time // when tokens was last brought up to date
}

// NewBucket returns a full bucket that refills perSecond tokens a second up
// to burst. perSecond and burst must be positive.
func NewBucket(perSecond float64, burst int) *Bucket {
	if perSecond <= 0 || burst <= 0 {
		panic("rate.NewBucket: perSecond and burst must be positive")
	}
	return &Bucket{perSecond: perSecond, burst: float64(burst), tokens: float64(burst)}
}

// Allow takes n tokens and reports true if the bucket holds them at now;
// otherwise it takes nothing and reports false. A request for more than
// burst tokens is never allowed. A now earlier than a previous call's adds
// no tokens.
func (b *Bucket) Allow(now time.Time, n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill(now)
	if float64(n) > b.tokens {
		return false
	}
	b.tokens -= float64(n)
	return true
}

// refill adds the tokens earned since the last call, up to burst.
func (b *Bucket) refill(now time.Time) {
	if b.last.IsZero() {
		b.last = now
		return
	}
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(b.burst, b.tokens+elapsed.Seconds()*b.perSecond)
		b.last = now
	}
}
