package webhook

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Outbox is where a cluster keeps the webhook events a node has not
// delivered yet, so that the node that reaps it delivers them if it dies
// (docs/webhooks.md, "Durable on a cluster"). Write stores puts, then
// removes dels (keys of earlier puts), in order; an error means nothing is
// known, and the same writes are made again later.
type Outbox interface {
	Write(ctx context.Context, puts []Entry, dels []string) error
}

// Entry is one record of an outbox: its key, unique in the node's outbox
// and ordering it, and the record (see record).
type Entry struct {
	Key  string
	Data []byte
}

// How the journal retries a write the store did not take.
const (
	journalRetry     = 100 * time.Millisecond
	journalMaxRetry  = 2 * time.Second
	journalWriteTime = 5 * time.Second // one write's bound
	// journalGather is how long the writer lets writes gather after the
	// first: one store round trip for all of them, instead of one per
	// event, for a few milliseconds of an event's 250 ms batch_wait.
	journalGather = 5 * time.Millisecond
)

// forget queues the removal of the records of events delivered or given
// up on.
func (j *journal) forget(events []item, c *counters) {
	for i := range events {
		j.del(events[i].seq, c)
	}
}

// journal writes a node's records to its Outbox from one goroutine, in
// the order they were made: an event is put when it is queued (or held
// for the delay) and removed once delivered or dropped. A removal of a
// record that is not written yet removes the put instead, so that an
// event delivered before the store was asked costs no write. While the
// store is away the writes wait here: the puts of the events still
// queued (bounded by queue_bytes), and the removals of those written
// before (bounded by what the outbox held). Each app's outbox gauge
// (counters.outboxed) moves when the store has taken a write, so that it
// counts the records another node would find there.
type journal struct {
	out  Outbox
	wake chan struct{}

	mu      sync.Mutex
	pending map[string]put // puts not handed to the store yet
	order   []string       // their keys, in order; may name removed ones
	dels    []removal      // removals of records handed to the store

	flushMu sync.Mutex // one write at a time
}

// put is a record to write, and the counters of its app.
type put struct {
	data []byte
	c    *counters
}

// removal is the key of a record to remove, and the counters of its app.
type removal struct {
	key string
	c   *counters
}

func newJournal(out Outbox) *journal {
	return &journal{out: out, wake: make(chan struct{}, 1), pending: make(map[string]put)}
}

// entryKey is the key of the record numbered seq: fixed-width hex, so
// that the store's order of keys is the order of the numbers.
func entryKey(seq uint64) string {
	const digits = "0000000000000000"
	s := strconv.FormatUint(seq, 16)
	return digits[len(s):] + s
}

// put queues the write of a record.
func (j *journal) put(seq uint64, data []byte, c *counters) {
	k := entryKey(seq)
	j.mu.Lock()
	j.pending[k] = put{data, c}
	j.order = append(j.order, k)
	j.mu.Unlock()
	j.signal()
}

// del queues the removal of the record numbered seq; nothing without an
// outbox or a record (seq 0).
func (j *journal) del(seq uint64, c *counters) {
	if j == nil || seq == 0 {
		return
	}
	k := entryKey(seq)
	j.mu.Lock()
	if _, ok := j.pending[k]; ok {
		delete(j.pending, k)
	} else {
		j.dels = append(j.dels, removal{k, c})
	}
	j.mu.Unlock()
	j.signal()
}

func (j *journal) signal() {
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// run writes what is queued until ctx ends, retrying with backoff while
// the store does not take it.
func (j *journal) run(ctx context.Context) {
	wait := journalRetry
	for {
		select {
		case <-ctx.Done():
			return
		case <-j.wake:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(journalGather):
		}
		for j.flush(ctx) != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, journalMaxRetry)
		}
		wait = journalRetry
	}
}

// flush makes one write of everything queued; on an error it is queued
// again, before what came since.
func (j *journal) flush(ctx context.Context) error {
	j.flushMu.Lock()
	defer j.flushMu.Unlock()
	keys, puts, dels := j.takeAll()
	if len(keys) == 0 && len(dels) == 0 {
		return nil
	}
	entries := make([]Entry, len(keys))
	for i, k := range keys {
		entries[i] = Entry{Key: k, Data: puts[i].data}
	}
	gone := make([]string, len(dels))
	for i, d := range dels {
		gone[i] = d.key
	}
	ctx, cancel := context.WithTimeout(ctx, journalWriteTime)
	defer cancel()
	if err := j.out.Write(ctx, entries, gone); err != nil {
		j.giveBack(keys, puts, dels)
		return err
	}
	for _, p := range puts {
		p.c.outboxed.Add(1)
	}
	for _, d := range dels {
		d.c.outboxed.Add(-1)
	}
	return nil
}

// takeAll removes and returns the queued writes: the keys of the puts,
// in order, the puts, and the removals.
func (j *journal) takeAll() (keys []string, puts []put, dels []removal) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, k := range j.order {
		if p, ok := j.pending[k]; ok {
			keys = append(keys, k)
			puts = append(puts, p)
		}
	}
	clear(j.pending)
	j.order, dels, j.dels = j.order[:0], j.dels, nil
	return keys, puts, dels
}

// giveBack queues puts and dels again, before what was queued since. A
// put removed meanwhile was queued as a removal (its put had been handed
// over), after the put: the write stays right, only not elided.
func (j *journal) giveBack(keys []string, puts []put, dels []removal) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i, k := range keys {
		j.pending[k] = puts[i]
	}
	j.order = append(slices.Clone(keys), j.order...)
	j.dels = append(dels, j.dels...)
}

// sync writes everything queued, retrying until ctx ends.
func (j *journal) sync(ctx context.Context) error {
	for {
		err := j.flush(ctx)
		if err == nil {
			if j.empty() {
				return nil
			}
			continue
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(journalRetry):
		}
	}
}

// empty reports whether nothing waits to be written.
func (j *journal) empty() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.pending) == 0 && len(j.dels) == 0
}
