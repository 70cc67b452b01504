package cluster

// This file drops the second copy of a message a cluster node receives.
//
// Every message a node publishes carries the node's id and a sequence
// number, given when it first leaves the outbox and kept when it is sent
// again: a Redis write that timed out may have reached Redis all the same
// (a paused Redis queues it), and a NATS node sends again what it wrote
// since NATS last confirmed its writes when NATS comes back after an
// outage. So a node may receive a message twice; it delivers only the first
// copy (exactly once, within the window).
//
// Numbers count the messages of one stream, which the store delivers in
// order: all of a node's messages on one Redis or NATS connection, or
// those of one hash slot on a Redis Cluster (each slot is carried by one
// primary's connection, and the connections of different primaries run at
// their own pace).

import (
	"sync"
	"time"
)

// DefaultWindow is how many of a stream's latest sequence numbers are
// remembered when Seen.Window is zero.
const DefaultWindow = 1024

// forgetAfter is how long a silent stream's window is kept.
const forgetAfter = 10 * time.Minute

// maxStreams is how many windows are kept before silent ones are forgotten
// (at most once a minute).
const maxStreams = 256

// Seen remembers, per stream (a node, or a node's slot), which recent
// sequence numbers arrived. It is safe for concurrent use; its zero value
// is ready with DefaultWindow.
type Seen struct {
	// Window is how many numbers below a stream's highest are remembered,
	// a multiple of 64 (0: DefaultWindow). Set it before the first First.
	Window uint64

	mu      sync.Mutex // guards streams and swept
	streams map[string]*stream
	swept   time.Time
}

// stream is one stream's highest sequence number and a ring of bits for
// the window below it.
type stream struct {
	high uint64
	bits []uint64
	last time.Time
}

// First reports whether seq of stream arrives for the first time. A number
// older than the window counts as seen: one stream's messages leave in
// order, so only a late copy can be that old.
func (s *Seen) First(name string, seq uint64, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.streams[name]
	if w == nil {
		s.forget(now)
		w = &stream{bits: make([]uint64, s.window()/64)}
		if s.streams == nil {
			s.streams = make(map[string]*stream)
		}
		s.streams[name] = w
	}
	w.last = now
	return w.first(seq)
}

func (s *Seen) window() uint64 {
	if s.Window == 0 {
		return DefaultWindow
	}
	return s.Window
}

func (w *stream) first(seq uint64) bool {
	window := uint64(len(w.bits)) * 64
	switch {
	case seq-w.high >= window && seq > w.high:
		clear(w.bits)
		w.high = seq
	case seq > w.high:
		for n := w.high + 1; n < seq; n++ {
			w.clear(n)
		}
		w.high = seq
	case w.high-seq >= window || w.has(seq):
		return false
	}
	w.set(seq)
	return true
}

func (w *stream) bit(seq uint64) (int, uint64) {
	return int(seq / 64 % uint64(len(w.bits))), 1 << (seq % 64)
}

func (w *stream) has(seq uint64) bool { i, b := w.bit(seq); return w.bits[i]&b != 0 }
func (w *stream) set(seq uint64)      { i, b := w.bit(seq); w.bits[i] |= b }
func (w *stream) clear(seq uint64)    { i, b := w.bit(seq); w.bits[i] &^= b }

// forget drops the windows of streams silent for forgetAfter, once there
// are maxStreams of them.
func (s *Seen) forget(now time.Time) {
	if len(s.streams) < maxStreams || now.Sub(s.swept) < time.Minute {
		return
	}
	s.swept = now
	for n, w := range s.streams {
		if now.Sub(w.last) > forgetAfter {
			delete(s.streams, n)
		}
	}
}
