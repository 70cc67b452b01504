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

// sender delivers one URL's queue, one request at a time, in order.
type sender struct {
	url, key, secret string
	q                *queue
	stats            *counters
	cfg              *config.Webhooks
	client           *http.Client
	log              *slog.Logger
	closing          <-chan struct{} // closed when the server stops: no more retries
	app              string
	delivered        func(app, url string, events int, err error) // Options.Delivered, or nil

	lastLog  time.Time // when a failure was last logged
	failures int       // failed requests since then
}

// run sends batches until ctx ends; closing (closed when the server stops)
// makes it send what is queued at once instead of waiting for a batch to
// fill.
func (s *sender) run(ctx context.Context) {
	for s.await(ctx, s.closing) {
		batch := s.q.take(s.cfg.BatchMax)
		s.deliver(ctx, batch)
		s.q.done(batch)
	}
}

// await waits for an event, then for the batch to fill or batch_wait to
// pass; false means ctx ended.
func (s *sender) await(ctx context.Context, closing <-chan struct{}) bool {
	for s.q.len() == 0 {
		select {
		case <-ctx.Done():
			return false
		case <-closing:
			return false
		case <-s.q.wake:
		}
	}
	timer := time.NewTimer(s.cfg.BatchWait)
	defer timer.Stop()
	for s.q.len() < s.cfg.BatchMax {
		select {
		case <-ctx.Done():
			return false
		case <-closing:
			return true
		case <-timer.C:
			return true
		case <-s.q.wake:
		}
	}
	return true
}

// deliver sends one batch, retrying with backoff until it is answered 2xx
// or retry_for has passed.
func (s *sender) deliver(ctx context.Context, batch [][]byte) {
	body := Body(time.Now().UnixMilli(), batch)
	sig := Sign(s.secret, body)
	start := time.Now()
	wait := min(maxFirstBackoff, s.cfg.RetryFor/16)
	for {
		err := s.post(ctx, body, sig)
		if s.delivered != nil {
			s.delivered(s.app, s.url, len(batch), err)
		}
		if err == nil {
			s.stats.sent.Add(int64(len(batch)))
			return
		}
		s.stats.failed.Add(1)
		s.logFailure(err)
		pause := wait/2 + rand.N(wait/2+1)
		wait = min(2*wait, maxBackoff)
		if time.Since(start)+pause > s.cfg.RetryFor {
			s.stats.dropped[DropRetryExpired].Add(int64(len(batch)))
			return
		}
		if !sleep(ctx, s.closing, pause) {
			s.stats.dropped[DropShutdown].Add(int64(len(batch)))
			return
		}
		s.stats.retried.Add(1)
	}
}

// sleep waits d, or less if ctx ends or closing closes; it reports whether
// it waited d. A stopping server does not retry: a backend that is down
// must not hold the shutdown for its whole timeout.
func sleep(ctx context.Context, closing <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-closing:
		return false
	case <-t.C:
		return true
	}
}

// post makes one signed request; nil means a 2xx answer.
func (s *sender) post(ctx context.Context, body []byte, sig string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Pusher-Key", s.key)
	req.Header.Set("X-Pusher-Signature", sig)
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

// logFailure logs a failed request, at most once per logEvery per URL, with
// the number of failures since the last line.
func (s *sender) logFailure(err error) {
	s.failures++
	if now := time.Now(); now.Sub(s.lastLog) >= logEvery {
		s.log.Warn("webhook request failed; retrying with backoff", "url", config.ShownURL(s.url), "err", err, "failures", s.failures)
		s.lastLog, s.failures = now, 0
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
