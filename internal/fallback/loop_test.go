package fallback

import (
	"sync"
	"testing"
	"time"
)

// fakeStream is a Stream that records what the handler asks of it, as a
// loop would be asked.
type fakeStream struct {
	mu      sync.Mutex
	wakes   int
	ended   bool
	blocked time.Time
}

func (s *fakeStream) Wake()                 { s.mu.Lock(); s.wakes++; s.mu.Unlock() }
func (s *fakeStream) End()                  { s.mu.Lock(); s.ended = true; s.mu.Unlock() }
func (s *fakeStream) Blocked() time.Time    { s.mu.Lock(); defer s.mu.Unlock(); return s.blocked }
func (s *fakeStream) state() (int, bool)    { s.mu.Lock(); defer s.mu.Unlock(); return s.wakes, s.ended }
func (s *fakeStream) block(since time.Time) { s.mu.Lock(); s.blocked = since; s.mu.Unlock() }

var _ Stream = (*fakeStream)(nil)

// holdFake makes a fake loop's stream hold c's current request, as
// holdOnLoop does once net/http has let the socket go.
func holdFake(c *conn, chunked bool) (*feed, *fakeStream) {
	s := new(fakeStream)
	f := &feed{c: c, gen: c.gen, chunked: chunked}
	c.setStream(f.gen, s)
	return f, s
}

// TestHeldStreamFeed checks what a loop's stream is given: a wake for
// every queued line, the lines in HTTP/1.1 chunks, and the last chunk when
// a newer request takes the session over, which then wakes no more.
func TestHeldStreamFeed(t *testing.T) {
	r := newRig(t, nil)
	c := r.openStreaming(t)
	f, s := holdFake(c, true)
	c.touch(true) // the client's ping: answered with h
	if wakes, _ := s.state(); wakes < 2 {
		t.Fatalf("the stream was woken %d times, want one on holding and one for h", wakes)
	}
	if out, last := f.Take(); string(out) != "2\r\nh\n\r\n" || last {
		t.Fatalf("took %q, last %v", out, last)
	}
	if out, last := f.Take(); len(out) != 0 || last {
		t.Fatalf("an empty queue gave %q, last %v", out, last)
	}
	c.attach(r.gens.Add(1)) // a newer stream
	if out, last := f.Take(); string(out) != "0\r\n\r\n" || !last {
		t.Fatalf("the superseded stream took %q, last %v", out, last)
	}
	wakes, _ := s.state()
	c.touch(false)
	c.Send([]byte{0x81, 1, 'x'})
	if w, _ := s.state(); w != wakes {
		t.Errorf("a superseded stream was woken again")
	}
	f.Gone()
	if c.gen == 0 {
		t.Errorf("the old stream's close detached the new one")
	}
}

// TestHeldStreamCloses checks that a session's close line is the held
// stream's last, unchunked for HTTP/1.0, and that the session then leaves
// the table.
func TestHeldStreamCloses(t *testing.T) {
	r := newRig(t, nil)
	c := r.openStreaming(t)
	f, _ := holdFake(c, false)
	c.closeWith(closeLine(4009, "terminated"))
	if out, last := f.Take(); string(out) != `c[4009,"terminated"]`+"\n" || !last {
		t.Fatalf("took %q, last %v", out, last)
	}
	if r.lookup(c.key) != nil {
		t.Errorf("the session stayed in the table after its close was taken")
	}
	f.Gone()
	if c.gen != 0 || c.stream != nil {
		t.Errorf("the stream's close left the session held")
	}
}

// TestStuckStreamIsSlow checks that a held stream whose client takes
// nothing for the write timeout ends the session with 4100 and is closed,
// as net/http's write deadline ends a stream, and not a second before.
func TestStuckStreamIsSlow(t *testing.T) {
	r := newRig(t, nil)
	c := r.openStreaming(t)
	_, s := holdFake(c, true)
	s.block(r.now())
	r.advance(r.cfg.Policy.WriteTimeout)
	if _, ended := s.state(); ended {
		t.Fatal("the stream was closed at the write timeout, not past it")
	}
	r.advance(time.Second)
	if _, ended := s.state(); !ended {
		t.Fatal("a stream stuck past the write timeout was not closed")
	}
	if got := r.queued(c); got != `c[4100,"over capacity"]`+"\n" {
		t.Errorf("the stuck session queued %q", got)
	}
	waitFor(t, func() bool { return r.stats[streaming].Read().Closed[2] == 1 })
}
