package netpoll

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkFanoutWrite writes one publish's frame to 256 subscribers on
// socketpairs, as a loop does: one write(2) each, or one io_uring
// submission for all (with the ring). One op is one publish; ns/send is
// the cost per subscriber. The readers are drained outside the timer.
func BenchmarkFanoutWrite(b *testing.B) {
	for _, bc := range []struct {
		name  string
		uring bool
	}{{"write", false}, {"uring", true}} {
		b.Run(bc.name, func(b *testing.B) {
			const subscribers = 256
			l, conns, peers := socketLoop(b, subscribers, bc.uring)
			frame := bytes.Repeat([]byte{'x'}, 100)
			buf := make([]byte, 256<<10)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				inBatch(l, func() {
					for _, c := range conns {
						c.write(frame)
					}
				})
				if i%256 == 255 {
					b.StopTimer()
					drainPeers(b, conns, peers, buf)
					b.StartTimer()
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*subscribers), "ns/send")
		})
	}
}

// drainPeers reads every peer empty, and fails if a write was left over.
func drainPeers(b *testing.B, conns []*conn, peers []int, buf []byte) {
	for i, p := range peers {
		for {
			n, _ := unix.Read(p, buf)
			if n <= 0 {
				break
			}
		}
		if conns[i].backlogged() {
			b.Fatal("a socketpair filled up: drain more often")
		}
	}
}
