// Package ratelog keeps a repeated event from flooding the log. A Handler
// wraps a log/slog handler and passes the first record of each message in
// every interval; the repeats are counted, and the count is logged with the
// next record of that message, or on its own when the interval ends.
//
// Records are told apart by level and message, not by their attributes, so
// "accept failed" logged for a thousand sockets in one second becomes one
// line now and one "repeated=999" line a second later. It imports nothing of
// roost's own.
package ratelog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// RepeatedKey is the attribute that carries how many records of the same
// message were held back since the last one written.
const RepeatedKey = "repeated"

// Handler is a slog.Handler that writes each message at most once per
// interval. It is safe for concurrent use.
type Handler struct {
	inner slog.Handler
	every time.Duration
	s     *state // shared with the handlers WithAttrs and WithGroup derive
}

// state is what every handler derived from one New shares.
type state struct {
	mu   sync.Mutex
	msgs map[key]*entry
}

type key struct {
	level slog.Level
	msg   string
}

// entry is one message's window.
type entry struct {
	next     time.Time    // when the next record may be written
	repeated int          // records held back since the last one written
	last     slog.Record  // the latest held-back record, for the summary
	h        slog.Handler // the handler that last held one back
	timer    *time.Timer  // writes the summary when the window ends
}

// New returns a handler that writes through inner, each message at most
// once per every.
func New(inner slog.Handler, every time.Duration) *Handler {
	return &Handler{inner: inner, every: every, s: &state{msgs: make(map[key]*entry)}}
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &Handler{inner: h.inner.WithAttrs(as), every: h.every, s: h.s}
}

// WithGroup implements slog.Handler.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{inner: h.inner.WithGroup(name), every: h.every, s: h.s}
}

// Handle implements slog.Handler: it writes r if its message has not been
// written in the current interval, with the count held back before it;
// otherwise it counts r. The interval is measured on the records' own times.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	s := h.s
	s.mu.Lock()
	k := key{r.Level, r.Message}
	e := s.msgs[k]
	if e == nil {
		e = &entry{}
		s.msgs[k] = e
	}
	if r.Time.Before(e.next) {
		e.repeated++
		e.last, e.h = r.Clone(), h.inner
		if e.timer == nil {
			e.timer = time.AfterFunc(e.next.Sub(r.Time), func() { s.summarize(k) })
		}
		s.mu.Unlock()
		return nil
	}
	n := e.repeated
	e.repeated, e.next = 0, r.Time.Add(h.every)
	if len(s.msgs) > maxMessages {
		s.forget(r.Time)
	}
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	s.mu.Unlock()
	if n > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int(RepeatedKey, n))
	}
	return h.inner.Handle(ctx, r)
}

// maxMessages is how many messages the handler tracks before it forgets
// those whose interval is over; callers log a bounded set of messages, so
// this is only a backstop.
const maxMessages = 1024

// forget drops the messages with nothing held back whose interval ended
// before now.
func (s *state) forget(now time.Time) {
	for k, e := range s.msgs {
		if e.repeated == 0 && !now.Before(e.next) {
			delete(s.msgs, k)
		}
	}
}

// summarize writes the held-back count of k when its interval ends with no
// new record to carry it, and forgets the message.
func (s *state) summarize(k key) {
	s.mu.Lock()
	e := s.msgs[k]
	if e == nil || e.repeated == 0 {
		s.mu.Unlock()
		return
	}
	r, h, n := e.last, e.h, e.repeated
	delete(s.msgs, k)
	s.mu.Unlock()
	r.AddAttrs(slog.Int(RepeatedKey, n))
	h.Handle(context.Background(), r)
}
