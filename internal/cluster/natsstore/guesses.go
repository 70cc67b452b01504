package natsstore

import (
	"context"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
)

// guesses remembers the value and revision this node last wrote at each
// key, so that its next change of the key tries the compare-and-set on that
// value at once: one round trip instead of a read and a write, as long as no
// other node wrote the key since. A wrong guess costs one refused write,
// then the usual read. Only a write that succeeds on a guess is trusted: a
// guess that makes the change unnecessary or impossible (a full channel) is
// checked against a read.
type guesses struct {
	mu sync.Mutex // guards m
	m  map[string]guess
}

type guess struct {
	value []byte
	rev   uint64
}

// maxGuesses bounds the memory guesses take: past it they start over.
const maxGuesses = 1 << 16

// try makes f's change on the guessed value of key, if there is one;
// done reports that it is made (or failed for another reason than a lost
// race), and err how.
func (g *guesses) try(ctx context.Context, kv jetstream.KeyValue, key string, f func(h hash) bool) (done bool, err error) {
	old, ok := g.get(kv, key)
	if !ok {
		return false, nil
	}
	if h := decode(old.value); f(h) {
		rev, b, err := write(ctx, kv, key, h, old.rev)
		if !conflict(err) {
			g.keep(kv, key, b, rev, err)
			return true, err
		}
	}
	g.keep(kv, key, nil, 0, nil)
	return false, nil
}

func (g *guesses) get(kv jetstream.KeyValue, key string) (guess, bool) {
	if g == nil {
		return guess{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	v, ok := g.m[kv.Bucket()+"/"+key]
	return v, ok
}

// keep remembers what a write left at key; a failed write, or a deleted key,
// is forgotten.
func (g *guesses) keep(kv jetstream.KeyValue, key string, value []byte, rev uint64, err error) {
	if g == nil {
		return
	}
	k := kv.Bucket() + "/" + key
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil || rev == 0 {
		delete(g.m, k)
		return
	}
	if g.m == nil || len(g.m) >= maxGuesses {
		g.m = make(map[string]guess)
	}
	g.m[k] = guess{value, rev}
}

// forget drops every guess: after an outage NATS may have restarted with
// new streams, whose revisions start again and could match an old guess.
func (g *guesses) forget() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.m = nil
}
