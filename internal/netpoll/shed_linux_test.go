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
// frame each; the largest backlogs are closed with 4100 first and the
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
				if q := l.cfg.Policy.Budget.Queued(); q > limit+int64(len(conns)*(len(frame)+len(transport.SlowClose))) {
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
