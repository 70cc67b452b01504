package redisstore

import (
	"sync"
	"time"
)

// Every message a node publishes carries the node's id and a sequence
// number, given when it first leaves the outbox and kept when the write is
// tried again. A write that timed out may have reached Redis all the same
// (a paused Redis queues it), so a node may receive a message twice: it
// delivers only the first copy (exactly once, within the window).
//
// Numbers count the messages of one stream, which Redis delivers in
// order: all of a node's messages on one Redis, or those of one hash slot
// on a Redis Cluster (each slot is carried by one primary's connection,
// and the connections of different primaries run at their own pace).

// window is how many of a node's latest sequence numbers are remembered.
const window = 1024

// forgetAfter is how long a silent node's window is kept.
const forgetAfter = 10 * time.Minute

// maxNodes is how many windows are kept before silent ones are forgotten
// (at most once a minute).
const maxNodes = 256

// seen remembers, per stream (a node, or a node's slot), which recent
// sequence numbers arrived. The receive loops share it.
type seen struct {
	mu    sync.Mutex // guards nodes and swept
	nodes map[string]*seqWindow
	swept time.Time
}

// seqWindow is one node's highest sequence number and a ring of bits for
// the window below it.
type seqWindow struct {
	high uint64
	bits [window / 64]uint64
	last time.Time
}

// first reports whether seq from node arrives for the first time. A
// number older than the window counts as seen: one node's messages leave
// in order, so only a late copy can be that old.
func (s *seen) first(node string, seq uint64, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.nodes[node]
	if w == nil {
		s.forget(now)
		w = &seqWindow{}
		if s.nodes == nil {
			s.nodes = make(map[string]*seqWindow)
		}
		s.nodes[node] = w
	}
	w.last = now
	return w.first(seq)
}

func (w *seqWindow) first(seq uint64) bool {
	switch {
	case seq-w.high >= window && seq > w.high:
		w.bits = [window / 64]uint64{}
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

func (w *seqWindow) has(seq uint64) bool { return w.bits[seq%window/64]&(1<<(seq%64)) != 0 }
func (w *seqWindow) set(seq uint64)      { w.bits[seq%window/64] |= 1 << (seq % 64) }
func (w *seqWindow) clear(seq uint64)    { w.bits[seq%window/64] &^= 1 << (seq % 64) }

// forget drops the windows of nodes silent for forgetAfter, once there are
// maxNodes of them.
func (s *seen) forget(now time.Time) {
	if len(s.nodes) < maxNodes || now.Sub(s.swept) < time.Minute {
		return
	}
	s.swept = now
	for n, w := range s.nodes {
		if now.Sub(w.last) > forgetAfter {
			delete(s.nodes, n)
		}
	}
}
