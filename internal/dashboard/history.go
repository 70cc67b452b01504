package dashboard

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/roostproject/roost/internal/connstats"
	roostmetrics "github.com/roostproject/roost/internal/metrics"
)

// window is how far back the overview's plots reach.
const window = 15 * time.Minute

// Sample is the node's figures at one moment; rates are per second over
// the interval before it.
type Sample struct {
	Time          int64 `json:"time"` // Unix milliseconds
	Connections   int64 `json:"connections"`
	Channels      int   `json:"channels"`
	Subscriptions int   `json:"subscriptions"`
	// MessagesIn are client messages received; FramesOut are frames
	// written to clients (events, replies, pings).
	MessagesIn float64 `json:"messages_in"`
	FramesOut  float64 `json:"frames_out"`
	Handshakes float64 `json:"handshakes"`
	// Closes are connections ended a second, by reason.
	Closes map[string]float64 `json:"closes"`
	RSS    uint64             `json:"rss"`
	// RSSPerConn is RSS above what the server held when it last had no
	// connection, divided by the connections: what each one costs. Zero
	// until the server has been seen empty and has connections.
	RSSPerConn float64 `json:"rss_per_connection"`
	Goroutines int     `json:"goroutines"`
	Heap       uint64  `json:"heap"`
	// Redis is the cluster link: "up", "down", or "" on a single node.
	Redis string `json:"redis,omitempty"`
}

// totals are the counters a sample's rates are taken from.
type totals struct {
	at         time.Time
	messagesIn int64
	framesOut  int64
	accepted   int64
	closed     [connstats.NumReasons]int64
}

// history samples the node every interval and keeps window of samples in
// a ring.
type history struct {
	interval time.Duration
	source   func(*roostmetrics.Snapshot)
	now      func() time.Time
	rss      func() uint64 // the process's resident memory
	// shared, when set, is given each new sample, outside the lock (the
	// cluster view's publish).
	shared func(Sample)

	mu    sync.Mutex // guards everything below
	ring  []Sample
	next  int // where the next sample goes
	full  bool
	last  totals
	empty uint64 // RSS at the last sample with no connection
	timer *time.Timer
	done  bool
}

func newHistory(interval time.Duration, source func(*roostmetrics.Snapshot), now func() time.Time) *history {
	n := max(int(window/interval), 2)
	return &history{interval: interval, source: source, now: now, ring: make([]Sample, n), rss: residentBytes}
}

// start takes the first sample (the baseline of the first rates) and
// schedules the next; each runs on a timer, with no goroutine between.
func (h *history) start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last, _ = h.read()
	h.timer = time.AfterFunc(h.interval, h.tick)
}

// stop ends the sampling.
func (h *history) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done = true
	if h.timer != nil {
		h.timer.Stop()
	}
}

func (h *history) tick() {
	h.mu.Lock()
	if h.done {
		h.mu.Unlock()
		return
	}
	s := h.add()
	h.timer.Reset(h.interval)
	h.mu.Unlock()
	if h.shared != nil {
		h.shared(s)
	}
}

// add takes one sample and returns it; h.mu is held.
func (h *history) add() Sample {
	t, s := h.read()
	secs := t.at.Sub(h.last.at).Seconds()
	if secs <= 0 {
		secs = h.interval.Seconds()
	}
	per := func(now, before int64) float64 { return float64(max(now-before, 0)) / secs }
	s.MessagesIn = per(t.messagesIn, h.last.messagesIn)
	s.FramesOut = per(t.framesOut, h.last.framesOut)
	s.Handshakes = per(t.accepted, h.last.accepted)
	s.Closes = make(map[string]float64, connstats.NumReasons)
	for r := range connstats.NumReasons {
		s.Closes[r.String()] = per(t.closed[r], h.last.closed[r])
	}
	h.last = t
	h.ring[h.next] = s
	h.next = (h.next + 1) % len(h.ring)
	h.full = h.full || h.next == 0
	return s
}

// read takes the node's counters and the process's memory now; h.mu is
// held.
func (h *history) read() (totals, Sample) {
	var snap roostmetrics.Snapshot
	h.source(&snap)
	t := totals{at: h.now()}
	s := Sample{Time: t.at.UnixMilli(), Channels: snap.Channels, Subscriptions: snap.Subscriptions}
	for _, tr := range snap.Transports {
		s.Connections += tr.Open
		t.messagesIn += tr.MessagesIn
		t.framesOut += tr.FramesOut
		t.accepted += tr.Accepted
		for r := range tr.Closed {
			t.closed[r] += tr.Closed[r]
		}
	}
	if snap.Cluster != nil {
		s.Redis = "down"
		if snap.Cluster.Up {
			s.Redis = "up"
		}
	}
	s.RSS = h.rss()
	switch {
	case s.Connections == 0:
		h.empty = s.RSS
	case h.empty > 0 && s.RSS > h.empty:
		s.RSSPerConn = float64(s.RSS-h.empty) / float64(s.Connections)
	}
	s.Goroutines = runtime.NumGoroutine()
	s.Heap = heapBytes()
	return t, s
}

// samples returns the samples kept, oldest first.
func (h *history) samples() []Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.full {
		return append([]Sample{}, h.ring[:h.next]...)
	}
	out := append([]Sample{}, h.ring[h.next:]...)
	return append(out, h.ring[:h.next]...)
}

// current returns a sample taken now, without rates, for the page's first
// paint before the first interval has passed.
func (h *history) current() Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, s := h.read()
	return s
}

// heapBytes reads the bytes of live and not yet swept heap objects,
// without stopping the world as runtime.ReadMemStats would.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
