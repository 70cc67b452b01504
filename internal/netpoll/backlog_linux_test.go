package netpoll

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/unix"
)

// TestBacklogFollowsItsBytes: pushes, writes of any length, pops and cuts
// leave a backlog holding the same bytes as a plain slice would, in the
// fewest chunks that hold them from its head.
func TestBacklogFollowsItsBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q backlog
	var want []byte
	for i := range 5000 {
		switch op := rng.IntN(10); {
		case op < 5:
			b := make([]byte, rng.IntN(3*chunkSize))
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			q.push(b)
			want = append(want, b...)
		case op < 9 && len(want) > 0:
			n := rng.IntN(len(want) + 1)
			q.pop(n)
			want = want[n:]
		default:
			n := rng.IntN(len(want) + 1)
			q.truncate(n)
			want = want[:n]
		}
		if got := q.bytes(); q.Len() != len(want) || !bytes.Equal(got, want) {
			t.Fatalf("step %d: the backlog holds %d bytes, want %d (equal: %v)", i, q.Len(), len(want), bytes.Equal(got, want))
		}
		if fewest := (q.head + q.Len() + chunkSize - 1) / chunkSize; len(q.chunks) != fewest || (q.Len() == 0 && q.head != 0) {
			t.Fatalf("step %d: %d chunks from offset %d for %d bytes, want %d", i, len(q.chunks), q.head, q.Len(), fewest)
		}
	}
}

// TestBacklogWritesInOrder: one writev hands the kernel the backlog's
// chunks in order, from its head, and pop drops what it took.
func TestBacklogWritesInOrder(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	var q backlog
	var sent []byte
	for i := range 3 * maxIovecs * chunkSize / 1000 {
		b := bytes.Repeat([]byte{byte(i)}, 1000)
		q.push(b)
		sent = append(sent, b...)
	}
	q.pop(123) // a head inside the first chunk
	sent = sent[123:]
	var got []byte
	for i := 0; q.Len() > 0; i++ {
		if i > 1000 {
			t.Fatal("the backlog never drained")
		}
		n, err := q.write(fds[0])
		if err != nil && err != unix.EAGAIN {
			t.Fatal(err)
		}
		if n > 0 {
			q.pop(n)
		}
		got = append(got, readAll(t, fds[1])...)
	}
	if !bytes.Equal(got, sent) {
		t.Fatalf("the reader got %d bytes, not the %d queued in order", len(got), len(sent))
	}
}
