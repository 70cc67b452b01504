package netpoll

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/transport"
)

// ringLoop returns a loop with a ring, whose goroutine does not run, and n
// connections on socketpairs; peers are the ends the clients would read.
func ringLoop(t testing.TB, n int) (l *loop, conns []*conn, peers []int) {
	return socketLoop(t, n, true)
}

// socketLoop is ringLoop, with or without the ring.
func socketLoop(t testing.TB, n int, uring bool) (l *loop, conns []*conn, peers []int) {
	t.Helper()
	pol := transport.Policy{WriteBacklog: 64 << 20, WriteTimeout: time.Minute, CloseTimeout: time.Minute}
	l, err := newLoop(&Config{Uring: uring, Policy: pol}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.closeFDs)
	for range n {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
		c := &conn{l: l, fd: int32(fds[0]), slot: l.takeSlot()}
		l.conns[c.slot] = c
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: c.slot}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fds[0], &ev); err != nil {
			t.Fatal(err)
		}
		conns, peers = append(conns, c), append(peers, fds[1])
	}
	return l, conns, peers
}

// inBatch runs writes as one delivery's flush, then submits the ring if
// the loop has one.
func inBatch(l *loop, writes func()) {
	if l.uring == nil {
		writes()
		return
	}
	l.uring.on = true
	writes()
	l.uring.on = false
	l.submit()
}

// readAll reads what fd holds now.
func readAll(t testing.TB, fd int) []byte {
	t.Helper()
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EAGAIN {
			return out
		}
		if err != nil || n == 0 {
			t.Fatalf("read: %d, %v", n, err)
		}
		out = append(out, buf[:n]...)
	}
}

// TestRingWritesInOrder: frames written in one batch reach each socket
// whole and in order, a second frame to the same connection included (the
// ring never holds two sends for one connection), and no connection is
// left marked as waiting on the ring.
func TestRingWritesInOrder(t *testing.T) {
	l, conns, peers := ringLoop(t, 3)
	first, second := []byte("first frame;"), []byte("second frame;")
	inBatch(l, func() {
		for _, c := range conns {
			c.write(first)
		}
		conns[0].write(second)
		waiting := 0
		for _, s := range l.uring.pend {
			if s.c == conns[0] {
				waiting++
			}
		}
		if waiting > 1 {
			t.Errorf("%d sends to one connection in the ring at once: a short first one would let the second overtake it", waiting)
		}
	})
	for i, c := range conns {
		want := string(first)
		if i == 0 {
			want += string(second)
		}
		if got := string(readAll(t, peers[i])); got != want {
			t.Errorf("connection %d read %q, want %q", i, got, want)
		}
		if c.flags&fRing != 0 || c.backlogged() {
			t.Errorf("connection %d: flags %b, backlog %v after the batch", i, c.flags, c.backlogged())
		}
	}
	if len(l.uring.pend) != 0 {
		t.Errorf("%d sends still pending after the batch", len(l.uring.pend))
	}
}

// TestRingShortWriteJoinsBacklog: a reader that stops reading makes a ring
// send come back short; the rest goes to the connection's backlog, later
// frames queue behind it instead of entering the ring, and once the
// reader reads again it receives every frame whole and in order, while a
// fast reader beside it got each batch at once.
func TestRingShortWriteJoinsBacklog(t *testing.T) {
	l, conns, peers := ringLoop(t, 2)
	slow, fast := conns[0], conns[1]
	var sent bytes.Buffer
	batches := 0
	for after := 0; after < 3; batches++ {
		if batches > 1000 {
			t.Fatal("the slow socket never filled")
		}
		frame := fmt.Appendf(nil, "frame %d:%s;", batches, bytes.Repeat([]byte{'x'}, 16<<10))
		backlogged := slow.backlogged()
		inBatch(l, func() {
			slow.write(frame)
			fast.write(frame)
			if backlogged && slow.flags&fRing != 0 {
				t.Fatal("a backlogged connection was given a ring send")
			}
		})
		sent.Write(frame)
		if got := readAll(t, peers[1]); !bytes.Equal(got, frame) {
			t.Fatalf("batch %d: the fast reader got %d bytes, want %d", batches, len(got), len(frame))
		}
		if slow.backlogged() {
			after++
			if slow.flags&fOut == 0 {
				t.Fatal("a backlogged connection does not wait for EPOLLOUT")
			}
		}
	}
	if fast.backlogged() {
		t.Fatal("the fast reader has a backlog")
	}
	got := drain(t, slow, peers[0])
	if !bytes.Equal(got, sent.Bytes()) {
		t.Fatalf("the slow reader got %d bytes, not the %d sent in order", len(got), sent.Len())
	}
}

// TestRingWouldBlockJoinsBacklog: a ring send to a socket that is already
// full completes with EAGAIN; the whole frame then waits in the backlog
// and follows what the socket held.
func TestRingWouldBlockJoinsBacklog(t *testing.T) {
	l, conns, peers := ringLoop(t, 1)
	c := conns[0]
	var sent bytes.Buffer
	filler := bytes.Repeat([]byte{'f'}, 4<<10)
	for {
		n, err := unix.Write(int(c.fd), filler)
		if err == unix.EAGAIN {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sent.Write(filler[:n])
	}
	frame := []byte("the frame after a full socket")
	inBatch(l, func() { c.write(frame) })
	sent.Write(frame)
	if !c.backlogged() || !bytes.Equal(c.x.backlog.bytes(), frame) {
		t.Fatalf("backlog %q, want the whole frame %q", c.x.backlog.bytes(), frame)
	}
	if got := drain(t, c, peers[0]); !bytes.Equal(got, sent.Bytes()) {
		t.Fatalf("the reader got %d bytes, not the %d written in order", len(got), sent.Len())
	}
}

// drain reads peer while the connection flushes its backlog, as the loop
// would on EPOLLOUT, and returns everything read.
func drain(t *testing.T, c *conn, peer int) []byte {
	t.Helper()
	var got []byte
	for i := 0; c.backlogged(); i++ {
		if i > 100000 {
			t.Fatal("the backlog never drained")
		}
		got = append(got, readAll(t, peer)...)
		c.flush()
	}
	return append(got, readAll(t, peer)...)
}
