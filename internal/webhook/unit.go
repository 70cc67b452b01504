package webhook

import (
	"slices"
	"strconv"
	"time"
)

// unit is one request of a URL, until it is delivered or dropped: its
// events, the channels that order them, its body and signature, and its
// retry state. A channel is in at most one unit of a URL at a time (the
// sender's busy map says which), and a channel's later events wait in the
// queue until that unit is done: that is what keeps each channel's events in
// order, through retries, while other channels go on.
type unit struct {
	events   []item
	chans    []string // the distinct channels of events, in order of first event
	timeMS   int64    // time_ms of the body: when the request was first built
	body     []byte
	sig      string
	ids      string        // its events' ids, comma-separated (HeaderEventIDs)
	start    time.Time     // the first attempt; retry_for counts from it
	wait     time.Duration // the next pause before jitter
	due      time.Time     // its next attempt starts no sooner
	attempts int
	err      error // the last attempt's outcome
}

// requestIDLen is how much of a request's signature is its id: 64 bits,
// the same on every attempt of one body, different for another body.
const requestIDLen = 16

// newUnit builds the request for events of node, first built at timeMS.
func newUnit(secret, node string, events []item, timeMS int64) *unit {
	u := &unit{events: events, timeMS: timeMS}
	evs := make([][]byte, len(events))
	var ids []byte
	for i, e := range events {
		if i > 0 {
			ids = append(ids, ',')
		}
		ids = appendID(ids, node, &e)
		evs[i] = e.ev
		if !slices.Contains(u.chans, e.ch) {
			u.chans = append(u.chans, e.ch)
		}
	}
	u.ids = string(ids)
	u.body = Body(timeMS, evs)
	u.sig = Sign(secret, u.body)
	return u
}

// split divides u into parts requests (at most one per channel), each
// channel's events together and in order, with u's time_ms and retry
// state, so that a channel whose requests keep failing no longer holds back
// the channels that shared its request.
func (u *unit) split(secret, node string, parts int) []*unit {
	group := make(map[string]int, len(u.chans))
	for i, ch := range u.chans {
		group[ch] = i * parts / len(u.chans)
	}
	events := make([][]item, parts)
	for _, e := range u.events {
		g := group[e.ch]
		events[g] = append(events[g], e)
	}
	out := make([]*unit, parts)
	for i := range events {
		c := newUnit(secret, node, events[i], u.timeMS)
		c.start, c.wait, c.attempts, c.due = u.start, u.wait, u.attempts, u.due
		out[i] = c
	}
	return out
}

// appendID appends e's id: the one it came with, or node-seq.
func appendID(b []byte, node string, e *item) []byte {
	if e.id != "" {
		return append(b, e.id...)
	}
	return strconv.AppendUint(append(append(b, node...), '-'), e.seq, 10)
}
