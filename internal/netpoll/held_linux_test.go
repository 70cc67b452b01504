package netpoll

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/roostproject/roost/internal/testutil"
)

// lineFeed is a Feed of queued lines; last marks the queue's end.
type lineFeed struct {
	mu   sync.Mutex
	out  []byte
	last bool
	gone atomic.Int32
}

func (f *lineFeed) Take() ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.out
	f.out = nil
	return out, f.last
}

func (f *lineFeed) Gone() { f.gone.Add(1) }

func (f *lineFeed) push(b string, last bool) {
	f.mu.Lock()
	f.out = append(f.out, b...)
	f.last = last
	f.mu.Unlock()
}

// holdPair hands one end of a socket pair to p.Hold and returns the other.
func holdPair(t *testing.T, p *Poller, f Feed) (int, *Held) {
	t.Helper()
	client, server := socketPair(t)
	return client, p.Hold(server, f)
}

// readUntil reads fd until what it read ends with want, or EOF.
func readUntil(t *testing.T, fd int, want string) string {
	t.Helper()
	var got []byte
	buf := make([]byte, 4096)
	for !bytes.HasSuffix(got, []byte(want)) {
		n, err := unix.Read(fd, buf)
		if n <= 0 || err != nil {
			break
		}
		got = append(got, buf[:n]...)
	}
	return string(got)
}

// TestHeldSocketsOwnNoGoroutine holds many sockets and checks that they
// start no goroutine, that a woken one writes what its feed has and closes
// after its last bytes, and that a client's close is noticed.
func TestHeldSocketsOwnNoGoroutine(t *testing.T) {
	p := newTestPoller(t)
	t.Cleanup(p.close)
	before := runtime.NumGoroutine()
	const n = 200
	feeds := make([]*lineFeed, n)
	peers := make([]int, n)
	helds := make([]*Held, n)
	for i := range n {
		feeds[i] = new(lineFeed)
		peers[i], helds[i] = holdPair(t, p, feeds[i])
	}
	testutil.Eventually(t, 10*time.Second, "every socket held", func() bool { return p.loops[0].holding.Load() == n })
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d held sockets started %d goroutines", n, after-before)
	}
	feeds[0].push("a[\"x\"]\n", false)
	helds[0].Wake()
	if got := readUntil(t, peers[0], "\n"); got != "a[\"x\"]\n" {
		t.Fatalf("held socket wrote %q", got)
	}
	feeds[1].push("c[4200]\n", true)
	helds[1].Wake()
	if got := readUntil(t, peers[1], "never"); got != "c[4200]\n" { // EOF ends it
		t.Fatalf("held socket wrote %q before closing", got)
	}
	unix.Shutdown(peers[2], unix.SHUT_WR) // the client aborts; its descriptor closes with the test
	testutil.Eventually(t, 10*time.Second, "both ends noticed", func() bool {
		return feeds[1].gone.Load() == 1 && feeds[2].gone.Load() == 1
	})
	if g := feeds[0].gone.Load(); g != 0 {
		t.Errorf("a socket still held told its feed it was gone")
	}
}

// TestHeldSocketWaitsForARefusingClient fills a socket whose client does
// not read: what it refuses waits, Blocked says since when, and it all
// arrives, in order, once the client reads.
func TestHeldSocketWaitsForARefusingClient(t *testing.T) {
	p := newTestPoller(t)
	t.Cleanup(p.close)
	f := new(lineFeed)
	peer, h := holdPair(t, p, f)
	line := string(bytes.Repeat([]byte("x"), 1023)) + "\n"
	var want bytes.Buffer
	for i := 0; h.Blocked().IsZero(); i++ {
		if i == 10_000 {
			t.Fatal("10 MB went into a socket nobody reads")
		}
		f.push(line, false)
		want.WriteString(line)
		h.Wake()
		testutil.Poll(time.Second, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.out == nil })
	}
	f.push("end\n", true)
	want.WriteString("end\n")
	h.Wake()
	if got := readUntil(t, peer, "never"); got != want.String() {
		t.Fatalf("read %d bytes, want %d", len(got), want.Len())
	}
	testutil.Eventually(t, 10*time.Second, "the feed told", func() bool { return f.gone.Load() == 1 })
}

// TestHeldSocketsEndWithTheLoops checks that stopping the loops closes the
// sockets they hold and tells their feeds, and End closes one at once.
func TestHeldSocketsEndWithTheLoops(t *testing.T) {
	p := newTestPoller(t)
	a, b := new(lineFeed), new(lineFeed)
	peerA, ha := holdPair(t, p, a)
	peerB, _ := holdPair(t, p, b)
	ha.End()
	if got := readUntil(t, peerA, "never"); got != "" {
		t.Fatalf("ended socket wrote %q", got)
	}
	testutil.Eventually(t, 10*time.Second, "the ended socket's feed told", func() bool { return a.gone.Load() == 1 })
	p.close()
	if got := readUntil(t, peerB, "never"); got != "" || b.gone.Load() != 1 {
		t.Fatalf("socket of a stopped loop wrote %q, gone %d", got, b.gone.Load())
	}
}
