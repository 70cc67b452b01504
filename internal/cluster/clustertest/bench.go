package clustertest

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/roostproject/roost/internal/cluster"
)

// Quiet changes a node's settings, as the stores' helpers that start nodes
// take a changer, so that it logs nothing: a benchmark's results would
// break up among its lines.
func Quiet(_ int, c *cluster.Settings) { c.Logger = slog.New(slog.DiscardHandler) }

// CountsFlush runs b.N flushes of 100 changed channels on n, their first
// subscriber and then their last: what a store's count writes cost a node.
func CountsFlush[S cluster.Store](b *testing.B, n *Node[S]) {
	c := n.Counts
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, d := range []int{1, -1} {
			for ch := range 100 {
				c.Subscribed("app", fmt.Sprint("flush-", ch), d)
			}
			c.Flush()
		}
	}
}
