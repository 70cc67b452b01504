package webhook

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/roostproject/roost/internal/config"
)

// Backoff between attempts: it starts at retry_for/16 (at most
// maxFirstBackoff), doubles after each failure up to maxBackoff, and each
// wait is jittered between half and all of it, so that URLs that failed
// together do not retry together.
const (
	maxFirstBackoff = time.Second
	maxBackoff      = time.Minute
	logEvery        = time.Minute // a failing URL is logged at most this often
	maxAnswer       = 64 << 10    // bytes of an answer read, to reuse the connection
)

// How many requests one URL has at once. A request that keeps failing holds
// one of maxInFlight only while it is being answered, and one of maxUnits
// until it is delivered or dropped; a URL with maxUnits requests not done
// (a backend that fails them all) starts no new one, so it is not sent more
// than maxUnits retries per backoff.
const (
	maxInFlight = 4
	maxUnits    = 16
)

// sender delivers one URL's queue: batches of the channels that are not
// busy, up to maxInFlight requests at once, each retried on its own. Its
// goroutine (run) owns every field below closing; the requests' goroutines
// only post and hand their unit back on results.
type sender struct {
	url, key, secret string
	node             string // this node's id, the first part of its events' ids
	q                *queue
	stats            *counters
	cfg              *config.Webhooks
	client           *http.Client
	log              *slog.Logger
	closing          <-chan struct{} // closed when the server stops: no more retries
	app              string
	delivered        func(app, url string, events int, err error) // Options.Delivered, or nil

	busy     map[string]*unit // channel: the unit that holds it
	waiting  []*unit          // units waiting for their next attempt
	flying   int              // units being posted
	results  chan *unit       // a posted unit, back from its request
	batchDue time.Time        // when the events waiting are due even if fewer than batch_max; zero: none waiting
	closed   bool             // closing was seen: send what is queued, once, at once

	failLog, dropLog rateLog
}

// rateLog logs a kind of line at most once per logEvery, with how many
// times it happened since the last line.
type rateLog struct {
	last time.Time
	n    int
}

// newSender returns the sender of one URL; run starts it.
func newSender(s sender) *sender {
	s.busy, s.results = make(map[string]*unit), make(chan *unit, maxInFlight)
	return &s
}

// run sends batches and retries until the URL's app is retired (closing)
// and everything is sent or dropped, or until ctx ends.
func (s *sender) run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	closing := s.closing
	for {
		next := s.dispatch(ctx)
		if n, _ := s.q.waiting(1); s.closed && s.flying == 0 && len(s.waiting) == 0 && n == 0 {
			return
		}
		s.arm(timer, next)
		select {
		case <-ctx.Done():
			s.abort()
			return
		case <-closing:
			closing, s.closed = nil, true
			s.dropWaiting()
		case <-s.q.wake:
		case u := <-s.results:
			s.flying--
			s.finish(u)
		case <-timer.C:
		}
	}
}

// arm sets timer for next, or stops it when next is zero.
func (s *sender) arm(timer *time.Timer, next time.Time) {
	if next.IsZero() {
		timer.Stop()
		return
	}
	timer.Reset(time.Until(next))
}

// dispatch starts the units that are due, then new batches, while fewer
// than maxInFlight are being posted; it returns when to look again (zero:
// when something happens).
func (s *sender) dispatch(ctx context.Context) time.Time {
	now := time.Now()
	for s.flying < maxInFlight {
		u := s.due(now)
		if u == nil {
			u = s.batch(now)
		}
		if u == nil {
			break
		}
		s.launch(ctx, u)
	}
	return s.next()
}

// due removes and returns the waiting unit due first, if it is due by now.
func (s *sender) due(now time.Time) *unit {
	i := s.first()
	if i < 0 || s.waiting[i].due.After(now) {
		return nil
	}
	u := s.waiting[i]
	s.waiting = append(s.waiting[:i], s.waiting[i+1:]...)
	return u
}

// first returns the index of the waiting unit due first, or -1.
func (s *sender) first() int {
	i := -1
	for j, u := range s.waiting {
		if i < 0 || u.due.Before(s.waiting[i].due) {
			i = j
		}
	}
	return i
}

// next returns when dispatch has something to do, zero if only an event,
// an answer or closing can give it some.
func (s *sender) next() time.Time {
	if s.flying >= maxInFlight {
		return time.Time{}
	}
	var t time.Time
	if i := s.first(); i >= 0 {
		t = s.waiting[i].due
	}
	if !s.batchDue.IsZero() && s.room() && (t.IsZero() || s.batchDue.Before(t)) {
		t = s.batchDue
	}
	return t
}

// room reports whether a new batch may start.
func (s *sender) room() bool { return s.flying+len(s.waiting) < maxUnits }

// batch takes the next batch of channels that are not busy, once it is full
// or batch_wait has passed since the oldest of its events was queued; nil
// if there is none yet.
func (s *sender) batch(now time.Time) *unit {
	s.batchDue = time.Time{}
	n, since := s.q.waiting(s.cfg.BatchMax)
	if n == 0 || !s.room() {
		return nil
	}
	if due := time.Unix(0, since).Add(s.cfg.BatchWait); !s.closed && n < s.cfg.BatchMax && now.Before(due) {
		s.batchDue = due
		return nil
	}
	events := s.q.take(s.cfg.BatchMax, s.busy)
	if len(events) == 0 {
		return nil
	}
	u := newUnit(s.secret, s.node, events, now.UnixMilli())
	u.start, u.wait = now, min(maxFirstBackoff, s.cfg.RetryFor/16)
	s.claim(u)
	return u
}

// claim makes u's channels busy with u.
func (s *sender) claim(u *unit) {
	for _, ch := range u.chans {
		s.busy[ch] = u
	}
	s.q.track(u, true)
}

// launch posts u in a goroutine of its own, which hands it back on results.
func (s *sender) launch(ctx context.Context, u *unit) {
	if u.attempts > 0 {
		s.stats.retried.Add(1)
	}
	u.attempts++
	s.flying++
	go func() {
		u.err = s.post(ctx, u)
		s.results <- u
	}()
}

// finish handles a posted unit's outcome: delivered, dropped (the server is
// stopping), split (a failed request of several channels) or retried.
func (s *sender) finish(u *unit) {
	if s.delivered != nil {
		s.delivered(s.app, s.url, len(u.events), u.err)
	}
	if u.err == nil {
		s.stats.sent.Add(int64(len(u.events)))
		s.q.unjournal(u.events)
		s.release(u)
		return
	}
	s.stats.failed.Add(1)
	s.failLog.log(s.log, "webhook request failed; retrying with backoff", "url", config.ShownURL(s.url), "err", u.err)
	switch {
	case s.closed:
		s.drop(u, DropShutdown)
	case len(u.chans) > 1 && s.splitInto(u) > 1:
	default:
		s.retry(u)
	}
}

// splitInto replaces a failed unit of several channels by one per channel
// (fewer if maxUnits would not hold them), each tried again at once: a
// backend that refuses one channel's events takes the others' on the next
// request, one failed request after they were first sent. It returns the
// number of units u became; 1 means it was not split.
func (s *sender) splitInto(u *unit) int {
	parts := min(len(u.chans), maxUnits-s.flying-len(s.waiting))
	if parts < 2 {
		return 1
	}
	u.due = time.Now()
	s.q.track(u, false)
	for _, c := range u.split(s.secret, s.node, parts) {
		s.claim(c)
		s.waiting = append(s.waiting, c)
	}
	return parts
}

// retry schedules u's next attempt after a jittered pause, or drops it when
// that attempt would start after retry_for.
func (s *sender) retry(u *unit) {
	pause := u.wait/2 + rand.N(u.wait/2+1)
	u.wait = min(2*u.wait, maxBackoff)
	if time.Since(u.start)+pause > s.cfg.RetryFor {
		s.drop(u, DropRetryExpired)
		s.dropLog.log(s.log, "webhook request dropped: it still failed after retry_for", "url", config.ShownURL(s.url),
			"events", len(u.events), "err", u.err)
		return
	}
	u.due = time.Now().Add(pause)
	s.waiting = append(s.waiting, u)
}

// drop gives up on u, counting its events under reason. Their outbox
// records go too, but for a shutdown's: the node that reaps this one
// sends those.
func (s *sender) drop(u *unit, reason int) {
	s.stats.dropped[reason].Add(int64(len(u.events)))
	if reason != DropShutdown {
		s.q.unjournal(u.events)
	}
	s.release(u)
}

// release frees u's channels (their held events go next) and its bytes.
func (s *sender) release(u *unit) {
	for _, ch := range u.chans {
		if s.busy[ch] == u {
			delete(s.busy, ch)
		}
	}
	s.q.track(u, false)
	s.q.free(u.chans)
	s.q.done(u.events)
}

// dropWaiting drops the units waiting to retry: a stopping server does not
// retry, so that a backend that is down does not hold the shutdown.
func (s *sender) dropWaiting() {
	for _, u := range s.waiting {
		s.drop(u, DropShutdown)
	}
	s.waiting = nil
}

// abort ends run when ctx ended: the requests in flight end with it.
func (s *sender) abort() {
	s.closed = true
	s.dropWaiting()
	for s.flying > 0 {
		s.flying--
		s.finish(<-s.results)
	}
}

// The headers that let a receiver drop a request or an event it already
// has (docs/webhooks.md, "Ids"): the request's id, the same on each
// attempt of one body, and the ids of its events, in the body's order,
// which stay the same when another node sends them.
const (
	HeaderRequestID = "X-Roost-Webhook-Id"
	HeaderEventIDs  = "X-Roost-Webhook-Events"
)

// post makes one signed request; nil means a 2xx answer.
func (s *sender) post(ctx context.Context, u *unit) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(u.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Pusher-Key", s.key)
	req.Header.Set("X-Pusher-Signature", u.sig)
	req.Header.Set(HeaderRequestID, u.sig[:requestIDLen])
	req.Header.Set(HeaderEventIDs, u.ids)
	t0 := time.Now()
	resp, err := s.client.Do(req)
	s.stats.observe(time.Since(t0))
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("answered %s", resp.Status)
	}
	return nil
}

// log writes msg at most once per logEvery, with the number of times it
// happened since the last line.
func (l *rateLog) log(log *slog.Logger, msg string, args ...any) {
	l.n++
	if now := time.Now(); now.Sub(l.last) >= logEvery {
		log.Warn(msg, append(args, "times", l.n)...)
		l.last, l.n = now, 0
	}
}

// newClient returns the HTTP client of every sender: the request timeout,
// and redirects answered as failures, never followed (a webhook URL that
// moved must be changed in the config, not silently followed with the
// signed body).
func newClient(timeout time.Duration, t http.RoundTripper) *http.Client {
	return &http.Client{
		Transport:     t,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
