package testutil

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/roostproject/roost/internal/ws"
)

// CanaryEvery is how often a Canary publishes.
const CanaryEvery = 100 * time.Millisecond

// CanaryEvent is the name of the events a Canary publishes.
const CanaryEvent = "canary"

// Canary watches delivery while a test does something else to the server:
// it publishes a numbered event every CanaryEvery and reads them on a
// subscriber, recording when each was published and when (and how often)
// it arrived. Report then gives the latency, the misses and the duplicates
// of the events published in any stretch of time.
//
// The canary owns its subscriber's connection from StartCanary on, and
// runs two goroutines (publisher and reader) until Stop.
type Canary struct {
	sub     *Client
	channel string
	publish func(data string) error

	mu     sync.Mutex // guards everything below
	sent   []time.Time
	got    map[int][]time.Time
	errs   []error
	failed map[int]bool // events whose publish failed or was not answered 200
	strays int          // frames on the channel that are not canary events

	stop      chan struct{}
	published chan struct{} // closed when publishLoop has ended
	wg        sync.WaitGroup
}

// StartCanary starts publishing on channel through publish, which gets the
// event's data and must be safe to call from another goroutine (say, a
// signed POST to the HTTP API of some node). sub must already be
// subscribed to channel.
func StartCanary(sub *Client, channel string, publish func(data string) error) *Canary {
	c := &Canary{sub: sub, channel: channel, publish: publish, got: make(map[int][]time.Time), failed: make(map[int]bool),
		stop: make(chan struct{}), published: make(chan struct{})}
	sub.Conn.NetConn().SetReadDeadline(time.Time{}) // the Client's reads leave one
	c.wg.Add(2)
	go c.publishLoop()
	go c.readLoop()
	return c
}

func (c *Canary) publishLoop() {
	defer c.wg.Done()
	defer close(c.published)
	tick := time.NewTicker(CanaryEvery)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		c.mu.Lock()
		seq := len(c.sent)
		c.sent = append(c.sent, time.Now())
		c.mu.Unlock()
		if err := c.publish(strconv.Itoa(seq)); err != nil {
			c.mu.Lock()
			c.errs = append(c.errs, fmt.Errorf("publishing canary event %d: %w", seq, err))
			c.failed[seq] = true
			c.mu.Unlock()
		}
	}
}

// readLoop records every canary event until the connection fails: Stop
// ends it with a read deadline in the past. A connection that fails before
// shows as misses.
func (c *Canary) readLoop() {
	defer c.wg.Done()
	for {
		op, msg, err := c.sub.Conn.ReadMessage()
		at := time.Now()
		switch {
		case err != nil:
			c.readFailed(err)
			return
		case op == ws.OpPing:
			c.sub.Conn.WritePong(msg)
		case op == ws.OpText:
			c.record(msg, at)
		}
	}
}

// readFailed records why the subscriber stopped reading, unless Stop
// stopped it.
func (c *Canary) readFailed(err error) {
	select {
	case <-c.stop:
		return
	default:
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, fmt.Errorf("canary subscriber: %w", err))
}

// record notes one text message received at at.
func (c *Canary) record(msg []byte, at time.Time) {
	var f Frame
	if json.Unmarshal(msg, &f) != nil || f.Channel != c.channel {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	seq, err := strconv.Atoi(f.Text())
	if f.Event != CanaryEvent || err != nil || seq < 0 || seq >= len(c.sent) {
		c.strays++
		return
	}
	c.got[seq] = append(c.got[seq], at)
}

// Stop stops publishing, waits until every event published has arrived
// or settle has passed, and stops reading. The subscriber's connection is
// unusable afterwards.
func (c *Canary) Stop(settle time.Duration) {
	close(c.stop)
	<-c.published // the last event may have been numbered as stop closed
	Poll(settle, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.got) >= len(c.sent)
	})
	c.sub.Conn.NetConn().SetReadDeadline(time.Unix(1, 0))
	c.wg.Wait()
}

// lostListed is how many missed events a CanaryReport names.
const lostListed = 10

// CanaryReport describes the canary events published in one stretch of
// time.
type CanaryReport struct {
	Sent       int           // events published
	Refused    int           // of those, never received after their publish failed
	Missed     int           // of those, never received though published
	Lost       []int         // the first lostListed of the Missed events' numbers
	Duplicates int           // extra copies received
	Inside     int           // of those, first received before the stretch ended
	Max, P50   time.Duration // from publishing to the first copy's arrival
	Errors     []error       // failed publishes and reads (of the whole run)
	Strays     int           // other frames on the channel (of the whole run)
}

func (r CanaryReport) String() string {
	return fmt.Sprintf("%d sent, %d refused, %d missed %v, %d duplicates, latency max %v p50 %v, %d errors, %d stray frames",
		r.Sent, r.Refused, r.Missed, r.Lost, r.Duplicates, r.Max.Round(time.Millisecond), r.P50.Round(time.Millisecond), len(r.Errors), r.Strays)
}

// Sent returns how many events have been published so far.
func (c *Canary) Sent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sent)
}

// Report describes the events published from from (inclusive) to to
// (exclusive); zero times mean the start and the end of the run.
func (c *Canary) Report(from, to time.Time) CanaryReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := CanaryReport{Errors: slices.Clone(c.errs), Strays: c.strays}
	var lat []time.Duration
	for seq, at := range c.sent {
		if at.Before(from) || !to.IsZero() && !at.Before(to) {
			continue
		}
		r.Sent++
		got := c.got[seq]
		switch {
		case len(got) == 0 && c.failed[seq]:
			r.Refused++
			continue
		case len(got) == 0:
			r.Missed++
			if len(r.Lost) < lostListed {
				r.Lost = append(r.Lost, seq)
			}
			continue
		}
		r.Duplicates += len(got) - 1
		if to.IsZero() || got[0].Before(to) {
			r.Inside++
		}
		lat = append(lat, got[0].Sub(at))
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		r.Max, r.P50 = lat[len(lat)-1], lat[len(lat)/2]
	}
	return r
}
