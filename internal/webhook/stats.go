package webhook

import (
	"sync/atomic"
	"time"
)

// Why events are dropped, the reason label of roost_webhook_dropped_total.
const (
	// DropQueueFull: the app's queue was over webhooks.queue_bytes; the
	// oldest events went.
	DropQueueFull = iota
	// DropRetryExpired: the request still failed after webhooks.retry_for.
	DropRetryExpired
	// DropIntakeFull: facts arrived faster than the webhook goroutine took
	// them.
	DropIntakeFull
	// DropShutdown: the server stopped before the events were delivered.
	DropShutdown
	numDrops
)

// DropReasons names each drop reason, by its constant.
var DropReasons = [numDrops]string{"queue_full", "retry_expired", "intake_full", "shutdown"}

// LatencyBuckets are the upper bounds, in seconds, of the request latency
// histogram (roost_webhook_send_seconds).
var LatencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// counters are one app's webhook statistics, updated with atomics by the
// intake and sender goroutines.
type counters struct {
	sent, failed, retried atomic.Int64
	dropped               [numDrops]atomic.Int64
	queued                atomic.Int64 // events waiting in the app's queues
	outboxed              atomic.Int64 // records the cluster's outbox has taken
	adopted               atomic.Int64 // events taken over from dead nodes
	buckets               []atomic.Int64
	latencyNanos, latency atomic.Int64 // sum and count
}

func newCounters() *counters {
	return &counters{buckets: make([]atomic.Int64, len(LatencyBuckets))}
}

// observe records one request's duration.
func (c *counters) observe(d time.Duration) {
	s := d.Seconds()
	for i, le := range LatencyBuckets {
		if s <= le {
			c.buckets[i].Add(1)
			break
		}
	}
	c.latencyNanos.Add(int64(d))
	c.latency.Add(1)
}

// Stats is one app's webhook statistics at one moment.
type Stats struct {
	App string
	// Sent counts events delivered (answered 2xx).
	Sent int64
	// FailedAttempts counts requests that failed (error, timeout or non-2xx);
	// Retried counts those that were tried again.
	FailedAttempts, Retried int64
	// Dropped counts events given up on, by reason (see DropReasons).
	Dropped [numDrops]int64
	// Queued is the number of events waiting now, not yet in a request.
	Queued int64
	// Outboxed is the number of this node's records in the cluster's
	// outbox (events queued or held, not yet delivered or dropped, and
	// those a shutdown left for another node); 0 without one.
	Outboxed int64
	// Adopted counts events taken over from dead nodes' outboxes: each
	// may be delivered a second time, if the dead node's request of it
	// was answered and its removal not yet written.
	Adopted int64
	// Oldest is when the oldest event still to be delivered (waiting, or
	// in a request not yet answered 2xx or dropped) was queued; zero if
	// there is none.
	Oldest time.Time
	// Buckets[i] counts requests that took at most LatencyBuckets[i]
	// seconds (cumulative); Requests and Seconds are their count and sum.
	Buckets  []uint64
	Requests uint64
	Seconds  float64
}

// snapshot reads c.
func (c *counters) snapshot(app string) Stats {
	s := Stats{App: app, Sent: c.sent.Load(), FailedAttempts: c.failed.Load(), Retried: c.retried.Load(),
		Queued: c.queued.Load(), Outboxed: c.outboxed.Load(), Adopted: c.adopted.Load(), Buckets: make([]uint64, len(c.buckets))}
	for i := range c.dropped {
		s.Dropped[i] = c.dropped[i].Load()
	}
	var cum uint64
	for i := range c.buckets {
		cum += uint64(c.buckets[i].Load())
		s.Buckets[i] = cum
	}
	s.Requests = uint64(c.latency.Load())
	s.Seconds = time.Duration(c.latencyNanos.Load()).Seconds()
	return s
}
