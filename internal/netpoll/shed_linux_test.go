package netpoll

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/transport"
	"github.com/roostproject/roost/internal/ws"
)

// budgetLoop is socketLoop with a node backlog budget of limit bytes and
// send buffers capped small, so that backlogs start early.
func budgetLoop(t *testing.T, n int, limit int64) (*loop, []*conn, []int) {
	t.Helper()
	l, conns, peers := socketLoop(t, n, false)
	l.cfg.Policy.Budget = transport.NewBudget(limit)
	for _, c := range conns {
		unix.SetsockoptInt(int(c.fd), unix.SOL_SOCKET, unix.SO_SNDBUF, 4<<10)
	}
	return l, conns, peers
}

// TestBudgetShedsLargestBacklogs: connections that do not read, each
// written a different amount, never hold more than the budget plus one
// chunk each (and two for each shed one); the largest backlogs are closed with 4100 first and the
// smallest keep going; connections that read get every frame.
func TestBudgetShedsLargestBacklogs(t *testing.T) {
	const limit, readers, slow, rounds = 64 << 10, 2, 8, 20
	l, conns, peers := budgetLoop(t, readers+slow, limit)
	frame := ws.AppendFrame(nil, ws.OpText, bytes.Repeat([]byte("x"), 1000))
	got := make([][]byte, readers)
	for round := range rounds {
		for j := range slow {
			for i, c := range conns {
				if j <= max(i-readers, 0) { // the later a non-reader, the faster it grows
					c.Send(frame)
				}
				if q := l.cfg.Policy.Budget.Queued(); q > limit+int64(len(conns)*2*chunkSize) {
					t.Fatalf("round %d: %d bytes queued, budget %d", round, q, limit)
				}
			}
		}
		for i := range readers {
			got[i] = append(got[i], readAll(t, peers[i])...)
			conns[i].flush()
		}
		checkShedLargestFirst(t, round, conns[readers:])
	}
	for i := range readers {
		if conns[i].flags&fShed != 0 || len(append(got[i], drain(t, conns[i], peers[i])...)) != rounds*len(frame) {
			t.Errorf("reader %d: shed %v, lost frames", i, conns[i].flags&fShed != 0)
		}
	}
	if conns[len(conns)-1].flags&fShed == 0 || conns[readers].flags&fShed != 0 {
		t.Errorf("shed: largest %v, smallest %v; want the largest, not the smallest",
			conns[len(conns)-1].flags&fShed != 0, conns[readers].flags&fShed != 0)
	}
	last := conns[len(conns)-1]
	if out := drain(t, last, peers[len(peers)-1]); !bytes.HasSuffix(out, transport.SlowClose) {
		t.Errorf("a shed connection does not end with the 4100 close frame")
	}
	if q, held := l.cfg.Policy.Budget.Queued(), l.queued; q != held {
		t.Errorf("the budget counts %d bytes, the loop holds %d", q, held)
	}
}

// checkShedLargestFirst fails unless the shed connections are a suffix of
// slow, which grow faster the later they come.
func checkShedLargestFirst(t *testing.T, round int, slow []*conn) {
	t.Helper()
	for i := 1; i < len(slow); i++ {
		if slow[i-1].flags&fShed != 0 && slow[i].flags&fShed == 0 {
			t.Fatalf("round %d: non-reader %d shed before the larger %d", round, i-1, i)
		}
	}
}

// TestBudgetReleaseReturnsBytes: a connection released with a backlog
// gives its bytes back to the budget.
func TestBudgetReleaseReturnsBytes(t *testing.T) {
	l, conns, _ := budgetLoop(t, 1, 1<<20)
	frame := ws.AppendFrame(nil, ws.OpText, bytes.Repeat([]byte("x"), 1000))
	for range 100 {
		conns[0].Send(frame)
	}
	if l.cfg.Policy.Budget.Queued() == 0 {
		t.Fatal("nothing queued: the socket took it all")
	}
	l.kill(conns[0], 0)
	l.release(conns[0])
	if q := l.cfg.Policy.Budget.Queued(); q != 0 || l.queued != 0 || l.sheddable != 0 {
		t.Errorf("after release: budget %d, loop %d, sheddable %d; want 0", q, l.queued, l.sheddable)
	}
}

// TestBudgetCountsChunks: the budget counts the memory a backlog holds,
// its whole chunks, which run ahead of the bytes in them.
func TestBudgetCountsChunks(t *testing.T) {
	l, conns, _ := budgetLoop(t, 1, 1<<30)
	c := conns[0]
	frame := ws.AppendFrame(nil, ws.OpText, bytes.Repeat([]byte("x"), 1000))
	ahead := false
	for range 300 {
		c.Send(frame)
		if !c.backlogged() {
			continue
		}
		q := &c.x.backlog
		ahead = ahead || q.held() > q.Len()
		if b := l.cfg.Policy.Budget.Queued(); b != int64(q.held()) || l.queued != b || q.held() != len(q.chunks)*chunkSize {
			t.Fatalf("budget %d, loop %d; the backlog holds %d chunks (%d bytes in them)", b, l.queued, len(q.chunks), q.Len())
		}
	}
	if !ahead {
		t.Fatal("the backlog's chunks never held more than its bytes: nothing tested")
	}
}

// TestShedFreesBacklog: a shed connection keeps only the rest of the frame
// on the wire and the close frame, in the chunks they need, so that the
// memory of the frames dropped is freed before its close deadline; and a
// loop sheds down to a slack below the budget in one pass.
func TestShedFreesBacklog(t *testing.T) {
	const limit = 256 << 10
	l, conns, _ := budgetLoop(t, 8, limit)
	frame := ws.AppendFrame(nil, ws.OpText, bytes.Repeat([]byte("x"), 1000))
	for l.sheddable == l.queued {
		for _, c := range conns {
			if c.Send(frame); l.sheddable != l.queued {
				break // checked right after the pass
			}
		}
	}
	shed := 0
	for _, c := range conns {
		if c.flags&fShed == 0 {
			continue
		}
		shed++
		if q := &c.x.backlog; q.Len() != c.x.edge+len(transport.SlowClose) || q.held() > (q.Len()/chunkSize+2)*chunkSize {
			t.Errorf("a shed connection holds %d bytes for %d to send, %d of a frame begun", q.held(), q.Len(), c.x.edge)
		}
	}
	if shed == 0 || shed == len(conns) {
		t.Fatalf("%d of %d shed; want some, not all", shed, len(conns))
	}
	if q := l.cfg.Policy.Budget.Queued(); q > limit-limit/shedSlack {
		t.Errorf("after shedding: %d bytes queued; want a slack below the budget %d", q, limit)
	}
}

// TestBudgetCountsPartialFrames: a frame read only in part holds its
// buffer against the node's budget; past the budget, the connection
// holding most of one is closed at once, and released gives it all back.
func TestBudgetCountsPartialFrames(t *testing.T) {
	const limit = 160 << 10
	l, conns, peers := budgetLoop(t, 3, limit)
	sizes := []int{20000, 40000, 120000} // of 130,000 announced
	for i, c := range conns {
		head := []byte{0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0x01, 0xfb, 0xd0, 1, 2, 3, 4}
		if _, err := unix.Write(peers[i], append(head, make([]byte, sizes[i])...)); err != nil {
			t.Fatal(err)
		}
		for c.flags&fDead == 0 && (c.x == nil || len(c.x.pending) < len(head)+sizes[i]) {
			c.read()
		}
		if i < 2 {
			want := int64(conns[0].x.held())
			if i == 1 {
				want += int64(c.x.held())
			}
			if got := l.cfg.Policy.Budget.Queued(); got != want || cap(c.x.pending) < sizes[i] {
				t.Fatalf("connection %d: the budget counts %d bytes, want %d; its partial frame holds %d", i, got, want, cap(c.x.pending))
			}
		}
	}
	last := conns[2]
	if last.flags&(fShed|fDead) != fShed|fDead || conns[0].flags&fShed != 0 || conns[1].flags&fShed != 0 {
		t.Fatalf("shed %v, %v, largest %v; want the largest partial frame's connection alone, closed at once",
			conns[0].flags&fShed != 0, conns[1].flags&fShed != 0, last.flags&(fShed|fDead) == fShed|fDead)
	}
	if q := l.cfg.Policy.Budget.Queued(); q != int64(conns[0].x.held()+conns[1].x.held()) {
		t.Errorf("after the shed: the budget counts %d bytes; the others hold %d", q, conns[0].x.held()+conns[1].x.held())
	}
	for _, c := range conns {
		l.kill(c, 0)
		l.release(c)
	}
	if q := l.cfg.Policy.Budget.Queued(); q != 0 || l.queued != 0 {
		t.Errorf("after release: budget %d, loop %d; want 0", q, l.queued)
	}
}
